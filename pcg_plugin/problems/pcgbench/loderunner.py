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
from pcg_plugin.problems.pcgbench.loderunnertile import GridContent, bench_problem, game_of


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


def make(name: str, **kwargs: Any) -> BenchProblem:
    game = game_of(kwargs)
    return bench_problem(name, game, GridContent(game.height // 2, game.width // 2, len(patterns())), expand)


VARIANTS: dict[str, dict[str, int]] = {
    "loderunner-v0": {"width": 32, "height": 22, "gold": 6, "enemies": 3},
    "loderunner-gold-v0": {"width": 32, "height": 22, "gold": 18, "enemies": 3},
    "loderunner-enemies-v0": {"width": 32, "height": 22, "gold": 6, "enemies": 12},
}
