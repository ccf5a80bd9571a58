"""The Mario forward model the benchmark plays its levels on (pcg_benchmark 00b96f5's port of the Mario AI
Framework), reduced to what its smb and smbtile levels can reach, and its two agents (heuristic and A*).

Reachable here: small Mario, goombas, green koopas and spinies (none winged), ground and solid blocks, pipes,
bricks (small Mario only bumps them), coin question blocks and coins. Not reachable, so not ported: power-ups
(no `?`, `@`, `U`, `L` tiles), so Mario never grows or shoots; shells (the benchmark's stomp compares the
built-in `type` with the koopa types, so a stomped koopa just dies); flowers, bullet bills and wings.

Kept exactly, because the benchmark's numbers can depend on them:
- every floating-point operation in the benchmark's order (positions are doubles; tile indices truncate);
- the level string's trailing newline makes the level 17 tiles high (272 px), so Mario dies 32 px below that;
- sprites spawned while the camera scans are updated once at once and join the sprite list after the tick;
- a timed-out tick returns before the frame's events are cleared, so the previous frame's events are counted
  a second time;
- the heuristic agent returns one action list that it edits every tick, so every recorded action is the last one;
- an enemy a dead Mario touches still hurts or is stomped (events and kills included).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

LEFT, RIGHT, DOWN, SPEED, JUMP = range(5)
SCREEN = 256  # the camera's width and height in pixels
GOOMBA, GREEN_KOOPA, SPIKY = 2, 6, 8  # the benchmark's sprite type values
ENEMY_CHARS = {"g": GOOMBA, "E": GOOMBA, "k": GREEN_KOOPA, "y": SPIKY}
# Tile indices the level string maps to; every one that can appear in these levels blocks on all sides.
TILE_OF = {"X": 1, "#": 2, "S": 6, "Q": 11, "o": 15, "t": 18}
SOLID = frozenset({1, 2, 3, 4, 5, 6, 7, 8, 11, 14, 18, 19, 20, 21, 50, 51, 52, 53})
BUMPABLE, BREAKABLE, COIN, USED = frozenset({7, 11}), 6, 15, 14
INERTIA = 0.89

# event types (the benchmark's EventType values)
BUMP, STOMP_KILL, FIRE_KILL, SHELL_KILL, FALL_KILL, JUMP_EV, LAND, COLLECT, HURT, KICK, LOSE, WIN = range(1, 13)
KILLS = frozenset({STOMP_KILL, FIRE_KILL, SHELL_KILL, FALL_KILL})
RUNNING, WON, LOST, TIME_OUT = range(4)


def in_steps(move: Callable[[float, float], bool], xa: float, ya: float) -> tuple[float, float] | None:
    """A move of more than 8 px goes first as 8 px steps through ``move``, x before y, in the reference's order:
    None as soon as one step is blocked, else what is left to move (at most 8 px each way)."""
    while xa > 8:
        if not move(8, 0):
            return None
        xa -= 8
    while xa < -8:
        if not move(-8, 0):
            return None
        xa += 8
    while ya > 8:
        if not move(0, 8):
            return None
        ya -= 8
    while ya < -8:
        if not move(0, -8):
            return None
        ya += 8
    return xa, ya


def blocked(
    hit: Callable[[float, float, float], bool],
    x: float,
    y: float,
    w: float,
    height: Callable[[], float],
    xa: float,
    ya: float,
) -> bool:
    """Whether a move of (xa, ya) from (x, y) runs into a blocking tile: the reference's probe points in its
    order. ``hit(px, py, ya)`` may act (Mario collects coins and bumps blocks), so which probes run matters: the
    reference stops at the first hit going down or up (``or``) and tries every side probe (``|``); ``height`` is
    read where the reference reads it."""
    collide = False
    if ya > 0:
        collide = (
            hit(x + xa - w, y + ya, 0)
            or hit(x + xa + w, y + ya, 0)
            or hit(x + xa - w, y + ya + 1, ya)
            or hit(x + xa + w, y + ya + 1, ya)
        )
    if ya < 0:
        h = height()
        collide = hit(x + xa, y + ya - h, ya) or hit(x + xa - w, y + ya - h, ya) or hit(x + xa + w, y + ya - h, ya)
    if xa != 0:
        h = height()
        edge = x + xa + (w if xa > 0 else -w)
        collide = hit(edge, y + ya - h, ya) | collide
        collide = hit(edge, y + ya - h / 2, ya) | collide
        collide = hit(edge, y + ya, ya) | collide
    return collide


class Level:
    """Tiles [x][y], enemy templates and their last spawn ticks, Mario's start and the exit."""

    def __init__(self, text: str) -> None:
        lines = text.split("\n")
        self.tile_w, self.tile_h = len(lines[0]), len(lines)
        self.width, self.height = self.tile_w * 16, self.tile_h * 16
        self.tiles = [[0] * self.tile_h for _ in range(self.tile_w)]
        self.templates: dict[tuple[int, int], int] = {}
        self.owned: set[int] = set(range(self.tile_w))  # columns this level may write in place (copy on write)
        self.coins_total = 0
        self.mario_tx = self.mario_ty = self.exit_x = self.exit_y = 0
        for y, line in enumerate(lines):
            for x, c in enumerate(line):
                if c == "M":
                    self.mario_tx, self.mario_ty = x, y
                elif c == "F":
                    self.exit_x, self.exit_y = x, y
                elif c in ENEMY_CHARS:
                    self.templates[(x, y)] = ENEMY_CHARS[c]
                elif c in TILE_OF:
                    self.tiles[x][y] = TILE_OF[c]
        self.last_spawn = dict.fromkeys(self.templates, -40)  # the tick each template was last in view
        self.columns: dict[int, list[tuple[int, int]]] = {}  # x -> its enemy templates (y, kind), y ascending
        for (x, y), kind in sorted(self.templates.items()):
            self.columns.setdefault(x, []).append((y, kind))
        for y in range(self.exit_y, max(1, self.exit_y - 11), -1):  # the flag pole: tiles that block nothing
            self.tiles[self.exit_x][y] = 40
        self.tiles[self.exit_x][max(1, self.exit_y - 11)] = 39

    def clone(self) -> Level:
        """Spawn ticks copied; tile columns shared until either level writes one (copy on write); the enemy
        templates are shared (nothing writes them)."""
        copy = object.__new__(Level)
        copy.__dict__.update(self.__dict__)
        copy.tiles = list(self.tiles)
        copy.last_spawn = dict(self.last_spawn)
        copy.owned = set()
        self.owned = set()
        return copy

    def block(self, x: int, y: int) -> int:
        x = min(max(x, 0), self.tile_w - 1)
        if y < 0 or y > self.tile_h - 1:
            return 0
        return self.tiles[x][y]

    def blocking(self, x: int, y: int) -> bool:
        return self.block(x, y) in SOLID

    def set_block(self, x: int, y: int, value: int) -> None:
        if 0 <= x < self.tile_w and 0 <= y < self.tile_h:
            if x not in self.owned:
                self.tiles[x] = self.tiles[x][:]
                self.owned.add(x)
            self.tiles[x][y] = value


@dataclass(eq=False)
class Event:
    kind: int
    param: int
    x: float
    y: float
    tick: int


@dataclass(eq=False)
class Enemy:
    x: float
    y: float
    facing: int
    kind: int
    code: tuple[int, int] = (-1, -1)
    xa: float = 0.0
    ya: float = 0.0
    on_ground: bool = False
    alive: bool = True
    width: int = 4
    world: World | None = None

    @property
    def height(self) -> int:
        return 24 if self.kind == GREEN_KOOPA else 12

    def clone(self) -> Enemy:
        return Enemy(self.x, self.y, self.facing, self.kind, self.code, self.xa, self.ya, self.on_ground)

    def update(self) -> None:
        if not self.alive:
            return
        if self.xa > 2:
            self.facing = 1
        if self.xa < -2:
            self.facing = -1
        self.xa = self.facing * 1.75
        if not self.move(self.xa, 0):
            self.facing = -self.facing
        self.on_ground = False
        self.move(0, self.ya)
        self.ya *= 0.85
        self.xa *= INERTIA
        if not self.on_ground:
            self.ya += 2

    def move(self, xa: float, ya: float) -> bool:
        rest = in_steps(self.move, xa, ya)
        if rest is None:
            return False
        xa, ya = rest
        w, h = self.width, self.height
        if blocked(lambda px, py, _ya: self.hits(px, py), self.x, self.y, w, lambda: h, xa, ya):
            if xa < 0:
                self.x = int((self.x - w) / 16) * 16 + w
                self.xa = 0
            if xa > 0:
                self.x = int((self.x + w) / 16 + 1) * 16 - w - 1
                self.xa = 0
            if ya < 0:
                self.y = int((self.y - h) / 16) * 16 + h
                self.ya = 0
            if ya > 0:
                self.y = int(self.y / 16 + 1) * 16 - 1
                self.on_ground = True
            return False
        self.x += xa
        self.y += ya
        return True

    def hits(self, px: float, py: float) -> bool:
        tx, ty = int(px / 16), int(py / 16)
        if tx == int(self.x / 16) and ty == int(self.y / 16):
            return False
        assert self.world is not None
        return self.world.level.blocking(tx, ty)

    def collide_check(self) -> None:
        if not self.alive:
            return
        world = self.world
        assert world is not None
        mario = world.mario
        dx, dy = mario.x - self.x, mario.y - self.y
        if -self.width * 2 - 4 < dx < self.width * 2 + 4 and -self.height < dy < mario.height:
            if self.kind != SPIKY and mario.ya > 0 and dy <= 0 and (not mario.on_ground or not mario.was_on_ground):
                mario.stomp(self)
                world.add_event(STOMP_KILL, self.kind)
                world.remove(self)
            else:
                world.add_event(HURT, self.kind)
                mario.get_hurt()

    def bump_check(self, tx: int, ty: int) -> None:
        if not self.alive:
            return
        if self.x + self.width > tx * 16 and self.x - self.width < tx * 16 + 16 and ty == int((self.y - 1) / 16):
            assert self.world is not None
            self.xa = -self.world.mario.facing * 2
            self.ya = -5
            self.world.remove(self)


@dataclass(eq=False)
class Mario:
    x: float
    y: float
    xa: float = 0.0
    ya: float = 0.0
    facing: int = 1
    alive: bool = True
    width: int = 4
    height: int = 24
    on_ground: bool = False
    was_on_ground: bool = False
    may_jump: bool = False
    jump_time: int = 0
    x_jump_speed: float = 0.0
    y_jump_speed: float = 0.0
    invulnerable: int = 0
    x_jump_start: float = -100
    actions: Sequence[bool | int] = (0, 0, 0, 0, 0)
    world: World | None = None
    code: tuple[int, int] = (-1, -1)

    def clone(self) -> Mario:
        """The benchmark's copy: rebuilt from its start corner, so x and y go through (x − 8) + 8 and
        (y − 15) + 15, which can move them by a rounding step; a copy is always alive."""
        return Mario(
            (self.x - 8) + 8,
            (self.y - 15) + 15,
            self.xa,
            self.ya,
            self.facing,
            True,
            self.width,
            self.height,
            self.on_ground,
            self.was_on_ground,
            self.may_jump,
            self.jump_time,
            self.x_jump_speed,
            self.y_jump_speed,
            self.invulnerable,
            self.x_jump_start,
            list(self.actions),
        )

    def update(self) -> None:
        if not self.alive:
            return
        world = self.world
        assert world is not None
        if self.invulnerable > 0:
            self.invulnerable -= 1
        self.was_on_ground = self.on_ground
        speed = 1.2 if self.actions[SPEED] else 0.6
        self.height = 12  # small Mario, never ducking
        if self.xa > 2:
            self.facing = 1
        if self.xa < -2:
            self.facing = -1
        if self.actions[JUMP] or (self.jump_time < 0 and not self.on_ground):
            if self.jump_time < 0:
                self.xa = self.x_jump_speed
                self.ya = -self.jump_time * self.y_jump_speed
                self.jump_time += 1
            elif self.on_ground and self.may_jump:
                self.x_jump_speed = 0
                self.y_jump_speed = -1.9
                self.jump_time = 7
                self.ya = self.jump_time * self.y_jump_speed
                self.on_ground = False
                top = self.y - 4 - self.height
                if not (
                    self.hits(self.x, top, -4)
                    or self.hits(self.x - self.width, top, -4)
                    or self.hits(self.x + self.width, top, -4)
                ):
                    self.x_jump_start = self.x
                    world.add_event(JUMP_EV, 0)
            elif self.jump_time > 0:
                self.xa += self.x_jump_speed
                self.ya = self.jump_time * self.y_jump_speed
                self.jump_time -= 1
        else:
            self.jump_time = 0
        if self.actions[LEFT]:
            self.xa -= speed
            if self.jump_time >= 0:
                self.facing = -1
        if self.actions[RIGHT]:
            self.xa += speed
            if self.jump_time >= 0:
                self.facing = 1
        self.may_jump = self.on_ground and not self.actions[JUMP]
        if abs(self.xa) < 0.5:
            self.xa = 0
        self.on_ground = False
        self.move(self.xa, 0)
        self.move(0, self.ya)
        if not self.was_on_ground and self.on_ground and self.x_jump_start >= 0:
            world.add_event(LAND, 0)
            self.x_jump_start = -100
        if self.x < 0:
            self.x = 0
            self.xa = 0
        if self.x > world.level.exit_x * 16:
            self.x = world.level.exit_x * 16
            self.xa = 0
            world.win()
        self.ya *= 0.85
        self.xa *= INERTIA
        if not self.on_ground:
            self.ya += 3

    def move(self, xa: float, ya: float) -> bool:
        rest = in_steps(self.move, xa, ya)
        if rest is None:
            return False
        xa, ya = rest
        w = self.width
        if blocked(self.hits, self.x, self.y, w, lambda: self.height, xa, ya):
            if xa < 0:
                self.x = int((self.x - w) / 16) * 16 + w
                self.xa = 0
            if xa > 0:
                self.x = int((self.x + w) / 16 + 1) * 16 - w - 1
                self.xa = 0
            if ya < 0:
                self.y = int((self.y - self.height) / 16) * 16 + self.height
                self.jump_time = 0
                self.ya = 0
            if ya > 0:
                self.y = int((self.y - 1) / 16 + 1) * 16 - 1
                self.on_ground = True
            return False
        self.x += xa
        self.y += ya
        return True

    def hits(self, px: float, py: float, ya: float) -> bool:
        """Whether the tile at (px, py) blocks; touching a coin collects it, and hitting a block from below
        bumps it (the benchmark's side effects of the test)."""
        tx, ty = int(px / 16), int(py / 16)
        if tx == int(self.x / 16) and ty == int(self.y / 16):
            return False
        world = self.world
        assert world is not None
        blocking = world.level.blocking(tx, ty)
        if world.level.block(tx, ty) == COIN:
            world.add_event(COLLECT, COIN)
            self.collect_coin()
            world.level.set_block(tx, ty, 0)
        if blocking and ya < 0:
            world.bump(tx, ty)
        return blocking

    def stomp(self, enemy: Enemy) -> None:
        if not self.alive:
            return
        self.move(0, enemy.y - enemy.height / 2 - self.y)
        self.x_jump_speed = 0
        self.y_jump_speed = -1.9
        self.jump_time = 8
        self.ya = self.jump_time * self.y_jump_speed
        self.on_ground = False
        self.invulnerable = 1

    def get_hurt(self) -> None:
        if self.invulnerable > 0 or not self.alive:
            return
        if self.world is not None:
            self.world.lose()

    def collect_coin(self) -> None:
        if not self.alive:
            return
        assert self.world is not None
        self.world.coins += 1
        if self.world.coins % 100 == 0:
            self.world.lives += 1


Sprite = Mario | Enemy


@dataclass(eq=False)
class World:
    level: Level
    timer: int
    mario: Mario = field(init=False)
    status: int = RUNNING
    tick: int = 0
    coins: int = 0
    lives: int = 0
    camera_x: float = 0.0
    camera_y: float = 0.0
    events: list[Event] = field(default_factory=list)
    sprites: list[Sprite] = field(default_factory=list)
    added: list[Sprite] = field(default_factory=list)
    removed: list[Sprite] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.mario = Mario(self.level.mario_tx * 16 + 8, self.level.mario_ty * 16 + 15, world=self)
        self.sprites.append(self.mario)

    def clone(self) -> World:
        """The forward model the agent plans on: level and sprites copied, no events, nothing pending."""
        copy = object.__new__(World)
        copy.level, copy.timer, copy.status, copy.tick = self.level.clone(), self.timer, self.status, self.tick
        copy.coins, copy.lives, copy.camera_x, copy.camera_y = self.coins, self.lives, self.camera_x, self.camera_y
        copy.events, copy.sprites, copy.added, copy.removed = [], [], [], []
        mario = None
        for sprite in self.sprites:
            twin = sprite.clone()
            twin.world = copy
            if isinstance(twin, Mario):
                mario = twin
            copy.sprites.append(twin)
        copy.mario = mario if mario is not None else self.mario.clone()
        return copy

    def add_event(self, kind: int, param: int) -> None:
        self.events.append(Event(kind, param, self.mario.x, self.mario.y, self.tick))

    def add(self, sprite: Enemy) -> None:
        self.added.append(sprite)
        sprite.alive = True
        sprite.world = self
        sprite.update()

    def remove(self, sprite: Sprite) -> None:
        self.removed.append(sprite)
        sprite.alive = False
        sprite.world = None

    def win(self) -> None:
        self.add_event(WIN, 0)
        self.status = WON

    def lose(self) -> None:
        self.add_event(LOSE, 0)
        self.status = LOST
        self.mario.alive = False

    def bump(self, tx: int, ty: int) -> None:
        block = self.level.block(tx, ty)
        if block in BUMPABLE:
            self.bump_into(tx, ty - 1)
            self.add_event(BUMP, 24)  # the forward model's question-block observation code
            self.level.set_block(tx, ty, USED)
            self.mario.collect_coin()
        if block == BREAKABLE:
            self.bump_into(tx, ty - 1)  # small Mario cannot break bricks

    def bump_into(self, tx: int, ty: int) -> None:
        if self.level.block(tx, ty) == COIN:
            self.add_event(COLLECT, COIN)
            self.mario.collect_coin()
            self.level.set_block(tx, ty, 0)
        for sprite in self.sprites:
            if isinstance(sprite, Enemy):
                sprite.bump_check(tx, ty)

    def update(self, actions: Sequence[bool | int]) -> None:
        if self.status != RUNNING:
            return
        if self.timer > 0:
            self.timer -= 30
            if self.timer <= 0:
                self.timer = 0
                self.status = TIME_OUT
                self.mario.alive = False
                return
        self.tick += 1
        level, mario = self.level, self.mario
        self.camera_x = mario.x - SCREEN / 2
        if self.camera_x + SCREEN > level.width:
            self.camera_x = level.width - SCREEN
        if self.camera_x < 0:
            self.camera_x = 0
        self.camera_y = mario.y - SCREEN / 2
        if self.camera_y + SCREEN > level.height:
            self.camera_y = level.height - SCREEN
        if self.camera_y < 0:
            self.camera_y = 0
        self.events.clear()
        for sprite in self.sprites:
            if sprite.x < self.camera_x - 64 or sprite.x > self.camera_x + SCREEN + 64 or sprite.y > level.height + 32:
                if sprite is mario:
                    self.lose()
                self.remove(sprite)
                if isinstance(sprite, Enemy) and sprite.y > SCREEN + 32:
                    self.add_event(FALL_KILL, sprite.kind)
        y_lo, y_hi = int(self.camera_y / 16) - 1, int((self.camera_y + SCREEN) / 16) + 2
        for x in range(int(self.camera_x / 16) - 1, int((self.camera_x + SCREEN) / 16) + 2):
            for y, kind in level.columns.get(x, ()):  # the scan's order: x, then y upwards
                if not y_lo <= y < y_hi:
                    continue
                direction = 0
                if x * 16 + 8 > mario.x + 16:
                    direction = -1
                if x * 16 + 8 < mario.x - 16:
                    direction = 1
                if not any(s.code == (x, y) for s in self.sprites) and level.last_spawn[(x, y)] != self.tick - 1:
                    self.add(Enemy(x * 16 + 8, y * 16 + 15, direction or 1, kind, code=(x, y)))
                level.last_spawn[(x, y)] = self.tick
        mario.actions = actions
        for sprite in self.sprites:
            if sprite.alive:
                sprite.update()
        for sprite in self.sprites:
            if sprite.alive and isinstance(sprite, Enemy):
                sprite.collide_check()
        self.sprites.extend(self.added)
        for sprite in self.removed:
            self.sprites.remove(sprite)
        self.added.clear()
        self.removed.clear()


@dataclass
class Result:
    """What the benchmark reads from a play-through."""

    status: int
    complete: float
    kills: int
    fall_kills: int
    coins: int
    jumps: int
    actions: list[int]
    locations: list[list[float]]


def action_code(actions: Sequence[bool | int]) -> int:
    return sum(int(a) * 2**i for i, a in enumerate(actions))


class HeuristicAgent:
    """The benchmark's heuristic agent: always right and run; jump and run whenever it may jump or is in the
    air. It returns one list that it edits every tick, so every recorded action is the last one."""

    def __init__(self) -> None:
        self.actions = [False, True, False, True, False]

    def act(self, world: World) -> list[bool]:
        self.actions[SPEED] = self.actions[JUMP] = world.mario.may_jump or not world.mario.on_ground
        return self.actions


def play(level_text: str, seconds: int, agent: HeuristicAgent | AStarAgent) -> Result:
    """One play-through of `seconds` of game time (30 ms a tick), as the benchmark's game loop runs it."""
    world = World(Level(level_text), 1000 * seconds)
    world.update([0, 0, 0, 0, 0])
    events: list[Event] = []
    played: list[Sequence[bool | int]] = []
    locations: list[list[float]] = []
    while world.status == RUNNING:
        actions = agent.act(world)
        world.update(actions)
        events += world.events
        played.append(actions)
        locations.append([world.mario.x, world.mario.y])
    return Result(
        world.status,
        world.mario.x / (world.level.exit_x * 16),
        sum(e.kind in KILLS for e in events),
        sum(e.kind == FALL_KILL for e in events),
        world.coins,
        sum(e.kind == JUMP_EV for e in events),
        [action_code(a) for a in played],
        locations,
    )


def play_heuristic(level_text: str, seconds: int) -> Result:
    return play(level_text, seconds, HeuristicAgent())


def play_astar(level_text: str, seconds: int, iterations: float) -> Result:
    return play(level_text, seconds, AStarAgent(iterations))


def _action(left: bool, right: bool, down: bool, jump: bool, speed: bool) -> list[bool]:
    return [left, right, down, speed, jump]


class Node:
    """A search node: the world after its action held for `REPEAT` ticks from its parent's world."""

    def __init__(self, action: list[bool] | None, world: World, parent: Node | None) -> None:
        self.world = world.clone()
        self.parent = parent
        if action is None:
            self.action = [False] * 5
            self.depth, self.root = 0, self
        else:
            self.action = action
            for _ in range(REPEAT):
                self.world.update(action)
            assert parent is not None
            self.depth, self.root = parent.depth + 1, parent.root

    def score(self) -> float:
        """h − 0.9·cost: distance gained plus ten times the speed, less a million per damage."""
        assert self.parent is not None
        mario = self.world.mario
        distance = mario.x + 10 * mario.xa - self.root.world.mario.x
        h = distance - self.damage() * 1000000
        return h - 0.9 * (self.depth * REPEAT)

    def damage(self) -> int:
        if self.world.status == LOST:
            return 5 if self.world.mario.y > self.world.level.height - 20 else 2
        return 0

    def children(self) -> list[Node]:
        if self.world.status != RUNNING:
            return []
        mario = self.world.mario
        higher = mario.may_jump or mario.jump_time > 0
        options = []
        if higher:
            options += [_action(False, False, False, True, False), _action(False, False, False, True, True)]
        options.append(_action(False, True, False, False, True))
        if higher:
            options.append(_action(False, True, False, True, True))
        options.append(_action(False, True, False, False, False))
        if higher:
            options.append(_action(False, True, False, True, False))
        options.append(_action(True, False, False, False, False))
        if higher:
            options.append(_action(True, False, False, True, False))
        options.append(_action(True, False, False, False, True))
        if higher:
            options.append(_action(True, False, False, True, True))
        return [Node(a, self.world, self) for a in options]

    def plan(self) -> list[list[bool]]:
        """The actions from the root to here, each held `REPEAT` ticks."""
        out: list[list[bool]] = []
        node = self
        while node is not node.root:
            out += [node.action] * REPEAT
            assert node.parent is not None
            node = node.parent
        out.reverse()
        return out

    def key(self) -> tuple[int, int, int]:
        return int(self.world.mario.x), int(self.world.mario.y), self.depth * REPEAT


def _visited(seen: list[tuple[int, int, int]], key: tuple[int, int, int]) -> bool:
    return any(abs(x - key[0]) < 2 and abs(y - key[1]) < 2 and abs(t - key[2]) < 5 and key[2] >= t for x, y, t in seen)


def search(world: World, iterations: float) -> list[list[bool]]:
    """The benchmark's A*: every iteration sorts the whole queue by score (highest first, ties in queue order),
    takes the first unvisited node, returns at a win, and keeps the best node that stands on the floor."""
    root = Node(None, world, None)
    queue = root.children()
    best, best_total = root, -10000000000000.0
    seen: list[tuple[int, int, int]] = []
    while queue and iterations > 0:
        queue = sorted(queue, key=Node.score, reverse=True)
        current = queue.pop(0)
        if _visited(seen, current.key()):
            continue
        seen.append(current.key())
        if current.world.status == WON:
            return current.plan()
        total = current.score()
        if total > best_total and (current.world.mario.on_ground or best is root):
            best_total, best = total, current
        queue = queue + current.children()
        iterations -= 1
    return best.plan()


class AStarAgent:
    """Replans when its last plan is used up; each tick gets a copy of the world (the forward model)."""

    def __init__(self, iterations: float) -> None:
        self.iterations = iterations
        self.plan: list[list[bool]] = []

    def act(self, world: World) -> list[bool]:
        if not self.plan:
            self.plan = search(world.clone(), self.iterations)
        return self.plan.pop(0)


REPEAT = 8  # ticks each A* action is held (the benchmark's sticky actions)
