"""A rows×cols grid of tile codes as a `ContentKind` (stand-in until the framework's grid kind lands)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.content import check_grid, sample_grid


@dataclass(frozen=True)
class IntGrid:
    """Strict shape and alphabet check; uniform row-major sampling (the benchmark's ArraySpace order)."""

    rows: int
    cols: int
    legend: tuple[str, ...]
    kind: str = "grid"

    def check(self, content: Any) -> str | None:
        return check_grid(content, self.rows, self.cols, len(self.legend))

    def sample(self, rng: np.random.Generator) -> Any:
        return sample_grid(rng, self.rows, self.cols, len(self.legend))
