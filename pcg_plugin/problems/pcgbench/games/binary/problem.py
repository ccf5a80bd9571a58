"""binary: a maze of solid (0) and empty (1) tiles; one empty region and a long path pass.

Constants from pcg_benchmark 00b96f5 `probs/binary` for a W×H maze (binary-v0 14×14, -wide-v0 28×14,
-large-v0 28×28): target path T = W + H, control error max(int(0.25·T), 1), control `path` in
[T + error, W·H/2), regions shaped up to cells/10, diversity threshold 0.4 of the cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pcg_plugin.problems.pcgbench.bench.content import Grid
from pcg_plugin.problems.pcgbench.bench.examples import BINARY_README, mirrored
from pcg_plugin.problems.pcgbench.bench.grid_kind import GridKind
from pcg_plugin.problems.pcgbench.bench.grid_search import count_regions, longest_path
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, GridSize, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward

DIVERSITY = 0.4
EMPTY = 1
LEGEND = ("solid", "empty")


@dataclass(frozen=True)
class Binary(GridSize):
    """One binary variant's constants and functions."""

    width: int = 14
    height: int = 14

    @property
    def target(self) -> int:
        return self.width + self.height

    @property
    def cerror(self) -> int:
        return max(int(self.target * 0.25), 1)

    def info(self, content: Grid) -> Info:
        """Longest-shortest path (double-sweep heuristic) and number of regions over the empty tiles."""
        return {
            "path": longest_path(content, (EMPTY,)),
            "regions": count_regions(content, (EMPTY,)),
            "content": [list(row) for row in content],
        }

    def quality(self, inf: Info) -> float:
        """Mean of one-region and path ≥ T rewards (regions r > 1 → (cells/10 − r)/(cells/10 − 1); path < T →
        path/T)."""
        regions = range_reward(inf["regions"], 0, 1, 1, self.cells / 10)
        path = range_reward(inf["path"], 0, self.target, self.cells)
        return (regions + path) / 2

    def controllability(self, inf: Info, control: Mapping[str, int]) -> float:
        """1 when the path is within ± error of the requested `path`."""
        return range_reward(inf["path"], 0, control["path"] - self.cerror, control["path"] + self.cerror, self.cells)

    def diversity(self, a: Info, b: Info) -> float:
        """Hamming distance of the two mazes, 1 from 0.4·cells differing tiles on."""
        # Both contents are exactly the variant's rows × columns (the kind refuses any other shape).
        hamming = sum(
            x != y for ra, rb in zip(a["content"], b["content"], strict=True) for x, y in zip(ra, rb, strict=True)
        )
        return range_reward(hamming, 0, DIVERSITY * self.cells, self.cells)

    def goal(self) -> str:
        return (
            f"A good maze has all its empty tiles connected in one region, and the longest shortest path "
            f"between two empty tiles is at least {self.target} steps. The control `path` asks for that "
            f"longest path to be within {self.cerror} steps of its value."
        )


def make(name: str, width: int = 14, height: int = 14) -> BenchProblem:
    """A binary variant (the benchmark's kwargs `width`, `height`)."""
    b = Binary(width, height)
    examples = tuple(mirrored(BINARY_README)) if (width, height) == (14, 14) else ()
    return BenchProblem(
        name=name,
        content=GridKind(
            height,
            width,
            LEGEND,
            no_extra="its diversity cannot compare a larger grid with one of the variant's size (numpy raises)",
        ),
        control_space={"path": (b.target + b.cerror, b.cells // 2)},
        info=b.info,
        quality=b.quality,
        controllability=b.controllability,
        diversity=b.diversity,
        goal=b.goal(),
        examples=examples,
    )
