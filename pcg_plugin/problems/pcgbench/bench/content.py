"""Content checks and seeded sampling shared by the grid problems.

The benchmark's own check (`isSampled`) looks only at the variant's rows × columns: it accepts extra rows and
columns, which its evaluation then reads (`numpy.array(content)`). A variant whose evaluation scores them (zelda,
sokoban) accepts them here too (`extra`); the others give a named zero, because the benchmark fails on them
(its evaluation, or its diversity against a level of the variant's size). Cells must be Python ints of the
alphabet everywhere, extra ones included (the benchmark's check would take "3" or 2.7 and then compute on them),
and rows of different lengths are refused (the benchmark cannot make an array of them). Sampling follows the
benchmark's spaces so a seed means the same thing: the content is one scalar draw per cell in row-major order
from a single RNG (`content_rng` derives it from `env.seed(seed)` the way the benchmark does); a dictionary
control draws a sub-seed per key (in key order) from `default_rng(seed)` and samples each key from its own RNG.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.bench.problem import ControlSpace

Grid = list[list[int]]


def check_grid(
    content: Any,
    rows: int,
    cols: int,
    alphabet: int,
    extra: bool = False,
    no_extra: str = "its evaluation fails on them",
) -> str | None:
    """None when `content` is a rows×cols list of ints in [0, alphabet) (at least rows×cols, all rows of one
    length, with `extra`); else the named reason (`no_extra`: why the benchmark cannot score a larger grid)."""
    if not isinstance(content, Sequence) or isinstance(content, str | bytes):
        return "not a grid: expected a list of rows"
    if len(content) < rows or (len(content) > rows and not extra):
        more = "" if len(content) < rows else f" (the benchmark's space takes extra rows, but {no_extra})"
        return f"wrong shape: {len(content)} rows, expected {rows}{more}"
    for y, row in enumerate(content):
        if not isinstance(row, Sequence) or isinstance(row, str | bytes):
            return f"not a grid: row {y} is not a list"
        if len(row) < cols or (len(row) > cols and not extra):
            more = "" if len(row) < cols else f" (the benchmark's space takes extra columns, but {no_extra})"
            return f"wrong shape: row {y} has {len(row)} cells, expected {cols}{more}"
        if len(row) != len(content[0]):
            return (
                f"wrong shape: row {y} has {len(row)} cells, row 0 {len(content[0])}: rows of different "
                "lengths (the benchmark cannot make an array of them)"
            )
        for x, v in enumerate(row):
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 0 <= v < alphabet:
                return f"wrong alphabet: cell ({x}, {y}) is {v!r}, expected an integer 0..{alphabet - 1}"
    return None


def content_rng(seed: int, rows: int, cols: int) -> np.random.Generator:
    """The RNG the benchmark's content space samples from after `env.seed(seed)`.

    Its array space holds one shared cell space; seeding walks the nested lists, drawing a sub-seed per row
    from `default_rng(seed)` and, from each row's `default_rng(sub-seed)`, a sub-seed per cell that re-seeds
    the shared cell space. The last cell's seed is the one that stays.
    """
    master = np.random.default_rng(seed)
    row_seeds = [int(master.integers(2**31)) for _ in range(rows)]
    row_rng = np.random.default_rng(row_seeds[-1])
    cell_seeds = [int(row_rng.integers(2**31)) for _ in range(cols)]
    return np.random.default_rng(cell_seeds[-1])


def sample_grid(rng: np.random.Generator, rows: int, cols: int, alphabet: int) -> Grid:
    """A uniform grid, one scalar draw per cell in row-major order (the benchmark's ArraySpace order)."""
    return [[int(rng.integers(0, alphabet)) for _ in range(cols)] for _ in range(rows)]


def control_rngs(seed: int | None, space: ControlSpace) -> dict[str, np.random.Generator]:
    """One RNG per control key, seeded like the benchmark's DictionarySpace (sub-seeds drawn in key order)."""
    master = np.random.default_rng(seed)
    return {key: np.random.default_rng(int(master.integers(2**31))) for key in space}


def sample_control(rngs: Mapping[str, np.random.Generator], space: ControlSpace) -> dict[str, int]:
    """One control dict: each key drawn uniformly from its [low, high) with its own RNG."""
    return {key: int(rngs[key].integers(lo, hi)) for key, (lo, hi) in space.items()}
