"""ddave: a Danger Dave level (pcg_benchmark 00b96f5 `probs/ddave/problem.py`), every registered variant.

Content: an H×W grid of 0 solid, 1 empty, 2 player, 3 exit, 4 diamond, 5 key, 6 spike. The level is first
repaired: everything outside one player's open region becomes solid. A repaired level with one player, one
exit and one key is played by the step-game solver chain (`step_search`), once for key-then-door and once per
diamond with that diamond as the target. Quality wants one of each on the ground, few spikes, a win with at
least the variant's number of jumps, reachable diamonds and not too many of them. Controllability targets the
player and exit positions and the diamond count; diversity compares solution visit maps, mirrored or not.

Quirks kept: the repair picks `players[argmax(sizes)]` where `sizes` skips players whose region an earlier
player already filled, so the index can name a different player than the largest region's (and the level
then keeps a smaller region); solution points are shifted to content coordinates, diamond targets are
padded; `num_jumps` comes from the BFS best node when nothing wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pcg_plugin.problems.pcgbench.bench.grid_kind import GridKind
from pcg_plugin.problems.pcgbench.bench.grid_search import bfs_distances, tiles_of
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, GridSize, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward
from pcg_plugin.problems.pcgbench.bench.step_search import solve_chain
from pcg_plugin.problems.pcgbench.games.ddave.game import DIAMOND, EMPTY, EXIT, KEY, PLAYER, SOLID, SPIKE, start_state

LEGEND = ("solid", "empty", "player", "exit", "diamond", "key", "spike")
OPEN = tuple(range(1, len(LEGEND)))
VARIANTS: dict[str, dict[str, int]] = {  # probs/ddave/__init__.py
    "ddave-v0": {"width": 11, "height": 7, "jumps": 2},
    "ddave-complex-v0": {"width": 11, "height": 7, "jumps": 6},
    "ddave-large-v0": {"width": 17, "height": 11, "jumps": 10},
}
Grid = list[list[int]]


def _region(grid: Grid, start: tuple[int, int]) -> set[tuple[int, int]]:
    dist = bfs_distances(grid, start, OPEN)
    return {(x, y) for y, row in enumerate(dist) for x, d in enumerate(row) if d >= 0}


def repair(grid: Grid) -> Grid:
    """Keep one player's open region, everything else solid (the benchmark's `_getLvl`, index quirk included)."""
    players = tiles_of(grid, (PLAYER,))
    if not players:
        return grid
    filled: set[tuple[int, int]] = set()
    sizes = []
    for p in players:
        if p in filled:
            continue  # the benchmark's flood fill adds nothing for an already coloured start
        region = _region(grid, p)
        filled |= region
        sizes.append(len(region))
    keep = _region(grid, players[sizes.index(max(sizes))])
    return [[v if (x, y) in keep else SOLID for x, v in enumerate(row)] for y, row in enumerate(grid)]


@dataclass(frozen=True)
class DangerDave(GridSize):
    """One variant's constants and the benchmark's four functions over them."""

    jumps: int
    solver: int = 5000
    diversity_threshold: float = 0.4

    def _on_ground(self, grid: Grid, locations: Sequence[tuple[int, int]]) -> int:
        return sum(int(y == self.height - 1 or grid[y + 1][x] == SOLID) for x, y in locations)

    def info(self, content: Sequence[Sequence[int]]) -> Info:
        """Counts on the repaired level; with one player, exit and key, the solver's result and diamond runs."""
        grid = repair([[int(v) for v in row] for row in content])
        players, exits = tiles_of(grid, (PLAYER,)), tiles_of(grid, (EXIT,))
        keys = len(tiles_of(grid, (KEY,)))
        diamonds = tiles_of(grid, (DIAMOND,))
        heuristic, solution, stats, reachable = -1, [], {}, []
        if len(players) == 1 and len(exits) == 1 and keys == 1:
            result = solve_chain(start_state(grid), self.solver)
            stats = result.node.state.status()
            heuristic = 0 if result.won else result.node.h
            if result.won:
                solution = [{**p, "x": p["x"] - 1, "y": p["y"] - 1} for p in result.node.locations()]
            for dx, dy in diamonds:
                run = solve_chain(start_state(grid, (dx + 1, dy + 1)), self.solver)
                reachable.append(0 if run.won else run.node.h)
        return {
            "players": len(players),
            "exits": len(exits),
            "diamonds": len(diamonds),
            "keys": keys,
            "spikes": len(tiles_of(grid, (SPIKE,))),
            "playerOnGround": self._on_ground(grid, players),
            "player_locations": [list(p) for p in players],
            "exit_locations": [list(p) for p in exits],
            "exitOnGround": self._on_ground(grid, exits),
            "diamond_reachable": reachable,
            "heuristic": heuristic,
            "solution": solution,
            "repaired_content": grid,
            **stats,
        }

    def quality(self, inf: Info) -> float:
        """(stats + play + diamonds) / 3; play and diamonds only with exactly one player, exit and key."""
        cells, side = self.cells, max(self.width, self.height)
        player = range_reward(inf["players"], 0, 1, 1, cells)
        grounded = range_reward(inf["playerOnGround"] + inf["exitOnGround"], 0, inf["players"] + inf["exits"], cells)
        exit_ = range_reward(inf["exits"], 0, 1, 1, cells)
        key = range_reward(inf["keys"], 0, 1, 1, cells)
        spikes = range_reward(inf["spikes"], 0, 0, 2 * side, cells)
        stats = (player + grounded + exit_ + key + spikes) / 5.0
        play, gems = 0.0, 0.0
        if player == 1 and exit_ == 1 and key == 1:
            play = (
                range_reward(inf["heuristic"], 0, 0, 0, cells) + range_reward(inf["num_jumps"], 0, self.jumps, side)
            ) / 2.0
            reach = [range_reward(dh, 0, 0, 0, cells) for dh in inf["diamond_reachable"]]
            gems = 1.0 if inf["diamonds"] == 0 else sum(reach) / inf["diamonds"]
            gems = (gems + range_reward(inf["diamonds"], 0, 0, min(self.width, self.height), cells)) / 2.0
        return (stats + play + gems) / 3.0

    def _visits(self, solution: Sequence[Mapping[str, Any]], min_x: int, min_y: int) -> list[list[int]]:
        counts = [[0] * self.width for _ in range(self.height)]
        for p in solution:
            counts[p["y"] - min_y][p["x"] - min_x] += 1
        return counts

    def diversity(self, a: Info, b: Info) -> float:
        """L1 distance of the two solutions' visit maps (the first also mirrored; the smaller counts)."""
        points = [*a["solution"], *b["solution"]]
        min_x = min((p["x"] for p in points), default=0)
        min_y = min((p["y"] for p in points), default=0)
        va, vb = self._visits(a["solution"], min_x, min_y), self._visits(b["solution"], min_x, min_y)
        # Both visit maps are height × width (`_visits`).
        plain = sum(abs(u - v) for ra, rb in zip(va, vb, strict=True) for u, v in zip(ra, rb, strict=True))
        mirrored = sum(abs(u - v) for ra, rb in zip(va, vb, strict=True) for u, v in zip(ra[::-1], rb, strict=True))
        return range_reward(min(plain, mirrored), 0, self.diversity_threshold * (self.width + self.height), self.cells)

    def controllability(self, inf: Info, control: Mapping[str, int]) -> float:
        """Mean closeness of the nearest player to (sx, sy), nearest exit to (ex, ey), and the diamond count."""
        span = self.width + self.height
        start = min(
            [abs(control["sx"] - x) + abs(control["sy"] - y) for x, y in inf["player_locations"]] + [self.cells]
        )
        end = min([abs(control["ex"] - x) + abs(control["ey"] - y) for x, y in inf["exit_locations"]] + [self.cells])
        count = abs(control["diamonds"] - inf["diamonds"])
        return (
            range_reward(start, 0, 0, 0, span)
            + range_reward(end, 0, 0, 0, span)
            + range_reward(count, 0, 0, 0, self.cells)
        ) / 3.0

    def control_space(self) -> dict[str, tuple[int, int]]:
        w, h = self.width, self.height
        return {
            "sx": (0, w),
            "sy": (int(h / 2) + 2, h),
            "ex": (0, w),
            "ey": (0, int(h / 2)),
            "diamonds": (0, min(w, h)),
        }

    def goal(self) -> str:
        side = max(self.width, self.height)
        return (
            f"Only the open area connected to a player counts (the rest becomes solid). A good level has "
            f"exactly one player, one exit and one key there, the player and the exit standing on solid "
            f"ground (or the bottom row), at most {2 * side} spikes and at most {min(self.width, self.height)} "
            f"diamonds. The player (moves left or right, falls one cell a turn, jumps up to 2 cells) must be "
            f"able to take the key, then reach the exit, with {self.jumps} to {side} jumps, and reach every "
            f"diamond without touching a spike. The control asks for the player at column `sx`, row `sy` and "
            f"the exit at column `ex`, row `ey` (0-based, rows from the top), and `diamonds` diamonds."
        )


def hurdles(rows: int, cols: int, heights: tuple[int, ...] = ()) -> list[list[int]]:
    """A feasible level: walls on every other column (2 high, or `heights` from the left), the player bottom
    left, the exit two columns on, the key bottom right (so the player jumps the walls there and back)."""
    grid = [[EMPTY] * cols for _ in range(rows)]
    for n, x in enumerate(range(1, cols - 1, 2)):
        for y in range(rows - (heights[n] if heights else 2), rows):
            grid[y][x] = SOLID
    grid[rows - 1][0], grid[rows - 1][2], grid[rows - 1][cols - 1] = PLAYER, EXIT, KEY
    return grid


def walk_and_jump(rows: int, cols: int) -> list[list[int]]:
    """A feasible level for 2 jumps: 1-high walls at a third and two thirds, the key between, the exit last."""
    grid = [[EMPTY] * cols for _ in range(rows)]
    grid[rows - 1][cols // 3] = grid[rows - 1][2 * cols // 3] = SOLID
    grid[rows - 1][0], grid[rows - 1][cols // 2], grid[rows - 1][cols - 1] = PLAYER, KEY, EXIT
    return grid


def with_diamond(grid: list[list[int]], x: int, y: int) -> list[list[int]]:
    out = [list(row) for row in grid]
    out[y][x] = DIAMOND
    return out


# Feasible example levels (quality 1.0, tested) per variant.
EXAMPLES = {
    "ddave-v0": lambda: (walk_and_jump(7, 11), [r[::-1] for r in walk_and_jump(7, 11)], hurdles(7, 11)),
    "ddave-complex-v0": lambda: (hurdles(7, 11), [r[::-1] for r in hurdles(7, 11)], with_diamond(hurdles(7, 11), 5, 4)),
    "ddave-large-v0": lambda: (
        hurdles(11, 17, (2, 2, 2, 2, 1, 2, 2, 2)),
        hurdles(11, 17, (2, 2, 2, 1, 2, 1, 2, 2)),
        [r[::-1] for r in hurdles(11, 17, (2, 2, 2, 2, 1, 2, 2, 2))],
    ),
}


def make(name: str, **kwargs: Any) -> BenchProblem:
    """The variant `name` from the benchmark registry's keyword arguments (width, height, jumps, solver, ...)."""
    game = DangerDave(
        kwargs["width"], kwargs["height"], kwargs["jumps"], kwargs.get("solver", 5000), kwargs.get("diversity", 0.4)
    )
    examples = EXAMPLES[name]() if name in EXAMPLES and kwargs == VARIANTS[name] else ()
    return BenchProblem(
        name=name,
        control_space=game.control_space(),
        content=GridKind(
            game.height,
            game.width,
            LEGEND,
            no_extra="its evaluation or its diversity fails on them, depending on the level",
        ),
        info=game.info,
        quality=game.quality,
        controllability=game.controllability,
        diversity=game.diversity,
        goal=game.goal(),
        examples=tuple(examples),
    )
