"""Lode Runner's reachability play, its run histograms and Jensen–Shannon distance (both Lode Runner problems).

Pinned to pcg_benchmark 00b96f5 `probs/loderunner/utils.py` and `probs/utils.py` (the histograms):
- `play` is a breadth-first search over (x, y, falling) states from the first player tile; each visited state
  writes its value into the exploration map (4 falling, 3 on a rope, 2 on a ladder, 1 otherwise) and the last
  write wins, so a cell visited both standing and falling keeps whichever was visited later;
- a player can climb only from a ladder (up or down) or drop from a rope (down): standing above a ladder,
  it cannot climb down;
- the histograms are not run-length histograms: per row (column), every non-member cell after the first member
  cell adds one at its distance from that first member;
- the JS distance sums log₂ terms only where both entries are positive; an all-zero histogram gives √½.
Levels are lists of rows of tile codes: 0 solid, 1 empty, 2 player, 3 gold, 4 enemy, 5 ladder, 6 rope.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from functools import cache
from math import log2, sqrt
from pathlib import Path

SOLID, EMPTY, PLAYER, GOLD, ENEMY, LADDER, ROPE = range(7)
WALK, CLIMB, HANG, FALL = 1, 2, 3, 4  # exploration values
ACTIONS = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))
DATA = Path(__file__).parent / "data"

Level = Sequence[Sequence[int]]


def read_level(path: Path) -> list[list[int]]:
    """A level file: one row of digits per non-blank line."""
    return [[int(c) for c in line.strip()] for line in path.read_text(encoding="ascii").splitlines() if line.strip()]


def _falls(level: Level, x: int, y: int) -> bool:
    """An empty cell above a cell that is neither solid nor a ladder (and not on the last row) makes one fall."""
    return y < len(level) - 1 and level[y][x] == EMPTY and level[y + 1][x] not in (SOLID, LADDER)


def _step(level: Level, x: int, y: int, falling: bool, dx: int, dy: int) -> tuple[int, int, bool]:
    """One action: a falling player drops a row whatever the input; else climb/drop, then move sideways."""
    height, width = len(level), len(level[0])
    if falling:
        y += 1
    else:
        if dy:
            ny = min(max(y + dy, 0), height - 1)
            if level[ny][x] != SOLID and (level[y][x] == LADDER or (level[y][x] == ROPE and dy > 0)):
                y = ny
        if dx:
            nx = min(max(x + dx, 0), width - 1)
            if level[y][nx] != SOLID:
                x = nx
    return x, y, _falls(level, x, y)


def play(level: Level) -> list[list[int]]:
    """The exploration map of a breadth-first play from the first player tile (all 0 without a player)."""
    height, width = len(level), len(level[0])
    explored = [[0] * width for _ in range(height)]
    start = next(((x, y) for y, row in enumerate(level) for x, v in enumerate(row) if v == PLAYER), None)
    if start is None:
        return explored
    grid = [[EMPTY if v in (PLAYER, GOLD, ENEMY) else v for v in row] for row in level]
    first = (*start, _falls(grid, *start))
    seen, queue = {first}, deque([first])
    while queue:
        x, y, falling = queue.popleft()
        tile = grid[y][x]
        explored[y][x] = FALL if falling else HANG if tile == ROPE else CLIMB if tile == LADDER else WALK
        for dx, dy in ACTIONS:
            nxt = _step(grid, x, y, falling, dx, dy)
            if nxt not in seen:  # same visiting order as the benchmark's check-on-pop queue
                seen.add(nxt)
                queue.append(nxt)
    return explored


def horizontal_histogram(grid: Level, value: int) -> list[int]:
    """Per row, each non-`value` cell after the row's first `value` cell counts at its distance from it."""
    hist = [0] * len(grid[0])
    for row in grid:
        start = -1
        for j, v in enumerate(row):
            if v == value:
                if start < 0:
                    start = j
            elif start >= 0:
                hist[j - start] += 1
    return hist


def vertical_histogram(grid: Level, value: int) -> list[int]:
    """`horizontal_histogram` over the columns."""
    return horizontal_histogram([list(col) for col in zip(*grid, strict=True)], value)


def normalised(hist: Sequence[float], floor: float = 1) -> list[float]:
    """hist / max(floor, sum(hist))."""
    total = max(floor, sum(hist))
    return [h / total for h in hist]


def _kl(p: Sequence[float], q: Sequence[float]) -> float:
    return sum(p[i] * log2(p[i] / q[i]) for i in range(len(p)) if p[i] > 0 and q[i] > 0)


def js_distance(p: Sequence[float], q: Sequence[float]) -> float:
    """√(½KL(p‖m) + ½KL(q‖m)), m = (p + q)/2, in bits."""
    m = [0.5 * (a + b) for a, b in zip(p, q, strict=True)]
    return sqrt(0.5 * _kl(p, m) + 0.5 * _kl(q, m))


PLAY_HISTOGRAMS = {
    "walking": (horizontal_histogram, WALK),
    "hanging": (horizontal_histogram, HANG),
    "climbing": (vertical_histogram, CLIMB),
    "falling": (vertical_histogram, FALL),
}


def play_histograms(explored: Level) -> dict[str, list[int]]:
    """The four movement histograms of an exploration map."""
    return {name: hist(explored, value) for name, (hist, value) in PLAY_HISTOGRAMS.items()}


@cache
def reference_histograms() -> dict[str, tuple[float, ...]]:
    """The four histograms of the five original levels' plays, summed and normalised to sum 1."""
    totals: dict[str, list[int]] | None = None
    for path in sorted(DATA.glob("levels/level_*.txt")):
        hists = play_histograms(play(read_level(path)))
        # The original levels share one size, so each histogram has as many bins in every level.
        totals = (
            hists
            if totals is None
            else {k: [a + b for a, b in zip(totals[k], v, strict=True)] for k, v in hists.items()}
        )
    assert totals is not None, f"no Lode Runner levels under {DATA}"
    return {k: tuple(h / sum(v) for h in v) for k, v in totals.items()}
