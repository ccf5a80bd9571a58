"""binary-v0: a 14×14 maze of solid (0) and empty (1) tiles; one empty region and a long path pass.

Constants from pcg_benchmark 00b96f5 `probs/binary`: target path T = width + height = 28, control error
max(int(0.25·T), 1) = 7, diversity threshold 0.4 of the cells (≥ 79 differing cells score 1).
"""

from __future__ import annotations

from collections.abc import Mapping

from pcg_plugin.problems.pcgbench.content import Grid
from pcg_plugin.problems.pcgbench.grid_problem import GridProblem, Info
from pcg_plugin.problems.pcgbench.grid_search import count_regions, longest_path
from pcg_plugin.problems.pcgbench.reward import range_reward

WIDTH = HEIGHT = 14
CELLS = WIDTH * HEIGHT
TARGET = WIDTH + HEIGHT
CERROR = max(int(TARGET * 0.25), 1)
DIVERSITY = 0.4
EMPTY = 1


def info(content: Grid) -> Info:
    """Longest-shortest path (double-sweep heuristic) and number of regions over the empty tiles."""
    return {
        "path": longest_path(content, (EMPTY,)),
        "regions": count_regions(content, (EMPTY,)),
        "content": [list(row) for row in content],
    }


def quality(inf: Info) -> float:
    """Mean of one-region and path ≥ T rewards (regions r > 1 → (19.6 − r)/18.6; path < T → path/T)."""
    regions = range_reward(inf["regions"], 0, 1, 1, CELLS / 10)
    path = range_reward(inf["path"], 0, TARGET, CELLS)
    return (regions + path) / 2


def controllability(inf: Info, control: Mapping[str, int]) -> float:
    """1 when the path is within ±7 of the requested `path`."""
    return range_reward(inf["path"], 0, control["path"] - CERROR, control["path"] + CERROR, CELLS)


def diversity(a: Info, b: Info) -> float:
    """Hamming distance of the two mazes, 1 from 0.4·cells (78.4) differing tiles on."""
    hamming = sum(x != y for ra, rb in zip(a["content"], b["content"]) for x, y in zip(ra, rb))
    return range_reward(hamming, 0, DIVERSITY * CELLS, CELLS)


BINARY = GridProblem(
    name="binary-v0", rows=HEIGHT, cols=WIDTH, legend=("solid", "empty"),
    control_space={"path": (TARGET + CERROR, CELLS // 2)},
    info=info, quality=quality, controllability=controllability, diversity=diversity,
)
