"""loderunner: an 11×16 grid of 2×2 tile patterns that expands to a 22×32 Lode Runner level.

Content (the benchmark's JSON form): 11 rows of 16 ints in [0, 52), indices into `data/loderunner/patterns.txt`
(one 2×2 block per line, row-major). The expansion's last row is forced solid (pcg_benchmark 00b96f5
`probs/loderunner/problem.py`), then the level is scored as `loderunnertile.LodeRunner` scores it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pcg_plugin.problems.pcgbench.bench.grid_kind import TILE, GridKind
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem
from pcg_plugin.problems.pcgbench.games.loderunner.play import DATA, SOLID
from pcg_plugin.problems.pcgbench.games.loderunner.tile import TILES, bench_problem, game_of, with_extra

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
# gold (enemy) block, found by a greedy search that kept quality 1.0 (tests/pcgbench/games/test_pcgbench_loderunner.py).
EXTRA_BLOCKS = {
    "loderunner-gold-v0": (
        GOLD_BLOCK,
        ((0, 0), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 9), (2, 6), (2, 10), (2, 11), (2, 13)),
    ),
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


def pattern_names() -> tuple[str, ...]:
    """Each pattern as its tile codes, top row / bottom row (pattern 0, 1100, is "11/00")."""
    return tuple(f"{a}{b}/{c}{d}" for (a, b), (c, d) in patterns())


TILE_LEGEND = "\n".join(f"{code} = {name}" for code, name in enumerate(TILES))


@dataclass(frozen=True)
class PatternGridKind(GridKind):
    """A grid of pattern codes: written and parsed as any grid, drawn as the tiles it expands to.

    Extra placeholder `<TILES>`: the tile codes the patterns' digits stand for (`<LEGEND>` lists the patterns).
    """

    placeholders: tuple[str, ...] = ("<WIDTH>", "<HEIGHT>", "<LEGEND>", "<TILES>")

    def placeholder_values(self) -> dict[str, str]:
        return {**super().placeholder_values(), "<TILES>": TILE_LEGEND}

    def draw(self, content: Sequence[Sequence[int]], tile: int = TILE) -> str:
        return _TILES_KIND.draw(expand(content), tile)

    def key(self) -> list[tuple[str, str]]:
        return _TILES_KIND.key()

    def facts(self) -> dict[str, Any]:
        return {**super().facts(), "tiles": {str(code): name for code, name in enumerate(TILES)}}


_TILES_KIND = GridKind(22, 32, TILES)  # only draws the expanded level


def make(name: str, **kwargs: Any) -> BenchProblem:
    """A variant from the benchmark's kwargs: an (H/2)×(W/2) grid of pattern codes."""
    game = game_of(kwargs)
    goal = (
        f"The level is written as {game.height // 2} rows of {game.width // 2} pattern codes; each code is a "
        f"2×2 block of tiles (the legend gives its top row / bottom row), so the level is {game.height}×"
        f"{game.width} tiles, and its bottom row is made solid. " + game.goal()
    )
    kind = PatternGridKind(game.height // 2, game.width // 2, pattern_names())
    return bench_problem(name, game, kind, expand, goal, examples(name))
