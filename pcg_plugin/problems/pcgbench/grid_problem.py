"""What every PCG Benchmark grid problem provides, as one record of pure functions and constants."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pcg_plugin.problems.pcgbench.content import ControlSpace, Grid

Info = dict[str, Any]


@dataclass(frozen=True)
class GridProblem:
    """A benchmark problem on a rows×cols grid of tile codes 0..len(legend)-1.

    `info` computes everything the other three need once (the benchmark's caching contract); `quality` and
    `controllability` are per item in [0, 1]; `diversity` is the pairwise value the set greedy consumes.
    """

    name: str
    rows: int
    cols: int
    legend: tuple[str, ...]
    control_space: ControlSpace
    info: Callable[[Grid], Info]
    quality: Callable[[Info], float]
    controllability: Callable[[Info, Mapping[str, int]], float]
    diversity: Callable[[Info, Info], float]

    @property
    def alphabet(self) -> int:
        return len(self.legend)
