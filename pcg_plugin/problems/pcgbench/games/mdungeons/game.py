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

from collections.abc import Sequence
from dataclasses import dataclass

from pcg_plugin.problems.pcgbench.bench.step_search import Action

SOLID, EMPTY, PLAYER, EXIT, POTION, TREASURE, GOBLIN, OGRE = range(8)
ACTIONS: tuple[Action, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))  # left, right, up, down
MAX_HEALTH = 5
DAMAGE = {GOBLIN: 1, OGRE: 2}


@dataclass(frozen=True)
class Level:
    """The static part: walls, the exit, and where each item starts (row-major, the benchmark's order)."""

    open: tuple[tuple[bool, ...], ...]  # open[y][x]: not solid
    door: tuple[int, int]
    potions: dict[tuple[int, int], int]  # position -> bit index in the state's mask
    treasures: dict[tuple[int, int], int]
    enemies: dict[tuple[int, int], tuple[int, int]]  # position -> (bit index, damage)
    area: int  # padded width × padded height, the heuristic's offset


class State:
    """The moving part: position, health, what was collected, and bitmasks of the items still on the map
    (immutable by convention; a plain slotted class because searches make millions of them)."""

    __slots__ = (
        "col_enemies",
        "col_potions",
        "col_treasures",
        "enemies",
        "health",
        "level",
        "potions",
        "treasures",
        "x",
        "y",
    )

    def __init__(
        self,
        level: Level,
        x: int,
        y: int,
        health: int,
        col_potions: int,
        col_treasures: int,
        col_enemies: int,
        potions: int,
        treasures: int,
        enemies: int,
    ) -> None:
        self.level, self.x, self.y, self.health = level, x, y, health
        self.col_potions, self.col_treasures, self.col_enemies = col_potions, col_treasures, col_enemies
        self.potions, self.treasures, self.enemies = potions, treasures, enemies

    def key(self) -> tuple[int, ...]:
        return (self.x, self.y, self.health, self.potions, self.treasures, self.enemies)

    def won(self) -> bool:
        door = self.level.door
        return self.x == door[0] and self.y == door[1]

    def lost(self) -> bool:
        return self.health <= 0

    def heuristic(self) -> int:
        """Exit distance + 4 per missing health − 2 per treasure + the padded area (so positive until a win)."""
        door_x, door_y = self.level.door
        distance = abs(self.x - door_x) + abs(self.y - door_y)
        return distance + 4 * (MAX_HEALTH - self.health) - 2 * self.col_treasures + self.level.area

    def status(self) -> dict[str, object]:
        """The benchmark's game status: won/lost/running and what the player holds."""
        status = "lose" if self.lost() else "win" if self.won() else "running"
        return {
            "status": status,
            "health": self.health,
            "col_treasures": self.col_treasures,
            "col_potions": self.col_potions,
            "col_enemies": self.col_enemies,
        }

    def step(self, dx: int, dy: int) -> tuple[State, str]:
        """One move; returns the new state and its event: "p" potion, "$" treasure, "1"/"2" enemy damage, or ""."""
        if self.health <= 0 or self.won() or (dx and dy):
            return self, ""
        nx, ny = self.x + (dx > 0) - (dx < 0), self.y + (dy > 0) - (dy < 0)
        level = self.level
        if not level.open[ny][nx]:  # the solid border keeps every move inside the grid
            return self, ""
        pos = (nx, ny)
        health, potions, treasures, enemies = self.health, self.potions, self.treasures, self.enemies
        col_p, col_t, col_e = self.col_potions, self.col_treasures, self.col_enemies
        event = ""
        if (bit := level.potions.get(pos)) is not None and potions >> bit & 1:
            health, col_p, potions, event = min(health + 2, MAX_HEALTH), col_p + 1, potions & ~(1 << bit), "p"
        elif (bit := level.treasures.get(pos)) is not None and treasures >> bit & 1:
            col_t, treasures, event = col_t + 1, treasures & ~(1 << bit), "$"
        elif (enemy := level.enemies.get(pos)) is not None and enemies >> enemy[0] & 1:
            bit, damage = enemy
            health, col_e, enemies, event = max(health - damage, 0), col_e + 1, enemies & ~(1 << bit), str(damage)
        return State(level, nx, ny, health, col_p, col_t, col_e, potions, treasures, enemies), event

    def children(self) -> list[tuple[Action, State]]:
        return [(action, self.step(*action)[0]) for action in ACTIONS]


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
        open=tuple(tuple(v != SOLID for v in row) for row in padded),
        door=door,
        potions={p: i for i, p in enumerate(potions)},
        treasures={t: i for i, t in enumerate(treasures)},
        enemies={(x, y): (i, d) for i, (x, y, d) in enumerate(enemies)},
        area=len(padded) * len(padded[0]),
    )
    return State(
        level, *player, MAX_HEALTH, 0, 0, 0, (1 << len(potions)) - 1, (1 << len(treasures)) - 1, (1 << len(enemies)) - 1
    )


def replay_events(content: Sequence[Sequence[int]], actions: Sequence[Action]) -> str:
    """The event string of `actions` replayed from the start (the benchmark's diversity sequence)."""
    if not actions:
        return ""
    state, out = start_state(content), []
    for dx, dy in actions:
        state, event = state.step(dx, dy)
        out.append(event)
    return "".join(out)
