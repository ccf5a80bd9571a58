"""Talakat's bullet-hell simulation as the PCG Benchmark runs it (pcg_benchmark 00b96f5, `talakat/engine`).

`run_pattern` replays a generated script frame by frame with an invulnerable, motionless player, the way the
benchmark's `runPattern` measures a pattern: one snapshot of the bullets before every update, until the boss's
health (one point per frame) runs out, an update finds more bullets than the cap (the oldest extras are
dropped and the run stops), or more spawners than the cap are alive. Every float is computed in the reference's
order of operations, so positions agree bit for bit; its quirks are kept:

- a spawner fires its pattern from index 1 (the index advances before the first shot);
- an angle aimed at the player is `atan2` in radians but is then used as degrees;
- a spawner that leaves the world or ends its repeats still fires in that frame;
- bullets and spawners created in a frame first move in the next one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Bullet = list[float]  # [x, y, vx, vy, radius]
Frame = list[tuple[float, float, float]]  # the bullets (x, y, radius) a snapshot holds

PLAYER_RADIUS = 3


@dataclass(slots=True)
class Modifier:
    """A value that steps by `rate` every `time_between` frames and bounces, wraps or clamps at its bounds."""

    lo: float
    hi: float = 0
    rate: float = 0
    time_between: float = 0
    bounds: str = "none"
    value: float = 0
    current_rate: float = 0
    timer: float = 0

    @classmethod
    def parse(cls, spec: str | None, lo: float, hi: float = 0) -> Modifier:
        """ "min[, max, rate, time, bounds]" over the given defaults, as the script's strings are read."""
        mod = cls(lo, hi)
        if spec is not None:
            parts = spec.split(",")
            if len(parts) >= 1:
                mod.lo = float(parts[0])
            if len(parts) >= 2:
                mod.hi = float(parts[1])
            if len(parts) >= 3:
                mod.rate = float(parts[2])
            if len(parts) >= 4:
                mod.time_between = float(parts[3])
            if len(parts) >= 5:
                mod.bounds = parts[4].strip().lower()
        mod.value, mod.current_rate, mod.timer = mod.lo, mod.rate, 0
        return mod

    def copy(self) -> Modifier:
        return Modifier(
            self.lo, self.hi, self.rate, self.time_between, self.bounds, self.value, self.current_rate, self.timer
        )

    def step(self) -> None:
        if self.current_rate == 0:
            return
        self.timer -= 1
        if self.timer <= 0:
            self.value += self.current_rate
            self.timer = self.time_between
        if self.value > self.hi:
            if self.bounds == "reverse":
                self.value = self.hi
                self.current_rate *= -1
            elif self.bounds == "circle":
                self.value = self.value - self.hi + self.lo
            else:
                self.value = self.hi
        if self.value < self.lo:
            if self.bounds == "reverse":
                self.value = self.lo
                self.current_rate *= -1
            elif self.bounds == "circle":
                self.value = self.value + self.hi - self.lo
            else:
                self.value = self.lo


@dataclass(slots=True)
class SpawnerSpec:
    """One named spawner of the script: what it fires, how often, and its six modifiers at their start."""

    pattern: list[str]
    pattern_time: int
    repeat: int
    phase: Modifier
    radius: Modifier
    bullet_radius: Modifier
    speed: Modifier
    number: Modifier
    angle: Modifier
    aim_player: bool

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> SpawnerSpec:
        pattern = [p.lower() for p in spec.get("pattern", [])] or ["bullet"]
        angle = spec.get("spawnedAngle")
        aim = angle is not None and angle.strip().lower() == "player"
        return cls(
            pattern,
            int(spec.get("patternTime", 0)),
            int(spec.get("patternRepeat", 0)),
            Modifier.parse(spec.get("spawnerPhase"), 0, 360),
            Modifier.parse(spec.get("spawnerRadius"), 0),
            Modifier.parse(spec.get("bulletRadius"), 5),
            Modifier.parse(spec.get("spawnedSpeed"), 2),
            Modifier.parse(spec.get("spawnedNumber"), 1),
            Modifier.parse(None if aim else angle, 360),
            aim,
        )


@dataclass(slots=True)
class Spawner:
    """A live spawner: a spec's copy with its own position, straight-line velocity and counters."""

    spec: SpawnerSpec
    x: float
    y: float
    vx: float
    vy: float
    direction: float
    repeat: int
    mods: list[Modifier] = field(default_factory=list)  # phase, radius, bullet radius, number, speed, angle
    index: int = 0
    time: int = 0

    @classmethod
    def start(cls, spec: SpawnerSpec, x: float, y: float, speed: float, direction: float) -> Spawner:
        vx = speed * math.cos(direction * math.pi / 180)
        vy = speed * math.sin(direction * math.pi / 180)
        mods = [m.copy() for m in (spec.phase, spec.radius, spec.bullet_radius, spec.number, spec.speed, spec.angle)]
        return cls(spec, x, y, vx, vy, direction, spec.repeat, mods)


def in_world(x: float, y: float, r: float, width: float, height: float) -> bool:
    return not (x + r < 0 or y + r < 0 or x - r > width or y - r > height)


@dataclass
class World:
    """The state `run_pattern` advances: boss health and its one-shot events, live spawners and bullets."""

    specs: dict[str, SpawnerSpec]
    width: float
    height: float
    max_bullets: int
    boss_x: float
    boss_y: float
    boss_health: int
    boss_max: int
    events: list[tuple[float, list[list[str]]]]
    player_x: float
    player_y: float
    event_index: int = 0
    spawners: list[Spawner] = field(default_factory=list)
    bullets: list[Bullet] = field(default_factory=list)

    def fire(self, s: Spawner, new_bullets: list[Bullet], new_spawners: list[Spawner]) -> None:
        """One shot of the spawner's current pattern entry (a volley of bullets or of child spawners)."""
        phase, radius, bullet_radius, number, speed, angle = s.mods
        name = s.spec.pattern[s.index]
        count = math.floor(number.value)
        for i in range(count):
            px, py = s.x, s.y
            if s.spec.aim_player:
                direction = math.atan2(self.player_y - s.y, self.player_x - s.x)  # radians, used as degrees
            else:
                direction = s.direction + phase.value + i * angle.value / count
                px += radius.value * math.cos(direction * math.pi / 180)
                py += radius.value * math.sin(direction * math.pi / 180)
            sp = speed.value
            if name == "bullet":
                new_bullets.append(
                    [
                        px,
                        py,
                        sp * math.cos(direction * math.pi / 180),
                        sp * math.sin(direction * math.pi / 180),
                        bullet_radius.value,
                    ]
                )
            else:
                new_spawners.append(Spawner.start(self.specs[name], px, py, sp, direction))

    def update(self) -> bool:
        """One frame; False when it found more bullets than the cap (the run stops after it)."""
        self.boss_health = max(self.boss_health - 1, 0)
        new_bullets: list[Bullet] = []
        new_spawners: list[Spawner] = []
        if self.event_index < len(self.events):
            threshold, actions = self.events[self.event_index]
            if 100 * self.boss_health / self.boss_max <= threshold:
                for action in actions:
                    self.boss_spawn(action, new_bullets, new_spawners)
                self.event_index += 1
        dead: set[int] = set()
        for s in self.spawners:
            if s.time > 0:
                s.time -= 1
            for m in s.mods:
                m.step()
            s.x = s.x + s.vx
            s.y = s.y + s.vy
            if not in_world(s.x, s.y, s.mods[1].value, self.width, self.height):
                dead.add(id(s))
            if s.time == 0:
                s.index = (s.index + 1) % len(s.spec.pattern)
                s.time = s.spec.pattern_time
                if s.spec.pattern[s.index] != "wait":
                    self.fire(s, new_bullets, new_spawners)
                    if s.repeat > 0:
                        s.repeat -= 1
                        if s.repeat == 0:
                            dead.add(id(s))
        extra = max(len(self.bullets) - self.max_bullets, 0) if self.max_bullets > 0 else 0
        kept: list[Bullet] = []
        for b in self.bullets[extra:]:
            b[0] = b[0] + b[2]
            b[1] = b[1] + b[3]
            if in_world(b[0], b[1], b[4], self.width, self.height):
                kept.append(b)
        self.bullets = kept + new_bullets
        self.spawners = [s for s in self.spawners if id(s) not in dead] + new_spawners
        return extra == 0

    def boss_spawn(self, action: list[str], new_bullets: list[Bullet], new_spawners: list[Spawner]) -> None:
        """A boss event "spawn, name[, radius, phase, speed, direction]" (phase in radians, as the engine)."""
        kind, name, radius, phase, speed, direction = action
        if kind not in ("spawn", "add"):
            return
        x = self.boss_x + int(radius) * math.cos(int(phase))
        y = self.boss_y + int(radius) * math.sin(int(phase))
        if name == "bullet":
            sp, d = int(speed), int(direction)
            new_bullets.append([x, y, sp * math.cos(d * math.pi / 180), sp * math.sin(d * math.pi / 180), 8])
        else:
            new_spawners.append(Spawner.start(self.specs[name], x, y, int(speed), int(direction)))


def parse_event(text: str) -> list[str]:
    """ "type, name, radius, phase, speed, direction" with the engine's defaults ("", "", 0, 0, 0, 0)."""
    parts = text.split(",")
    out = [p.strip().lower() for p in parts[:2]] + parts[2:6]
    return out + ["", "", "0", "0", "0", "0"][len(out) :]


def make_world(script: Mapping[str, Any], width: float, height: float, max_bullets: int) -> World:
    """The start state of a script: spawner specs by lower-case name, the boss and its health-triggered events."""
    specs = {name.lower(): SpawnerSpec.parse(spec) for name, spec in script.get("spawners", {}).items()}
    boss = script.get("boss", {})
    health = int(boss.get("health", 3000))
    events = [
        (100 * float(e.get("health", 1)), [parse_event(t) for t in e.get("events", [])]) for e in boss.get("script", [])
    ]
    px, py = keep_inside(width / 2, width), keep_inside(0.8 * height, height)
    return World(specs, width, height, max_bullets, width / 2, height / 4, health, health, events, px, py)


def keep_inside(v: float, size: float) -> float:
    """The player's clamp into the world on one axis (it never moves in `run_pattern`, so this is its spot)."""
    if v - PLAYER_RADIUS < 0:
        v = PLAYER_RADIUS
    if v + PLAYER_RADIUS > size:
        v = size - PLAYER_RADIUS
    return v


def run_pattern(
    script: Mapping[str, Any], width: float, height: float, max_bullets: int, max_spawners: int
) -> list[Frame]:
    """The bullets of every frame until the boss is beaten, the bullet cap is hit or spawners exceed theirs."""
    world = make_world(script, width, height, max_bullets)
    frames: list[Frame] = []
    while world.boss_health / world.boss_max > 0:
        frames.append([(b[0], b[1], b[4]) for b in world.bullets])
        if not world.update() or len(world.spawners) > max_spawners:
            break
    return frames


def bucket_counts(frames: Sequence[Frame], width: float, height: float, bx: int, by: int) -> np.ndarray:
    """Per frame, how many bullets touch each of the bx·by buckets (row-major), as `calculateBuckets` counts.

    A bullet covers the buckets from ceil(round(4·(x−r)/w)/4) to floor(round(4·(x+r)/w)/4), clamped to the
    grid, and likewise in y; numpy's rint rounds half to even like Python's round.
    """
    counts = np.zeros((len(frames), bx * by), dtype=np.int64)
    rows = [(f, x, y, r) for f, frame in enumerate(frames) for (x, y, r) in frame]
    if not rows:
        return counts
    f, x, y, r = (np.array(col) for col in zip(*rows, strict=True))  # every row is (f, x, y, r)
    f = f.astype(np.int64)
    bw, bh = width / bx, height / by
    sx = np.clip(np.ceil(np.rint(4 * (x - r) / bw) / 4), 0, bx - 1).astype(np.int64)
    sy = np.clip(np.ceil(np.rint(4 * (y - r) / bh) / 4), 0, by - 1).astype(np.int64)
    ex = np.clip(np.floor(np.rint(4 * (x + r) / bw) / 4), 0, bx - 1).astype(np.int64)
    ey = np.clip(np.floor(np.rint(4 * (y + r) / bh) / 4), 0, by - 1).astype(np.int64)
    flat = counts.reshape(-1)
    for dx in range(int((ex - sx).max(initial=0)) + 1):
        for dy in range(int((ey - sy).max(initial=0)) + 1):
            hit = (sx + dx <= ex) & (sy + dy <= ey)
            np.add.at(flat, f[hit] * (bx * by) + (sy[hit] + dy) * bx + sx[hit] + dx, 1)
    return counts


def entropy(values: Sequence[float] | np.ndarray) -> float:
    """Σ −p·log p / log n over the entries strictly inside (0, 1), summed in order like `calculateEntropy`."""
    total: float = 0  # an int 0, as the reference: with no entry inside (0, 1) the result is 0, never -0.0
    base = math.log(len(values))
    for p in values:
        if 0 < p < 1:
            total += p * math.log(p) / base
    return -total
