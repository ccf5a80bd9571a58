"""building: drop `blocks` Lego-like pieces into a width×length×height space so that they all land and the
building's lowest top is high enough.

Facts from pcg_benchmark 00b96f5 `probs/building/problem.py` (spec pcgbench-problems §3, other-problems §1.6)
for W×L×H and B blocks (building-v0 7×7×12 B 40, -large-v0 11×11×12 B 180, -tall-v0 7×7×24 B 80, -huge-v0
11×11×24 B 360); minHeight 0.4 (the README says 50 %; the code, which this follows, 0.4), diversity 0.4,
control error max(1, int(0.05·B)).

- Drop (`simulate`): a piece's footprint starts at min(x, W − size) (and likewise y); it falls from the top
  until the layer below holds a filled cell of its footprint, or the floor; if even the top layer is blocked
  the drop fails (counted, not placed). Heights: for every column (y-major, x-minor), the top z + 1 of each
  vertical run of filled cells.
- quality = (P + M) / 2: P = R(placed; 0, B) (1 only when all B land); M, only when P = 1, scans levels
  1..int(0.4·H): at the first level h holding k run tops, M = ((h − 1) + R(k; 0, 0, 0, W·L)) / int(0.4·H);
  with none, M = 1.
- controllability = mean over the four types of R(count in the content; 0, c − e, c + e, B).
- diversity = R(sum over types of the Hamming distance of the "oriented" occupancy; 0, 0.4·W·L·H, W·L·H), where
  orienting shifts the occupancy to its running minimum x/y with wrap-around and transposes x↔y first when
  the running y-extent exceeds the x-extent (the shifts are not swapped: a quirk, kept).
- Control sampler: four counts in [0, B), scaled down to sum B, the remainder to one key picked at random
  (the benchmark's own sampler; it is unseeded there, seeded here; a draw of four zeros, which divides by zero
  in the benchmark, is drawn again here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pcg_plugin.problems.pcgbench.bench.blocks_kind import TYPES, BlocksKind, Drops, simulate
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward


def orient(occupied: np.ndarray) -> np.ndarray:
    """The benchmark's orientation of one type's occupancy [z][y][x] (see the module docstring)."""
    height, length, width = occupied.shape
    shift_x, shift_y, extent_x, extent_y = width, length, 0, 0
    for z in range(height):
        ys, xs = np.nonzero(occupied[z])
        if xs.size:
            shift_x = min(shift_x, int(xs.min()))
            extent_x = max(extent_x, int(xs.max()) - shift_x)
            shift_y = min(shift_y, int(ys.min()))
            extent_y = max(extent_y, int(ys.max()) - shift_y)
    if extent_y > extent_x:
        occupied = np.transpose(occupied, (0, 2, 1))
    return np.roll(occupied, (-shift_y, -shift_x), axis=(1, 2))  # new[y - sy][x - sx] = old[y][x], wrapping


@dataclass(frozen=True)
class Building:
    """One building variant's constants and functions."""

    width: int = 7
    length: int = 7
    height: int = 12
    blocks: int = 40
    min_height: float = 0.4
    diversity_share: float = 0.4

    @property
    def cerror(self) -> int:
        return max(1, int(0.05 * self.blocks))

    @property
    def checked_levels(self) -> int:
        return int(self.min_height * self.height)

    def info(self, content: Drops) -> Info:
        """Placed blocks, run-top heights, per-type counts of the content, and the content (for diversity)."""
        _, heights, failed = simulate(content, self.width, self.length, self.height)
        counts = [sum(1 for d in content if d["type"] == t) for t in range(len(TYPES))]
        return {
            "blocks": self.blocks - failed,
            "heights": heights,
            **dict(zip(TYPES, counts, strict=True)),
            "content": [dict(d) for d in content],
        }

    def quality(self, inf: Info) -> float:
        placed = range_reward(inf["blocks"], 0, self.blocks)
        low = 0.0
        if placed >= 1:
            for level in range(1, self.checked_levels + 1):
                tops = sum(1 for h in inf["heights"] if h == level)
                if tops:
                    low += range_reward(tops, 0, 0, 0, self.width * self.length)
                    break
                low += 1
            low /= self.checked_levels
        return (placed + low) / 2

    def controllability(self, inf: Info, control: Mapping[str, int]) -> float:
        e = self.cerror
        return sum(range_reward(inf[t], 0, control[t] - e, control[t] + e, self.blocks) for t in TYPES) / len(TYPES)

    def oriented(self, content: Drops) -> np.ndarray:
        """The four types' oriented occupancies, stacked [type][z][y][x] (cached: diversity compares pairs)."""
        return _oriented(tuple((d["x"], d["y"], d["type"]) for d in content), self.width, self.length, self.height)

    def diversity(self, a: Info, b: Info) -> float:
        cells = self.width * self.length * self.height
        distance = int(np.abs(self.oriented(a["content"]) - self.oriented(b["content"])).sum())
        return range_reward(distance, 0, self.diversity_share * cells, cells)

    def sample_control(self, rng: np.random.Generator) -> dict[str, int]:
        """The benchmark's control sampler (see the module docstring), from `rng`."""
        while True:
            drawn = {t: int(rng.integers(0, self.blocks)) for t in TYPES}
            total = sum(drawn.values())
            if total:
                break
        control = {t: int(v / total * self.blocks) for t, v in drawn.items()}
        control[TYPES[int(rng.integers(0, len(TYPES)))]] += self.blocks - sum(control.values())
        return control

    def goal(self) -> str:
        return (
            f"A good building uses all {self.blocks} drops: every piece must land inside the "
            f"{self.width}x{self.length}x{self.height} space (a piece dropped on a column that is already "
            f"{self.height} high is lost). Every column top must also be higher than {self.checked_levels} "
            f"cells: a stack of pieces that ends at height {self.checked_levels} or lower, anywhere, costs "
            f"quality. The control asks how many pieces of each type (1x1, 1x3, 3x1, 3x3) to use, each "
            f"within {self.cerror}."
        )


@lru_cache(maxsize=4096)
def _oriented(drops: tuple[tuple[int, int, int], ...], width: int, length: int, height: int) -> np.ndarray:
    lvl = simulate([{"x": x, "y": y, "type": t} for x, y, t in drops], width, length, height)[0]
    return np.stack([orient((lvl == t + 1).astype(int)) for t in range(len(TYPES))])


def piles(width: int, length: int, blocks: int) -> list[dict[str, int]]:
    """3x3 pieces dealt in turn onto the disjoint squares at x, y = 0, 4, 8, ...: a feasible building when every
    pile fits the height and stands above the checked levels (building-v0: 4 piles of 10; -tall-v0: 4 of 20)."""
    squares = [(x, y) for y in range(0, length - 2, 4) for x in range(0, width - 2, 4)]
    return [{"x": squares[i % len(squares)][0], "y": squares[i % len(squares)][1], "type": 3} for i in range(blocks)]


def make(name: str, width: int = 7, length: int = 7, height: int = 12, blocks: int | None = None) -> BenchProblem:
    """A building variant (the benchmark's kwargs `width`, `length`, `height`, `blocks`)."""
    if blocks is None:
        raise ValueError(f"{name}: blocks must be given (the benchmark's default W·L·H/9 is a float)")
    b = Building(width, length, height, blocks)
    example = piles(width, length, blocks)
    feasible = b.quality(b.info(example)) >= 1
    return BenchProblem(
        name=name,
        content=BlocksKind(width, length, height, blocks),
        control_space=dict.fromkeys(TYPES, (0, blocks)),
        info=b.info,
        quality=b.quality,
        controllability=b.controllability,
        diversity=b.diversity,
        goal=b.goal(),
        examples=(example,) if feasible else (),
        sample_control=b.sample_control,
    )
