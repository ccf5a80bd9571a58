"""mdungeons: a MiniDungeons level (pcg_benchmark 00b96f5 `probs/mdungeons/problem.py`), every registered variant.

Content: an H×W grid of 0 solid, 1 empty, 2 player, 3 exit, 4 potion, 5 treasure, 6 goblin, 7 ogre. A level
whose non-solid cells form one region, with one player and one exit, is played by the step-game solver chain
(`step_search`), bounded by the variant's `solver` pops per search. Quality wants that region, enough enemies,
at least half the cells solid or empty, a win, a solution of at least E + 2 positions and the E enemies nearest
the solution lying on it. Controllability targets collected treasures and solution length; diversity mixes the
replayed event strings ("p", "$", "1", "2") with the share of differing cells.

Quirks kept: solution points stay on the padded grid (the enemy distances add the 1 back); the solution length
counts positions (moves + 1); controllability's two ranges are four-value (0 above the band) and it is 0 for an
unplayed level; a level with no win keeps the BFS best node's status.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from pcg_plugin.problems.pcgbench.bench.examples import mirrored
from pcg_plugin.problems.pcgbench.bench.grid_kind import GridKind
from pcg_plugin.problems.pcgbench.bench.grid_search import count_regions, tiles_of
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, GridSize, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward
from pcg_plugin.problems.pcgbench.bench.step_search import solve_chain
from pcg_plugin.problems.pcgbench.games.mdungeons.game import (
    EMPTY,
    EXIT,
    GOBLIN,
    OGRE,
    PLAYER,
    POTION,
    SOLID,
    TREASURE,
    replay_events,
    start_state,
)

LEGEND = ("solid", "empty", "player", "exit", "potion", "treasure", "goblin", "ogre")
NON_SOLID = tuple(range(1, len(LEGEND)))
VARIANTS: dict[str, dict[str, int]] = {  # probs/mdungeons/__init__.py
    "mdungeons-v0": {"width": 8, "height": 12, "enemies": 8},
    "mdungeons-enemies-v0": {"width": 8, "height": 12, "enemies": 16},
    "mdungeons-large-v0": {"width": 16, "height": 24, "enemies": 16, "solver": 10000},
}


@dataclass(frozen=True)
class MiniDungeons(GridSize):
    """One variant's constants and the benchmark's four functions over them."""

    enemies: int
    solver: int = 5000
    diversity_threshold: float = 0.4

    def cerror(self) -> dict[str, float]:
        return {
            "col_treasures": max(0.2 * (self.width + self.height), 1),
            "solution_length": max(0.5 * self.enemies, 1),
        }

    def info(self, content: Sequence[Sequence[int]]) -> Info:
        """Counts and regions; for one region with one player and one exit, the solver chain's result."""
        grid = [[int(v) for v in row] for row in content]
        regions = count_regions(grid, NON_SOLID)
        players = tiles_of(grid, (PLAYER,))
        exits = len(tiles_of(grid, (EXIT,)))
        heuristic, solution, stats = -1, [], {}
        if regions == 1 and len(players) == 1 and exits == 1:
            result = solve_chain(start_state(grid), self.solver)
            stats = result.node.state.status()
            if result.won:
                heuristic, solution = 0, result.node.locations()
            else:
                heuristic = result.node.h
        return {
            "regions": regions,
            "players": len(players),
            "exits": exits,
            "layout": len(tiles_of(grid, (SOLID, EMPTY))),
            "heuristic": heuristic,
            "solution": solution,
            "content": grid,
            "potions": len(tiles_of(grid, (POTION,))),
            "treasures": len(tiles_of(grid, (TREASURE,))),
            "enemies": len(tiles_of(grid, (GOBLIN, OGRE))),
            "solution_length": len(solution),
            "enemies_loc": [list(p) for p in tiles_of(grid, (GOBLIN, OGRE))],
            **stats,
        }

    def quality(self, inf: Info) -> float:
        """(stats + solution + enemies) / 3; the last two only for one region with one player and one exit."""
        cells, span = self.cells, self.width + self.height
        regions = range_reward(inf["regions"], 0, 1, 1, cells / 10)
        player = range_reward(inf["players"], 0, 1, 1, cells)
        exit_ = range_reward(inf["exits"], 0, 1, 1, cells)
        enemies = range_reward(inf["enemies"], 0, self.enemies, cells)
        layout = range_reward(inf["layout"], 0, cells / 2, cells)
        stats = (player + exit_ + regions + enemies + layout) / 5.0
        solution, near = 0.0, 0.0
        if player == 1 and exit_ == 1 and regions == 1:
            solution = (
                range_reward(inf["heuristic"], 0, 0, 0, cells**2)
                + range_reward(len(inf["solution"]), 0, self.enemies + 2, cells**2)
            ) / 2.0
            points = inf["solution"]
            distances = sorted(
                min(abs(p["x"] - ex - 1) + abs(p["y"] - ey - 1) for p in points) if points else span
                for ex, ey in inf["enemies_loc"]
            )
            near = range_reward(sum(distances[: self.enemies]), 0, 0, 0, self.enemies * span)
        return (stats + solution + near) / 3.0

    def diversity(self, a: Info, b: Info) -> float:
        """0.8·(1 − ratio of the replayed event strings) + 0.2·(share of differing cells), full from 0.4."""
        seq_a, seq_b = (_events(i) for i in (a, b))
        # Both contents are exactly the variant's rows × columns (the kind refuses any other shape).
        differing = sum(
            u != v for ra, rb in zip(a["content"], b["content"], strict=True) for u, v in zip(ra, rb, strict=True)
        )
        score = (1 - SequenceMatcher(None, seq_a, seq_b).ratio()) * 0.8 + differing / self.cells * 0.2
        return range_reward(score, 0, self.diversity_threshold, 1.0)

    def controllability(self, inf: Info, control: Mapping[str, int]) -> float:
        """Mean closeness of collected treasures and solution length to the targets; 0 for an unplayed level."""
        if inf["heuristic"] == -1:
            return 0.0
        err = self.cerror()
        parts = [
            range_reward(inf[k], 0, control[k] - err[k], control[k] + err[k])
            for k in ("col_treasures", "solution_length")
        ]
        return sum(parts) / 2.0

    def control_space(self) -> dict[str, tuple[int, int]]:
        return {
            "col_treasures": (0, self.width + self.height),
            "solution_length": (2 * self.enemies, int(self.cells / 2)),
        }

    def goal(self) -> str:
        err = self.cerror()
        return (
            f"A good dungeon has all its non-solid tiles connected, exactly one player and one exit, at least "
            f"{self.enemies} enemies, and at least half of its cells solid or empty. The player (5 health; "
            f"moving onto a goblin costs 1, an ogre 2, a potion heals 2, a treasure is collected) must reach the "
            f"exit alive along a path of at least {self.enemies + 2} positions, and the {self.enemies} enemies "
            f"nearest that path must lie on it. The control asks for `col_treasures` treasures collected on "
            f"the way (within {err['col_treasures']:g}) and a path of `solution_length` positions (within "
            f"{err['solution_length']:g})."
        )

    def example(self) -> list[list[int]]:
        """A feasible level for the registered variants (tested, with its mirror images): a one-wide snake
        through every other row from the player to the exit, lined with goblin, goblin, potion (so health never
        runs out) for its first 3E/2 + 2 cells, then empty."""
        grid = [[SOLID] * self.width for _ in range(self.height)]
        path: list[tuple[int, int]] = []
        for y in range(0, self.height, 2):
            xs = list(range(self.width)) if (y // 2) % 2 == 0 else list(range(self.width - 1, -1, -1))
            path += [(x, y) for x in xs]
            if y + 2 < self.height:
                path.append((xs[-1], y + 1))
        for i, (x, y) in enumerate(path):
            grid[y][x] = EMPTY if i > 3 * self.enemies // 2 + 2 else (GOBLIN, GOBLIN, POTION)[i % 3]
        (px, py), (ex, ey) = path[0], path[-1]
        grid[py][px], grid[ey][ex] = PLAYER, EXIT
        return grid


def _events(inf: Info) -> str:
    return replay_events(inf["content"], [(p["action"]["x"], p["action"]["y"]) for p in inf["solution"]])


def make(name: str, **kwargs: Any) -> BenchProblem:
    """The variant `name` from the benchmark registry's keyword arguments (width, height, enemies, solver, ...)."""
    game = MiniDungeons(
        kwargs["width"], kwargs["height"], kwargs["enemies"], kwargs.get("solver", 5000), kwargs.get("diversity", 0.4)
    )
    return BenchProblem(
        name=name,
        content=GridKind(
            game.height,
            game.width,
            LEGEND,
            no_extra="its diversity cannot compare a larger grid with one of the variant's size (numpy raises)",
        ),
        control_space=game.control_space(),
        info=game.info,
        quality=game.quality,
        controllability=game.controllability,
        diversity=game.diversity,
        goal=game.goal(),
        examples=tuple(mirrored(game.example())) if kwargs == VARIANTS.get(name) else (),
    )
