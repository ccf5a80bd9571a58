"""Stability test with pymunk, following physics.md section 0 (Unity Science Birds Evaluator recipe)."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from pcg_plugin.errors import ConversionError
from pcg_plugin.problems.science_birds.level.types import Block, Level

if TYPE_CHECKING:  # pymunk is imported where a simulation runs: importing this module stays cheap
    import pymunk
    from pymunk.vec2d import Vec2d

# Collider cores (w, h) of the Science Birds catalogue (physics.md 1.1, 1.3); sprites are core + 0.02.
BOX_CORES: dict[str, tuple[float, float]] = {
    "SquareTiny": (0.22, 0.21),
    "RectSmall": (0.70, 0.22),
    "RectTiny": (0.43, 0.22),
    "RectMedium": (1.68, 0.22),
    "RectBig": (2.06, 0.22),
    "RectFat": (0.85, 0.43),
    "SquareSmall": (0.43, 0.43),
    "SquareHole": (0.84, 0.84),
    "TNT": (0.66, 0.66),
}


def _ngon(n: int, radius: float) -> tuple[tuple[float, float], ...]:
    return tuple(
        (radius * math.cos(2 * math.pi * (k + 0.5) / n), radius * math.sin(2 * math.pi * (k + 0.5) / n))
        for k in range(n)
    )


# Polygon-collider blocks, approximated (physics.md 1.3 gives only their rough size).
POLY_CORES: dict[str, tuple[tuple[float, float], ...]] = {
    "Circle": _ngon(12, 0.38),
    "CircleSmall": _ngon(8, 0.21),
    "Triangle": ((-0.41, -0.41), (0.41, -0.41), (-0.41, 0.41)),
    "TriangleHole": ((-0.41, -0.41), (0.41, -0.41), (-0.41, 0.41)),
}
FRICTION = {"wood": 4.0, "stone": 4.0, "ice": 0.74, "": 0.4}  # Unity materials; "" = default (ground, TNT)
SKIN = 0.01
CHECK_EVERY = 10  # steps between checks for sleep, non-finite and out-of-world blocks


@dataclass(frozen=True)
class PhysicsSettings:
    """The simulation recipe; defaults are the spec's Unity-calibrated values. ``damage`` is off by default.

    ``settle_*``: the run stops once no block's centre has moved ``settle_distance`` (m) nor turned ``settle_angle``
    (degrees) between two checks for ``settle_time`` seconds (0 turns it off). Main's recipe ran all 500 steps for
    structures whose bodies never fall asleep (the angular-drag correction wakes any spinning body); stopping at
    rest halves the work of letter-sized levels and keeps every verdict and moving count of the calibration and
    glyph sets (tests/science_birds/level/test_physics_glyphs.py, docs/performance.md)."""

    steps: int = 500
    dt: float = 0.02
    gravity: float = -9.81 * 0.5
    linear_drag: float = 1.0
    angular_drag: float = 0.05
    iterations: int = 100
    slop: float = 0.005
    bias: float = 0.8**50
    skin: float = SKIN
    ground_friction: float = 0.4
    sleep_time: float = 0.5
    idle_speed: float = 0.01
    move_threshold: float = 0.1
    ground_top: float = -3.5
    ground_x: tuple[float, float] = (-21.87, 30.6)
    world_half_width: float = 26.25
    damage: bool = False
    life: float = 5.0
    stop_when_asleep: bool = True
    settle_time: float = 0.6
    settle_distance: float = 1e-4
    settle_angle: float = 1e-2

    def digest(self) -> str:
        """Stable short hash of every setting (for reports and baselines)."""
        text = json.dumps(asdict(self), sort_keys=True, default=list)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


DEFAULT_SETTINGS = PhysicsSettings()  # the spec's recipe; frozen, so one instance is every function's default


@dataclass(frozen=True)
class Simulation:
    """Outcome of one stability test. ``stability`` is 0.0 for a level with no blocks (official: no score)."""

    total_blocks: int
    moving_blocks: int
    stability: float
    final_level: Level
    steps_run: int
    destroyed: int = 0


def core_vertices(block: Block) -> tuple[tuple[float, float], ...]:
    """The block's collider core in its own frame (unrotated)."""
    if block.type in BOX_CORES:
        w, h = BOX_CORES[block.type]
        return ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))
    if block.type in POLY_CORES:
        return POLY_CORES[block.type]
    known = ", ".join(sorted([*BOX_CORES, *POLY_CORES]))
    raise ConversionError(f"unknown Science Birds block type {block.type!r} (known: {known})")


def _area(vertices: tuple[tuple[float, float], ...]) -> float:
    edges = zip(vertices, vertices[1:] + vertices[:1], strict=True)
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in edges)) / 2


def _velocity_func(gravity: float, dt_lin: float, dt_ang: float) -> Callable[[pymunk.Body, Vec2d, float, float], None]:
    """Box2D order: v += g*dt, then v /= 1 + dt*drag (pymunk's damping uses another form)."""

    def update(body: pymunk.Body, _gravity: Vec2d, _damping: float, dt: float) -> None:
        vx, vy = body.velocity
        k = 1.0 / (1.0 + dt * dt_lin)
        body.velocity = (vx * k, (vy + gravity * dt) * k)
        body.angular_velocity = body.angular_velocity / (1.0 + dt * dt_ang)

    return update


Pose = tuple[float, float, float]
Frame = tuple[float, tuple[Pose | None, ...]]  # (seconds, each block's pose; None once it left the world)


def simulate(
    level: Level, settings: PhysicsSettings = DEFAULT_SETTINGS, frames: list[Frame] | None = None
) -> Simulation:
    """Run the stability test: a block moves if its centre ends >= threshold from its start (or non-finite).

    ``frames``: a list that receives the poses at the start and at every check (every ``CHECK_EVERY`` steps,
    0.2 s) of this very run, to replay it (the stability animation); reading them changes nothing."""
    import pymunk
    from pymunk._chipmunk import lib

    s = settings
    space = pymunk.Space()
    space.iterations = s.iterations
    space.collision_slop = s.slop
    space.collision_bias = s.bias
    space.sleep_time_threshold = s.sleep_time
    space.idle_speed_threshold = s.idle_speed
    # Box2D drag v' = (v + g*dt)/(1 + dt*drag) done in C: pymunk's v' = v*damping^dt + g'*dt with
    # damping^dt = 1/(1 + dt*drag) and g' = g/(1 + dt*drag); angular drag is corrected before each step.
    lin = 1.0 / (1.0 + s.dt * s.linear_drag)
    space.damping = lin ** (1.0 / s.dt)
    space.gravity = (0.0, s.gravity * lin)
    spin = (1.0 + s.dt * s.linear_drag) / (1.0 + s.dt * s.angular_drag)
    ground_mu = math.sqrt(s.ground_friction)
    x0, x1 = s.ground_x
    ground = pymunk.Poly(
        space.static_body,
        [(x0, s.ground_top - 4.4069), (x1, s.ground_top - 4.4069), (x1, s.ground_top), (x0, s.ground_top)],
        radius=s.skin,
    )
    ground.friction, ground.elasticity = ground_mu, 0.0
    space.add(ground)

    bodies: list[tuple[pymunk.Body, pymunk.Poly]] = []
    for block in level.blocks:
        verts = core_vertices(block)
        tnt = block.type == "TNT"
        mass = 1.0 if tnt else _area(verts)
        body = pymunk.Body(mass, pymunk.moment_for_poly(mass, verts))
        body.position = (block.x, block.y)
        body.angle = math.radians(block.rotation)
        if tnt:  # TNT: gravity scale 1 and no drag (physics.md 1.3); rare, so a Python velocity function
            body.velocity_func = _velocity_func(s.gravity * 2.0, 0.0, 0.0)
        shape = pymunk.Poly(body, verts, radius=s.skin)
        shape.friction = math.sqrt(FRICTION.get(block.material, FRICTION["wood"]))
        shape.elasticity = 0.0
        space.add(body, shape)
        bodies.append((body, shape))

    alive = [True] * len(bodies)
    dead_at: dict[int, int] = {}
    if s.damage:
        _install_damage(space, bodies, alive, dead_at, s)

    last = [(b.x, b.y, b.rotation) for b in level.blocks]
    if frames is not None:
        frames.append((0.0, tuple(last)))
    # The angular-drag correction through chipmunk's C calls (what Body.angular_velocity does, without the
    # Python property layers): the same reads and writes in the same order, so the same trajectories.
    get_w, set_w = lib.cpBodyGetAngularVelocity, lib.cpBodySetAngularVelocity
    drag_ptrs = [body._body for (body, _shape), block in zip(bodies, level.blocks, strict=True) if block.type != "TNT"]
    step = space.step if s.damage else _c_step(space)
    quiet_needed = round(s.settle_time / (s.dt * CHECK_EVERY)) if s.settle_time > 0 else 0
    quiet = 0
    steps = 0
    for steps in range(1, s.steps + 1):
        for ptr in drag_ptrs:
            w = get_w(ptr)
            if w:  # sleeping or removed bodies keep 0 and are skipped
                set_w(ptr, w * spin)
        step(s.dt)
        # Bookkeeping every CHECK_EVERY steps is exact: only final poses count, a removed block counts as
        # moving wherever it was, and sleeping bodies stay asleep (damage needs per-step removal timing).
        if steps % CHECK_EVERY and steps != s.steps and not dead_at:
            continue
        before = list(last)
        asleep = _bookkeep(space, bodies, alive, dead_at, last, steps, s)
        if frames is not None and (steps % CHECK_EVERY == 0 or steps == s.steps):
            frames.append((steps * s.dt, tuple(p if a else None for p, a in zip(last, alive, strict=True))))
        if asleep and s.stop_when_asleep:
            break  # every live body sleeps: nothing can move again, the final poses are reached
        if quiet_needed and steps % CHECK_EVERY == 0 and not dead_at:
            quiet = quiet + 1 if _still(before, last, alive, s) else 0
            if quiet >= quiet_needed:
                break
    del step, drag_ptrs
    _empty(space)
    moving = 0
    final = []
    for i, block in enumerate(level.blocks):
        x, y, rot = last[i]
        d = math.hypot(x - block.x, y - block.y)
        if not math.isfinite(d) or d >= s.move_threshold or not alive[i]:
            moving += 1
        if alive[i] and math.isfinite(d):
            final.append(Block(block.type, block.material, x, y, rot))
    total = len(level.blocks)
    stability = (total - moving) / total if total else 0.0
    return Simulation(
        total, moving, stability, replace(level, blocks=tuple(final)), steps, destroyed=alive.count(False)
    )


def _empty(space: pymunk.Space) -> None:
    """Take every shape and body out of the finished space. pymunk frees a space by listing its bodies into a
    Python list; a garbage collection during that listing can free one of those bodies (they sit in reference
    cycles), whose finaliser then removes it from the space being listed: chipmunk aborts the process (seen as
    an xdist worker crash once in ~500 items). An empty space has nothing to list."""
    space.remove(*space.shapes)
    space.remove(*space.bodies)


def _c_step(space: pymunk.Space) -> Callable[[float], None]:
    """``space.step`` without pymunk's Python wrapper, which only matters with callbacks (damage) or pending
    adds/removes (none here: blocks are removed between steps)."""
    from pymunk._chipmunk import lib

    for body in space.bodies:  # the wrapper's first-step check
        assert body.mass > 0 and body.moment > 0, f"bad body {body}"
    ptr, c_step = space._space, lib.cpSpaceStep

    def step(dt: float) -> None:
        c_step(ptr, dt)

    return step


def _still(
    before: list[tuple[float, float, float]],
    after: list[tuple[float, float, float]],
    alive: list[bool],
    s: PhysicsSettings,
) -> bool:
    """True when no live block moved ``settle_distance`` nor turned ``settle_angle`` between two checks."""
    d2 = s.settle_distance * s.settle_distance
    for (x0, y0, r0), (x1, y1, r1), live in zip(before, after, alive, strict=True):
        if live and not ((x1 - x0) ** 2 + (y1 - y0) ** 2 < d2 and abs(r1 - r0) < s.settle_angle):
            return False
    return True


def _bookkeep(
    space: pymunk.Space,
    bodies: list[tuple[pymunk.Body, pymunk.Poly]],
    alive: list[bool],
    dead_at: dict[int, int],
    last: list[Pose],
    steps: int,
    s: PhysicsSettings,
) -> bool:
    """Record poses, remove non-finite, out-of-world and destroyed blocks; True when every live body sleeps."""
    sleeping = True
    for i, (body, shape) in enumerate(bodies):
        if not alive[i] and i not in dead_at:
            continue
        x, y = body.position
        if not (math.isfinite(x) and math.isfinite(y)):
            last[i] = (math.nan, math.nan, 0.0)
            dead_at.pop(i, None)
            _remove(space, body, shape, alive, i)
            continue
        last[i] = (x, y, math.degrees(body.angle))
        if i in dead_at:
            if steps - dead_at[i] >= round(0.5 / s.dt):  # destroyed 0.5 s after death
                dead_at.pop(i)
                _remove(space, body, shape, alive, i)
            sleeping = False
            continue
        if abs(x) - _half_extent(shape) > s.world_half_width:  # out of world: Unity kills the block
            _remove(space, body, shape, alive, i)
            continue
        if not body.is_sleeping:
            sleeping = False
    return sleeping


def _half_extent(shape: pymunk.Shape) -> float:
    bb = shape.cache_bb()
    return (bb.right - bb.left) / 2


def _remove(space: pymunk.Space, body: pymunk.Body, shape: pymunk.Shape, alive: list[bool], i: int) -> None:
    if body.space is not None:  # not yet removed (a block dies once, then is removed once)
        space.remove(body, shape)
    alive[i] = False


def _install_damage(
    space: pymunk.Space,
    bodies: list[tuple[pymunk.Body, pymunk.Poly]],
    alive: list[bool],
    dead_at: dict[int, int],
    s: PhysicsSettings,
) -> None:
    """Unity ABGameObject damage (physics.md 4): |relative velocity| at collision start, life 5, death clears
    the velocity, disables the collider and removes the block 0.5 s later (it counts as moving, is not drawn)."""
    index = {id(body): i for i, (body, _shape) in enumerate(bodies)}
    life = [s.life] * len(bodies)
    step_box = [0]

    def begin(arbiter: pymunk.Arbiter, _space: pymunk.Space, _data: Any) -> None:
        a, b = arbiter.shapes
        body_a, body_b = a.body, b.body
        assert body_a is not None and body_b is not None, "a shape in the space is attached to a body"
        rel = body_a.velocity - body_b.velocity
        hit = math.hypot(rel.x, rel.y)
        for shape, body in ((a, body_a), (b, body_b)):
            i = index.get(id(body))
            if i is None or not alive[i]:
                continue
            life[i] -= hit
            if life[i] <= 0:
                alive[i] = False
                dead_at[i] = step_box[0]
                body.velocity = (0.0, 0.0)
                shape.filter = shape.filter._replace(mask=0)  # collider disabled: falls through everything

    space.on_collision(begin=begin)

    original_step = space.step

    def step(dt: float) -> None:
        step_box[0] += 1
        original_step(dt)

    space.step = step  # type: ignore[method-assign]  # deliberate: this space's steps are counted for damage
