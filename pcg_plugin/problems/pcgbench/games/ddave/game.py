"""Danger Dave as the benchmark plays it (pcg_benchmark 00b96f5 `probs/ddave/engine.py`): a tiny platformer in
which the player takes the key and walks to the door, or, in a diamond run, reaches one target cell.

The level is the content inside a one-cell solid border; positions are (x, y) on that padded grid. Actions
are none, left, right, up (in that order). A sideways move goes if the cell is not solid; "up" on the ground
under a free cell starts a jump (air time 3, one more jump counted). Then, with air time above 1 the player
rises a cell (a ceiling cuts the rise to a hang), at air time 1 it hangs a turn, else it falls a cell if it can.
The cell it ends in is entered: a diamond is collected, else a spike kills, else the key is taken. A won or
lost game no longer moves. A state's identity is position, health, whether the key is still there and the
diamonds still there; air time and jump count are not part of it (the benchmark's key string), so the first
state popped at a place stands for every later one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pcg_plugin.problems.pcgbench.bench.step_search import Action

SOLID, EMPTY, PLAYER, EXIT, DIAMOND, KEY, SPIKE = range(7)
ACTIONS: tuple[Action, ...] = ((0, 0), (-1, 0), (1, 0), (0, -1))  # none, left, right, up
JUMP_AIR = 3
HANG_AIR = 1


@dataclass(frozen=True)
class Level:
    """The static part: open cells, spikes, the door and key, the diamonds' start cells, and an optional target.

    The padded border is solid, so a player inside never looks past the grid's edge.
    """

    open: tuple[tuple[bool, ...], ...]  # open[y][x]: not solid
    spikes: frozenset[tuple[int, int]]
    door: tuple[int, int]
    key: tuple[int, int] | None
    diamonds: dict[tuple[int, int], int]  # position -> bit index in the state's mask
    target: tuple[int, int] | None = None

    @property
    def width(self) -> int:
        return len(self.open[0])

    @property
    def height(self) -> int:
        return len(self.open)


class State:
    """The moving part of the game (immutable by convention; a plain slotted class because searches make
    millions of them)."""

    __slots__ = ("_span", "air", "col_diamonds", "diamonds", "has_key", "health", "jumps", "level", "x", "y")

    def __init__(
        self,
        level: Level,
        x: int,
        y: int,
        health: int,
        air: int,
        jumps: int,
        col_diamonds: int,
        has_key: bool,
        diamonds: int,
        span: int | None = None,
    ) -> None:
        self.level, self.x, self.y, self.health, self.air, self.jumps = level, x, y, health, air, jumps
        self.col_diamonds, self.has_key, self.diamonds = col_diamonds, has_key, diamonds
        self._span = level.width + level.height if span is None else span

    def key(self) -> tuple[int, ...]:
        return (self.x, self.y, self.health, self.has_key, self.diamonds)

    def won(self) -> bool:
        target = self.level.target
        if target is not None:
            return self.x == target[0] and self.y == target[1]
        return self.has_key and (self.x, self.y) == self.level.door

    def lost(self) -> bool:
        return self.health <= 0

    def heuristic(self) -> int:
        """Manhattan distance to the target, else to the key plus the padded width + height, else to the door."""
        level = self.level
        goal, extra = level.door, 0
        if level.target is not None:
            goal = level.target
        elif not self.has_key and level.key is not None:
            goal, extra = level.key, self._span
        return abs(self.x - goal[0]) + abs(self.y - goal[1]) + extra

    def status(self) -> dict[str, object]:
        """The benchmark's game status."""
        status = "lose" if self.lost() else "win" if self.won() else "running"
        return {
            "status": status,
            "health": self.health,
            "airTime": self.air,
            "num_jumps": self.jumps,
            "col_diamonds": self.col_diamonds,
            "col_key": int(self.has_key),
        }

    def step(self, dx: int, dy: int) -> State:
        if self.health <= 0 or self.won():
            return self
        level = self.level
        free = level.open
        dx, dy = (dx > 0) - (dx < 0), -1 if dy < 0 else 0
        x, y, air, jumps = self.x, self.y, self.air, self.jumps
        if dx:
            if free[y][x + dx]:
                x += dx
        elif dy == -1 and not free[y + 1][x] and free[y - 1][x]:  # on the ground, no ceiling
            air, jumps = JUMP_AIR, jumps + 1
        if air > HANG_AIR:
            air -= 1
            if free[y - 1][x]:
                y -= 1
            else:
                air = HANG_AIR
        elif 0 < air <= HANG_AIR:
            air -= 1
        elif free[y + 1][x]:
            y += 1
        health, col, has_key, diamonds = self.health, self.col_diamonds, self.has_key, self.diamonds
        bit = level.diamonds.get((x, y))
        if bit is not None and diamonds >> bit & 1:
            col, diamonds = col + 1, diamonds & ~(1 << bit)
        elif (x, y) in level.spikes:
            health = 0
        elif not has_key and (x, y) == level.key:
            has_key = True
        return State(level, x, y, health, air, jumps, col, has_key, diamonds, self._span)

    def children(self) -> list[tuple[Action, State]]:
        return [(action, self.step(*action)) for action in ACTIONS]


def start_state(content: Sequence[Sequence[int]], target: tuple[int, int] | None = None) -> State:
    """The padded level and its start state; needs one player, one exit and one key (the caller's gate).

    `target` (padded coordinates) turns the game into "reach this cell", the benchmark's diamond runs.
    """
    cols = len(content[0])
    padded = [[SOLID] * (cols + 2), *([SOLID, *row, SOLID] for row in content), [SOLID] * (cols + 2)]
    cells = [(x, y, v) for y, row in enumerate(padded) for x, v in enumerate(row)]

    def last(tile: int) -> tuple[int, int] | None:
        found = [(x, y) for x, y, v in cells if v == tile]
        return found[-1] if found else None

    diamonds = [(x, y) for x, y, v in cells if v == DIAMOND]
    player, door = last(PLAYER), last(EXIT)
    assert player is not None and door is not None, "the gate admits only levels with a player and an exit"
    level = Level(
        open=tuple(tuple(v != SOLID for v in row) for row in padded),
        spikes=frozenset((x, y) for x, y, v in cells if v == SPIKE),
        door=door,
        key=last(KEY),
        diamonds={d: i for i, d in enumerate(diamonds)},
        target=target,
    )
    return State(level, *player, 1, 0, 0, 0, False, (1 << len(diamonds)) - 1)
