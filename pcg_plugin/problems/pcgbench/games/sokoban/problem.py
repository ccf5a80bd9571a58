"""sokoban: a Sokoban room (a solid border is added for play) that the benchmark's solver can solve.

Constants from pcg_benchmark 00b96f5 `probs/sokoban` for a W×H room of difficulty D and solver budget S
(sokoban-v0 5×5 D 1 S 5000, -complex-v0 5×5 D 4 S 20000, -large-v0 8×8 D 3 S 10000): a solution of at least
(W + H)·D moves, S popped nodes per search (each of BFS and A* at weights 1, 0.5, 0), diversity threshold 0.5,
control `crates` in [1, max(W, H) + 1). Only a level with one player, at least one crate and as many crates as
targets is played; any other level has no solution and, like the benchmark's, the empty solution string.

Version note: an earlier revision of the benchmark's solution-to-letters step normalised the stored move
list in place, so a level's letters changed after its first comparison; later revisions copy the moves
first. This module follows the copying behaviour (letters are a pure function of level and moves).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from pcg_plugin.problems.pcgbench.bench.content import Grid
from pcg_plugin.problems.pcgbench.bench.examples import SOKOBAN_MICROBAN, mirrored
from pcg_plugin.problems.pcgbench.bench.grid_kind import GridKind
from pcg_plugin.problems.pcgbench.bench.grid_search import tiles_of
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, GridSize, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward
from pcg_plugin.problems.pcgbench.games.sokoban.solver import CRATE, PLAYER, TARGET, Move, load, solve, step

DIVERSITY = 0.5
LEGEND = ("solid", "empty", "player", "crate", "target")


@dataclass(frozen=True)
class Sokoban(GridSize):
    """One sokoban variant's constants and functions."""

    width: int = 5
    height: int = 5
    difficulty: int = 1
    solver: int = 5000

    def info(self, content: Grid) -> Info:
        """Tile counts; when playable, the solver's heuristic (0 if solved) and solution moves as [dx, dy]."""
        players = len(tiles_of(content, (PLAYER,)))
        crates = len(tiles_of(content, (CRATE,)))
        targets = len(tiles_of(content, (TARGET,)))
        heuristic = -1
        moves: list[Move] = []
        if players == 1 and crates > 0 and crates == targets:
            heuristic, moves = solve(content, self.solver)
        return {
            "players": players,
            "crates": crates,
            "targets": targets,
            "heuristic": heuristic,
            "solution": [list(m) for m in moves],
            "content": [list(row) for row in content],
        }

    def quality(self, inf: Info) -> float:
        """(stats + added) / 2: counts first, then (only when played) closeness to a win and solution length."""
        cells, side = self.cells, self.width + self.height
        player = range_reward(inf["players"], 0, 1, 1, cells)
        crates = range_reward(inf["crates"], 0, 1, cells)
        balance = range_reward(abs(inf["crates"] - inf["targets"]), 0, 0, 0, cells)
        stats = (player + crates + balance) / 3
        added = 0.0
        if inf["heuristic"] >= 0:
            heuristic = range_reward(inf["heuristic"], 0, 0, 0, side * inf["crates"])
            length = range_reward(len(inf["solution"]), 0, side * self.difficulty, cells**2)
            added = (heuristic + length) / 2
        return (stats + added) / 2

    def controllability(self, inf: Info, control: Mapping[str, int]) -> float:
        """1 when the crate count is within [max(c − 1, 1), c + 1]."""
        c = control["crates"]
        return range_reward(inf["crates"], 0, max(c - 1, 1), c + 1, self.cells)

    def goal(self) -> str:
        return (
            f"A good level has exactly one player, at least one crate and as many targets as crates, and can "
            f"be solved (every crate pushed onto a target) in at least {(self.width + self.height) * self.difficulty} "
            f"moves. The player and the crates never start on a target. The control `crates` asks for that "
            f"many crates, give or take one."
        )


_WALK, _PUSH = (
    {(1, 0): "r", (-1, 0): "l", (0, 1): "d", (0, -1): "u"},
    {(1, 0): "e", (-1, 0): "k", (0, 1): "s", (0, -1): "y"},
)


def pushes(content: Grid, moves: Sequence[Move]) -> list[bool]:
    """Replay `moves` on the level and tell which of them pushed a crate."""
    board, state = load(content)
    out = []
    for move in moves:
        state, pushed = step(board, state, move)
        out.append(pushed)
    return out


def normalise(moves: Sequence[Move]) -> list[Move]:
    """Canonical orientation: transpose if the first move is vertical, then make it go right, and make the
    first vertical move go down."""
    out: list[Move] = [(dx, dy) for dx, dy in moves]
    if not out:
        return []
    if out[0][0] == 0:
        out = [(dy, dx) for dx, dy in out]
    if out[0][0] < 0:
        out = [(-dx, dy) for dx, dy in out]
    first_vertical = next((dy for _, dy in out if dy != 0), 0)
    if first_vertical < 0:
        out = [(dx, -dy) for dx, dy in out]
    return out


def solution_letters(content: Grid, moves: Sequence[Move]) -> str:
    """Moves as letters (walks r/l/d/u, pushes e/k/s/y) in the canonical orientation, repeats collapsed.

    Pushes are found by replaying the moves as given, then the orientation is normalised.
    """
    if not moves:  # an unplayed or unsolved level: the benchmark's empty string (its level may not even load)
        return ""
    flags = pushes(content, moves)
    letters = [(_PUSH if p else _WALK)[m] for p, m in zip(flags, normalise(moves), strict=True)]  # one per move
    collapsed = [c for i, c in enumerate(letters) if i == 0 or letters[i - 1] != c]
    return "".join(collapsed)


def diversity(a: Info, b: Info) -> float:
    """1 − difflib ratio of the collapsed solution strings, 1 from 0.5 on; two unsolved levels score 0."""
    sa = solution_letters(a["content"], [tuple(m) for m in a["solution"]])
    sb = solution_letters(b["content"], [tuple(m) for m in b["solution"]])
    return range_reward(1 - SequenceMatcher(None, sa, sb).ratio(), 0, DIVERSITY, 1.0)


def make(name: str, width: int = 5, height: int = 5, difficulty: int = 1, solver: int = 5000) -> BenchProblem:
    """A sokoban variant (the benchmark's kwargs `width`, `height`, `difficulty`, `solver`)."""
    k = Sokoban(width, height, difficulty, solver)
    examples = tuple(mirrored(SOKOBAN_MICROBAN)) if (width, height, difficulty) == (5, 5, 1) else ()
    return BenchProblem(
        name=name,
        content=GridKind(height, width, LEGEND, extra=True),
        control_space={"crates": (1, max(width + 1, height + 1))},
        info=k.info,
        quality=k.quality,
        controllability=k.controllability,
        diversity=diversity,
        goal=k.goal(),
        examples=examples,
    )
