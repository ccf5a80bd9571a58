"""What every PCG Benchmark variant provides: the benchmark's four functions over one kind of content.

A variant (`zelda-large-v0`, `building-tall-v0`, `elimination-v0`, ...) is one `BenchProblem`: a content kind
(how its content is checked and sampled in the benchmark's plain-JSON form), a control space, and the
benchmark's `info` / `quality` / `controllability` / `diversity`, pure functions pinned to pcg_benchmark
00b96f5. Problem modules build variants from the registry's keyword arguments (`make(name, **kwargs)`); the
harness, the `pcg pcgbench` commands and the random baseline only ever see this record, so adding a variant is
a registry line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

Info = dict[str, Any]
Control = Mapping[str, int]
ControlSpace = Mapping[str, tuple[int, int]]  # key -> [low, high), as the benchmark's IntegerSpace draws


@runtime_checkable
class ContentKind(Protocol):
    """One form of content (a tile grid, block drops, letters, a floor plan) at one variant's size.

    `check` is strict where the benchmark is lax (a competition cannot score a content the benchmark would
    silently crop or crash on): None, or the named reason the content is invalid ("wrong shape: ...").
    `sample` draws a uniform content in plain JSON form (lists, dicts, ints), in the benchmark's draw order.
    """

    kind: str

    def check(self, content: Any) -> str | None: ...

    def sample(self, rng: np.random.Generator) -> Any: ...


@dataclass(frozen=True)
class BenchProblem:
    """One registered variant: its content kind, control space and the benchmark's per-item and pair functions.

    `info` computes once what the other three need (the benchmark's caching contract); `quality` and
    `controllability` are in [0, 1]; `diversity` is the pairwise value the set greedy consumes. `sample_control`
    replaces the uniform per-key draw where the benchmark has its own control sampler (building normalises its
    block counts).
    """

    name: str
    content: ContentKind
    control_space: ControlSpace
    info: Callable[[Any], Info]
    quality: Callable[[Info], float]
    controllability: Callable[[Info, Control], float]
    diversity: Callable[[Info, Info], float]
    sample_control: Callable[[np.random.Generator], dict[str, int]] | None = None
