"""MiniDungeons as the benchmark plays it (pcg_benchmark 00b96f5 `probs/mdungeons/engine.py`): a turn-based walk
to the exit that picks up potions and treasures and fights every enemy it steps on.

The level is the content inside a one-cell solid border; positions are (x, y) on that padded grid. The player
starts with 5 health and moves left, right, up or down (in that order) into any non-solid cell; the first item
there (potion, then treasure, then enemy) is taken: a potion heals 2 (up to 5), an enemy deals its damage (a
goblin 1, an ogre 2; health floors at 0) and dies. Standing on the exit wins, health 0 loses, and an over game
no longer moves. A state's identity is the position, health and the items still on the map, as the benchmark's
key string encodes them (its door never changes).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pcg_plugin.problems.pcgbench.step_search import Action

SOLID, EMPTY, PLAYER, EXIT, POTION, TREASURE, GOBLIN, OGRE = range(8)
ACTIONS: tuple[Action, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))  # left, right, up, down
MAX_HEALTH = 5
DAMAGE = {GOBLIN: 1, OGRE: 2}


@dataclass(frozen=True)
class Level:
    """The static part: walls, the exit, and where each item starts (row-major, the benchmark's order)."""

    solid: tuple[tuple[bool, ...], ...]
    door: tuple[int, int]
    potions: dict[tuple[int, int], int]  # position -> bit index in the state's mask
    treasures: dict[tuple[int, int], int]
    enemies: dict[tuple[int, int], tuple[int, int]]  # position -> (bit index, damage)

    @property
    def width(self) -> int:
        return len(self.solid[0])

    @property
    def height(self) -> int:
        return len(self.solid)


@dataclass(frozen=True)
class State:
    """The moving part: position, health, what was collected, and bitmasks of the items still on the map."""

    level: Level
    x: int
    y: int
    health: int
    col_potions: int
    col_treasures: int
    col_enemies: int
    potions: int
    treasures: int
    enemies: int

    def key(self) -> tuple[int, ...]:
        return (self.x, self.y, self.health, self.potions, self.treasures, self.enemies)

    def won(self) -> bool:
        return (self.x, self.y) == self.level.door

    def lost(self) -> bool:
        return self.health <= 0

    def heuristic(self) -> int:
        """Exit distance + 4 per missing health − 2 per treasure + the padded area (so positive until a win)."""
        door_x, door_y = self.level.door
        distance = abs(self.x - door_x) + abs(self.y - door_y)
        return distance + 4 * (MAX_HEALTH - self.health) - 2 * self.col_treasures + self.level.width * self.level.height

    def status(self) -> dict[str, object]:
        """The benchmark's game status: won/lost/running and what the player holds."""
        status = "lose" if self.lost() else "win" if self.won() else "running"
        return {"status": status, "health": self.health, "col_treasures": self.col_treasures,
                "col_potions": self.col_potions, "col_enemies": self.col_enemies}

    def step(self, dx: int, dy: int) -> tuple[State, str]:
        """One move; returns the new state and its event: "p" potion, "$" treasure, "1"/"2" enemy damage, or ""."""
        if self.won() or self.lost() or (dx and dy):
            return self, ""
        nx, ny = self.x + (dx > 0) - (dx < 0), self.y + (dy > 0) - (dy < 0)
        level = self.level
        if not (0 <= nx < level.width and 0 <= ny < level.height) or level.solid[ny][nx]:
            return self, ""
        pos = (nx, ny)
        bit = level.potions.get(pos)
        if bit is not None and self.potions >> bit & 1:
            return State(level, nx, ny, min(self.health + 2, MAX_HEALTH), self.col_potions + 1, self.col_treasures,
                         self.col_enemies, self.potions & ~(1 << bit), self.treasures, self.enemies), "p"
        bit = level.treasures.get(pos)
        if bit is not None and self.treasures >> bit & 1:
            return State(level, nx, ny, self.health, self.col_potions, self.col_treasures + 1, self.col_enemies,
                         self.potions, self.treasures & ~(1 << bit), self.enemies), "$"
        enemy = level.enemies.get(pos)
        if enemy is not None and self.enemies >> enemy[0] & 1:
            bit, damage = enemy
            return State(level, nx, ny, max(self.health - damage, 0), self.col_potions, self.col_treasures,
                         self.col_enemies + 1, self.potions, self.treasures, self.enemies & ~(1 << bit)), str(damage)
        return State(level, nx, ny, self.health, self.col_potions, self.col_treasures, self.col_enemies,
                     self.potions, self.treasures, self.enemies), ""

    def children(self) -> Iterator[tuple[Action, State]]:
        for action in ACTIONS:
            yield action, self.step(*action)[0]


def start_state(content: Sequence[Sequence[int]]) -> State:
    """The padded level and its start state; needs exactly one player and one exit (the caller's gate)."""
    cols = len(content[0])
    padded = [[SOLID] * (cols + 2), *([SOLID, *row, SOLID] for row in content), [SOLID] * (cols + 2)]
    cells = [(x, y, v) for y, row in enumerate(padded) for x, v in enumerate(row)]
    player = next((x, y) for x, y, v in cells if v == PLAYER)
    door = next((x, y) for x, y, v in cells if v == EXIT)
    potions = [(x, y) for x, y, v in cells if v == POTION]
    treasures = [(x, y) for x, y, v in cells if v == TREASURE]
    enemies = [(x, y, DAMAGE[v]) for x, y, v in cells if v in DAMAGE]
    level = Level(
        solid=tuple(tuple(v == SOLID for v in row) for row in padded), door=door,
        potions={p: i for i, p in enumerate(potions)}, treasures={t: i for i, t in enumerate(treasures)},
        enemies={(x, y): (i, d) for i, (x, y, d) in enumerate(enemies)},
    )
    return State(level, *player, MAX_HEALTH, 0, 0, 0, (1 << len(potions)) - 1, (1 << len(treasures)) - 1,
                 (1 << len(enemies)) - 1)


def replay_events(content: Sequence[Sequence[int]], actions: Sequence[Action]) -> str:
    """The event string of `actions` replayed from the start (the benchmark's diversity sequence)."""
    if not actions:
        return ""
    state, out = start_state(content), []
    for dx, dy in actions:
        state, event = state.step(dx, dy)
        out.append(event)
    return "".join(out)
