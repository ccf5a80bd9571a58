"""sokoban-v0: a 5×5 Sokoban room (a solid border is added for play) that the benchmark's solver can solve.

Constants from pcg_benchmark 00b96f5 `probs/sokoban`: difficulty 1 → a solution of at least (5 + 5)·1 = 10
moves, solver budget 5000 popped nodes per search, diversity threshold 0.5, control `crates` in [1, 6).
Only a level with one player, at least one crate and as many crates as targets is played.

Version note: an earlier revision of the benchmark's solution-to-letters step normalised the stored move
list in place, so a level's letters changed after its first comparison; later revisions copy the moves
first. This module follows the copying behaviour (letters are a pure function of level and moves).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher

from pcg_plugin.problems.pcgbench.content import Grid
from pcg_plugin.problems.pcgbench.grid_problem import GridProblem, Info
from pcg_plugin.problems.pcgbench.grid_search import tiles_of
from pcg_plugin.problems.pcgbench.reward import range_reward
from pcg_plugin.problems.pcgbench.sokoban_solver import CRATE, PLAYER, TARGET, Move, load, solve, step

WIDTH = HEIGHT = 5
CELLS = WIDTH * HEIGHT
DIFFICULTY = 1
SOLVER_LIMIT = 5000
DIVERSITY = 0.5


def info(content: Grid, limit: int = SOLVER_LIMIT) -> Info:
    """Tile counts; when playable, the solver's heuristic (0 if solved) and solution moves as [dx, dy]."""
    players = len(tiles_of(content, (PLAYER,)))
    crates = len(tiles_of(content, (CRATE,)))
    targets = len(tiles_of(content, (TARGET,)))
    heuristic, moves = -1, []
    if players == 1 and crates > 0 and crates == targets:
        heuristic, moves = solve(content, limit)
    return {
        "players": players, "crates": crates, "targets": targets, "heuristic": heuristic,
        "solution": [list(m) for m in moves], "content": [list(row) for row in content],
    }


def quality(inf: Info) -> float:
    """(stats + added) / 2: counts first, then (only when played) closeness to a win and solution length."""
    player = range_reward(inf["players"], 0, 1, 1, CELLS)
    crates = range_reward(inf["crates"], 0, 1, CELLS)
    balance = range_reward(abs(inf["crates"] - inf["targets"]), 0, 0, 0, CELLS)
    stats = (player + crates + balance) / 3
    added = 0.0
    if inf["heuristic"] >= 0:
        heuristic = range_reward(inf["heuristic"], 0, 0, 0, (WIDTH + HEIGHT) * inf["crates"])
        length = range_reward(len(inf["solution"]), 0, (WIDTH + HEIGHT) * DIFFICULTY, CELLS**2)
        added = (heuristic + length) / 2
    return (stats + added) / 2


def controllability(inf: Info, control: Mapping[str, int]) -> float:
    """1 when the crate count is within [max(c − 1, 1), c + 1]."""
    c = control["crates"]
    return range_reward(inf["crates"], 0, max(c - 1, 1), c + 1, CELLS)


_WALK, _PUSH = {(1, 0): "r", (-1, 0): "l", (0, 1): "d", (0, -1): "u"}, {(1, 0): "e", (-1, 0): "k", (0, 1): "s", (0, -1): "y"}


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
    out = [tuple(m) for m in moves]
    if not out:
        return []
    if out[0][0] == 0:
        out = [(dy, dx) for dx, dy in out]
    if out[0][0] < 0:
        out = [(-dx, dy) for dx, dy in out]
    first_vertical = next((dy for _, dy in out if dy != 0), 0)
    if first_vertical < 0:
        out = [(dx, -dy) for dx, dy in out]
    return out  # type: ignore[return-value]


def solution_letters(content: Grid, moves: Sequence[Move]) -> str:
    """Moves as letters (walks r/l/d/u, pushes e/k/s/y) in the canonical orientation, repeats collapsed.

    Pushes are found by replaying the moves as given, then the orientation is normalised.
    """
    flags = pushes(content, moves)
    letters = [(_PUSH if p else _WALK)[m] for p, m in zip(flags, normalise(moves))]
    collapsed = [c for i, c in enumerate(letters) if i == 0 or letters[i - 1] != c]
    return "".join(collapsed)


def diversity(a: Info, b: Info) -> float:
    """1 − difflib ratio of the collapsed solution strings, 1 from 0.5 on; two unsolved levels score 0."""
    sa = solution_letters(a["content"], [tuple(m) for m in a["solution"]])
    sb = solution_letters(b["content"], [tuple(m) for m in b["solution"]])
    return range_reward(1 - SequenceMatcher(None, sa, sb).ratio(), 0, DIVERSITY, 1.0)


SOKOBAN = GridProblem(
    name="sokoban-v0", rows=HEIGHT, cols=WIDTH, legend=("solid", "empty", "player", "crate", "target"),
    control_space={"crates": (1, max(WIDTH + 1, HEIGHT + 1))},
    info=info, quality=quality, controllability=controllability, diversity=diversity,
)
