"""loderunner: an 11×16 grid of 2×2 tile patterns that expands to a 22×32 Lode Runner level.

Content (the benchmark's JSON form): 11 rows of 16 ints in [0, 52), indices into `data/loderunner/patterns.txt`
(one 2×2 block per line, row-major). The expansion's last row is forced solid (pcg_benchmark 00b96f5
`probs/loderunner/problem.py`), then the level is scored as `loderunnertile.LodeRunner` scores it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from pcg_plugin.problems.pcgbench.bench_problem import BenchProblem
from pcg_plugin.problems.pcgbench.loderunner_play import DATA, SOLID
from pcg_plugin.problems.pcgbench.loderunnertile import GridContent, bench_problem, game_of, with_extra

# The README's example pattern grid (it expands to the first original level; feasible for loderunner-v0).
README_PATTERNS = [
    [1, 13, 37, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [2, 2, 2, 2, 2, 11, 23, 23, 23, 17, 15, 48, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 14, 1, 13, 12, 27, 1, 1, 35, 1, 1, 1],
    [1, 1, 1, 1, 1, 14, 1, 1, 12, 27, 1, 2, 2, 11, 2, 2],
    [1, 1, 1, 1, 1, 14, 1, 1, 12, 27, 1, 1, 1, 5, 1, 1],
    [2, 11, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2, 25, 2, 2, 2],
    [1, 14, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 27, 1, 1, 1],
    [2, 2, 2, 2, 2, 2, 2, 25, 2, 2, 2, 2, 27, 1, 1, 1],
    [1, 1, 1, 1, 1, 13, 37, 49, 15, 15, 15, 15, 27, 35, 36, 1],
    [1, 1, 1, 25, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 11],
    [0, 0, 0, 50, 0, 0, 0, 0, 10, 0, 19, 0, 0, 0, 0, 51],
]
GOLD_BLOCK, ENEMY_BLOCK = 35, 36  # patterns 1113 and 1114: empty but for gold (an enemy) at the bottom right
# Feasible examples for the gold / enemies variants: README_PATTERNS with these empty blocks (y, x) swapped for a
# gold (enemy) block, found by a greedy search that kept quality 1.0 (tests/pcgbench/test_pcgbench_loderunner.py).
EXTRA_BLOCKS = {
    "loderunner-gold-v0": (GOLD_BLOCK, ((0, 0), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 9), (2, 6),
                                        (2, 10), (2, 11), (2, 13))),
    "loderunner-enemies-v0": (ENEMY_BLOCK, ((0, 0), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 9))),
}


@cache
def patterns() -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """The 52 patterns as ((top-left, top-right), (bottom-left, bottom-right))."""
    lines = [line.strip() for line in (DATA / "patterns.txt").read_text(encoding="ascii").splitlines()]
    return tuple(((int(p[0]), int(p[1])), (int(p[2]), int(p[3]))) for p in lines if p)


def expand(content: Sequence[Sequence[int]]) -> list[list[int]]:
    """Each index becomes its 2×2 block; the bottom row of the result is then made solid."""
    blocks = patterns()
    level = [[v for index in row for v in blocks[int(index)][half]] for row in content for half in (0, 1)]
    level[-1] = [SOLID] * len(level[-1])
    return level


def examples(name: str) -> tuple[list[list[int]], ...]:
    """The variant's feasible example grids: the README's, with extra gold or enemy blocks where needed."""
    if name in EXTRA_BLOCKS:
        return (with_extra(README_PATTERNS, *EXTRA_BLOCKS[name]),)
    return (README_PATTERNS,) if name == "loderunner-v0" else ()


def make(name: str, **kwargs: Any) -> BenchProblem:
    game = game_of(kwargs)
    return bench_problem(name, game, GridContent(game.height // 2, game.width // 2, len(patterns())), expand)


VARIANTS: dict[str, dict[str, int]] = {
    "loderunner-v0": {"width": 32, "height": 22, "gold": 6, "enemies": 3},
    "loderunner-gold-v0": {"width": 32, "height": 22, "gold": 18, "enemies": 3},
    "loderunner-enemies-v0": {"width": 32, "height": 22, "gold": 6, "enemies": 12},
}
