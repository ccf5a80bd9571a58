"""Super Mario Bros levels of the PCG Benchmark (smb, smbtile; pcg_benchmark 00b96f5): the level string and
every measure that needs no play-through.

An smb content is W slice ids (columns of `data/smb/slices.txt`); an smbtile content is 16 rows of W tile
indices into `SYMBOLS`. Both become the same 16-row level string: three padding columns each side (slice 0 for
smb; `-`, with `X` in the bottom two rows, for smbtile), Mario `M` at column 1 and the flag `F` at column W+4,
both on row 13. The static measures (odd tube runs, per-row noise above its cap, empty share, floating
enemies) decide whether the benchmark plays the level at all (`passes_gate`); quality, controllability and
diversity are the benchmark's formulas over an info.

Kept from the reference: a level without any enemy divides by zero in its floating-enemy share and the
benchmark dies with ZeroDivisionError; here `floating_enemies` raises `NoEnemies`, which callers name as an
invalid content. The diversity map clamps every position to tile column 15 whatever the width (the
benchmark's bug), and two infos of different widths cannot be compared (numpy cannot subtract the maps).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from pcg_plugin.errors import NoEnemies
from pcg_plugin.problems.pcgbench.bench.reward import range_reward

DATA = Path(__file__).parent / "data"
HEIGHT = 16  # rows of a level (the slices' length; smbtile's default height)
PAD = 3  # padding columns on each side of the content
SYMBOLS = ("-", "X", "#", "S", "Q", "t", "o", "g", "k", "y")  # smbtile's tile indices 0..9
ENEMIES = frozenset("ykgr")
SOLID = frozenset("X#tSQ")
EMPTY_MIN, FLOATING_MAX, DIVERSITY = 0.5, 0.1, 0.4  # the variants' defaults (no variant changes them)
CONTROLS = ("enemies", "jumps", "coins")
STATIC_FIELDS = ("tube", "noise", "empty", "fenemies")


@lru_cache(maxsize=1)
def slices() -> tuple[str, ...]:
    """The 126 slices: each a 16-character column, top row first (blank lines are skipped, as the benchmark does)."""
    return tuple(s for s in (line.strip() for line in (DATA / "slices.txt").read_text().splitlines()) if s)


@lru_cache(maxsize=1)
def noise_caps() -> tuple[float, ...]:
    """Per row, the share of horizontal tile changes the gate tolerates."""
    return tuple(float(v) for v in (DATA / "noise.txt").read_text().strip().split(","))


def slice_level(content: Sequence[int]) -> list[str]:
    """The 16 rows of an smb level: slice 0 three times, the content's slices, slice 0 three times, then M and F."""
    cols = [0] * PAD + [int(v) for v in content] + [0] * PAD
    table = slices()
    return _mark([[table[c][y] for c in cols] for y in range(HEIGHT)])


def tile_level(grid: Sequence[Sequence[int]]) -> list[str]:
    """The rows of an smbtile level: `-` padding (floor `X` in its two bottom rows), then M and F."""
    height = len(grid)
    rows = []
    for y, row in enumerate(grid):
        pad = ["X" if y > height - 3 else "-"] * PAD
        rows.append(pad + [SYMBOLS[int(v)] for v in row] + pad)
    return _mark(rows)


def _mark(rows: list[list[str]]) -> list[str]:
    y = len(rows) - 3
    rows[y][1] = "M"
    rows[y][len(rows[y]) - 2] = "F"
    return ["".join(r) for r in rows]


def tube_issues(rows: Sequence[str]) -> int:
    """Runs of `t` of odd length (a pipe is two tiles wide), counted when a non-`t` tile ends them."""
    issues = 0
    for row in rows:
        run = 0
        for ch in row:
            if ch == "t":
                run += 1
            else:
                issues += run % 2
                run = 0
    return issues


def row_noise(rows: Sequence[str]) -> list[float]:
    """Per row, the share of neighbouring tiles that differ, less the row's cap, clipped at 0."""
    out = []
    for row, cap in zip(rows, noise_caps(), strict=True):
        changes = sum(a != b for a, b in pairwise(row))
        out.append(max(changes / (len(row) - 1) - cap, 0.0))
    return out


def floating_enemies(rows: Sequence[str], bottom_floats: bool) -> float:
    """The share of enemy tiles with no solid tile below (column by column, as the benchmark counts). An enemy
    in the bottom row floats in smbtile (`bottom_floats`); no slice puts one there."""
    total = floating = 0
    for x in range(len(rows[0])):
        for y, row in enumerate(rows):
            if row[x] in ENEMIES:
                total += 1
                if (bottom_floats and y + 1 == len(rows)) or rows[y + 1][x] not in SOLID:
                    floating += 1
    if total == 0:
        raise NoEnemies("no enemy in the level: its floating-enemy share is 0/0")
    return floating / total


def static_info(rows: Sequence[str], empty: float, width: int, bottom_floats: bool) -> dict[str, Any]:
    """The info fields that need no play-through, and zeros for the play-through's (what the benchmark returns
    for a level that fails the gate)."""
    return {
        "width": width,
        "tube": tube_issues(rows),
        "noise": row_noise(rows),
        "empty": empty,
        "fenemies": floating_enemies(rows, bottom_floats),
        "complete": 0.0,
        "enemies": 0.0,
        "coins": 0.0,
        "jumps": 0.0,
        "actions": [],
        "locations": [],
    }


def smb_empty(content: Sequence[int]) -> float:
    return sum(int(v) == 0 for v in content) / len(content)


def tile_empty(grid: Sequence[Sequence[int]]) -> float:
    return sum(int(v) == 0 for row in grid for v in row) / (len(grid[0]) * len(grid))


def passes_gate(info: Mapping[str, Any]) -> bool:
    """The benchmark plays a level only when it is mostly empty, its pipes pair up, no row is noisier than its
    cap and few enemies float."""
    return (
        info["empty"] > EMPTY_MIN and info["tube"] == 0 and not any(info["noise"]) and info["fenemies"] < FLOATING_MAX
    )


def quality(info: Mapping[str, Any]) -> float:
    """(tube + empty + noise + floating + 4·complete) / 8; the noise term counts only for an empty-enough level
    without tube issues, and is divided by 16 whatever the height."""
    tube = range_reward(info["tube"], 0, 0, 0, 10)
    empty = range_reward(info["empty"], 0, EMPTY_MIN, 1)
    floating = range_reward(info["fenemies"], 0, 0, FLOATING_MAX, 1)
    noise: float = 0
    if empty >= 1 and tube >= 1:
        for n in info["noise"]:
            noise += range_reward(n, 0, 0, 0, 1)
    noise /= 16
    return float((tube + empty + noise + floating + 4 * info["complete"]) / 8.0)


def control_errors(width: int) -> dict[str, int]:
    """A tenth of each control's upper bound, truncated: the tolerance around the asked count."""
    return {k: int(0.1 * hi) for k, (_lo, hi) in control_space(width).items()}


def control_space(width: int) -> dict[str, tuple[int, int]]:
    """Kills, jumps and coins asked for, each in [0, hi)."""
    return {
        "enemies": (0, max(2, int(width / 7))),
        "jumps": (0, max(2, int(width / 5))),
        "coins": (0, max(2, int(width / 10))),
    }


def controllability(info: Mapping[str, Any], control: Mapping[str, Any], width: int) -> float:
    errors = control_errors(width)
    parts = [
        range_reward(info[k], 0, max(0, int(control[k]) - errors[k]), int(control[k]) + errors[k], 100)
        for k in CONTROLS
    ]
    return float((parts[0] + parts[1] + parts[2]) / 3.0)


def visit_map(info: Mapping[str, Any], height: int) -> list[list[int]]:
    """Mario's visits per tile, every position clamped into the first 16 columns and rows (the benchmark's bug)."""
    grid = [[0] * info["width"] for _ in range(height)]
    for x, y in info["locations"]:
        grid[max(0, min(15, int(y / 16)))][max(0, min(15, int(x / 16)))] += 1
    return grid


def diversity(a: Mapping[str, Any], b: Mapping[str, Any], height: int = HEIGHT) -> float:
    """R(L1 distance of the two visit maps / all visits; 0, 0.4, 1); 0 when neither level was played."""
    total = len(a["locations"]) + len(b["locations"])
    if total == 0:
        return 0.0
    if a["width"] != b["width"]:
        raise ValueError(f"levels of widths {a['width']} and {b['width']} cannot be compared")
    ma, mb = visit_map(a, height), visit_map(b, height)
    dist = sum(abs(p - q) for ra, rb in zip(ma, mb, strict=True) for p, q in zip(ra, rb, strict=True))
    return float(range_reward(dist / total, 0, DIVERSITY, 1.0))
