"""The content and control draws of the benchmark's environment after `env.seed(seed)`, so a seed means what it
means to the reference experiment (`run.py --seed S` seeds the env, then the generator draws from its spaces).

The benchmark's spaces are trees whose leaves are integer spaces; seeding gives *every leaf* its own
`default_rng(seed)`, the same seed for each. A leaf shared by an array (a grid's one cell space) is one stream read
cell after cell; leaves of a dictionary are separate streams that draw equal values for equal ranges. Quirks that
follow, kept in `reference` mode: a seeded building drop has x = y when width = length (and its control is always
the four equal counts blocks / 4); isaac's start, boss, shop and treasure are one room; zelda's two control keys
are equal. Building's control sampler divides by the sum of its four draws, which the reference cannot do when
that draw is 0 (it raises); here the draw is taken again. Arcade's control sampler is unseeded in the reference
(its runs cannot be repeated); here it draws the harness's connected map from a seeded stream.

`uniform` mode is the harness's own draw of the same spaces (one stream for contents, the kind's `sample`; one
for controls): every leaf independent, as the reference's unseeded runs draw. For the variants whose content is
one shared leaf (the tile grids, letters, slices, spawner rows) both modes draw the same contents.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.bench.blocks_kind import TYPES
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control

MODES = ("reference", "uniform")


class LeafStreams:
    """Stands in for a numpy Generator in a kind's `sample`: the k-th draw of each sample goes to the stream of
    leaf `leaves[k]` (the draws of one sample follow the content's fixed layout)."""

    def __init__(self, leaves: Sequence[int], seed: int) -> None:
        self.leaves = list(leaves)
        self.streams = {leaf: np.random.default_rng(seed) for leaf in set(self.leaves)}
        self.k = 0

    def integers(self, low: int, high: int) -> Any:
        leaf = self.leaves[self.k % len(self.leaves)]
        self.k += 1
        return self.streams[leaf].integers(low, high)


def content_leaves(problem: BenchProblem) -> list[int] | None:
    """Which leaf of the benchmark's content space each draw of `problem.content.sample` reads (None: one leaf)."""
    kind = problem.content
    if kind.kind == "blocks":  # array of one {x, y, type} dictionary: three leaves shared by every drop
        return [0, 1, 2] * kind.count  # type: ignore[attr-defined]
    if kind.kind == "floor plan":  # {layout: array of one leaf, start, boss, shop, treasure}
        return [0] * kind.cells + [1, 2, 3, 4]  # type: ignore[attr-defined]
    if kind.kind == "rule set":
        return rule_set_leaves()
    return None


def rule_set_leaves() -> list[int]:
    """Arcade's dictionary: x, y, seed, win; per colour its behaviour leaf and a start {num, x[4], y[4]} whose x
    and y arrays each share one leaf; per rule {action, score}; in the kind's draw order."""
    from pcg_plugin.problems.pcgbench.games.arcade.problem import COLOURS, RULE_KEYS, STARTS

    sizes = [1, 1, 1, 1] + [1, 1, STARTS, STARTS] * len(COLOURS) + [1, 1] * len(RULE_KEYS)
    return [leaf for leaf, size in enumerate(sizes) for _ in range(size)]


class EnvSpaces:
    """`content()` and `control()` (the benchmark's own JSON) drawn as the env draws them after `env.seed(seed)`
    (`mode="reference"`), or by the harness's uniform draw (`mode="uniform"`)."""

    def __init__(self, problem: BenchProblem, seed: int, mode: str = "reference") -> None:
        if mode not in MODES:
            raise ValueError(f"spaces mode {mode!r}: expected one of {', '.join(MODES)}")
        self.problem = problem
        leaves = content_leaves(problem) if mode == "reference" else None
        self._content_rng: Any = np.random.default_rng(seed) if leaves is None else LeafStreams(leaves, seed)
        self.content: Callable[[], Any] = lambda: problem.content.sample(self._content_rng)
        self.control: Callable[[], Control] = (
            self._reference_control(seed) if mode == "reference" else self._uniform_control(seed)
        )

    def _uniform_control(self, seed: int) -> Callable[[], Control]:
        rng = np.random.default_rng([seed, 1])
        p = self.problem
        if p.sample_control is not None:
            return lambda: p.native_control(p.sample_control(rng))  # type: ignore[misc]
        return lambda: p.native_control({k: int(rng.integers(lo, hi)) for k, (lo, hi) in p.control_space.items()})

    def _reference_control(self, seed: int) -> Callable[[], Control]:
        p = self.problem
        if p.content.kind == "blocks":
            return building_control(p, seed)
        if p.content.kind in ("rule set", "spawner rows"):  # arcade: unseeded there; talakat: one shared leaf
            rng = np.random.default_rng(seed)
            return lambda: p.native_control(p.sample_control(rng))  # type: ignore[misc]
        streams = {key: np.random.default_rng(seed) for key in p.control_space}  # one leaf per key
        return lambda: p.native_control(
            {k: int(streams[k].integers(lo, hi)) for k, (lo, hi) in p.control_space.items()}
        )


def building_control(problem: BenchProblem, seed: int) -> Callable[[], Control]:
    """The benchmark's building control: four leaves drawn (equal when seeded), scaled to sum to `blocks`, the
    rounding remainder added to a type its unseeded generator picks (none is left when the draws are equal)."""
    blocks = problem.content.count  # type: ignore[attr-defined]
    streams = [np.random.default_rng(seed) for _ in TYPES]
    pick = np.random.default_rng([seed, 2])

    def draw() -> dict[str, int]:
        while True:
            values = [int(s.integers(0, blocks)) for s in streams]
            if sum(values):  # the reference raises on a zero sum (0/0 is NaN); draw again
                break
        control = {t: int(v / sum(values) * blocks) for t, v in zip(TYPES, values, strict=True)}
        control[TYPES[int(pick.integers(0, len(TYPES)))]] += blocks - sum(control.values())
        return control

    return draw
