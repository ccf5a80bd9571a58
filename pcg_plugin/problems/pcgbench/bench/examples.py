"""The example level of each problem's README in pcg_benchmark (00b96f5), all three feasible (quality 1.0).

They are the v0 variants' `BenchProblem.examples`, what the `<EXAMPLES>` prompt placeholder shows (with their
mirror images, also feasible: the three problems' quality is symmetric under left-right and up-down mirroring;
`tests/pcgbench/test_pcgbench_prompt.py` checks it) and what the tests use as golden levels.
"""

from __future__ import annotations

from pcg_plugin.problems.pcgbench.bench.content import Grid

BINARY_README: Grid = [
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1],
    [1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1],
    [1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1],
    [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1],
    [0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1],
    [0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0],
    [0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1],
    [0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1],
    [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1],
    [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
]

SOKOBAN_MICROBAN: Grid = [
    [0, 1, 4, 0, 0],
    [0, 1, 1, 0, 0],
    [0, 4, 3, 2, 1],
    [0, 1, 1, 3, 1],
    [0, 1, 1, 0, 0],
]

ZELDA_README: Grid = [
    [2, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1],
    [1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1],
    [1, 1, 1, 0, 1, 1, 1, 0, 1, 3, 0],
    [0, 0, 1, 0, 5, 1, 1, 0, 0, 0, 0],
    [1, 1, 1, 1, 1, 1, 1, 0, 1, 4, 1],
    [1, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 5, 1, 1, 1, 1, 1],
]


def mirrored(grid: Grid) -> list[Grid]:
    """The level, its left-right mirror and its up-down mirror."""
    return [[list(r) for r in grid], [list(r[::-1]) for r in grid], [list(r) for r in grid[::-1]]]
