"""The official drop grid: 20x16 cells, b11/b31/b13 footprints, Tetris-style drop, errors, horizontal shift."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pcg_plugin.errors import ConversionError

GRID_WIDTH = 20
GRID_HEIGHT = 16
TOP_ROW = GRID_HEIGHT - 1
BLOCK_TYPES = ("b31", "b13", "b11")  # the converter's enum

HEIGHT_ERROR = "Height boundary is intruded."
WIDTH_ERROR = "Width boundary is intruded."
TYPE_ERROR = "BlockType does not exist."


@dataclass(frozen=True)
class GridBlock:
    """One placed block: ``col`` is the centre column after the shift, ``raw_col`` before it; ``row`` the bottom."""

    type: str
    col: int
    row: int
    raw_col: int


@dataclass(frozen=True)
class GridLevel:
    """The placed blocks in drop order plus the final occupancy grid (rows bottom-up, unshifted)."""

    blocks: tuple[GridBlock, ...]
    cells: tuple[tuple[int, ...], ...]

    @property
    def top_row(self) -> int:
        """Index of the highest non-empty row; an empty grid counts as row 0 (as the official camera does)."""
        rows = [r for r, row in enumerate(self.cells) if any(row)]
        return max(rows) if rows else 0

    @property
    def max_row_fill(self) -> int:
        return max((sum(row) for row in self.cells), default=0)


def _js_substring(text: str, start: int, end: int) -> str:
    """JavaScript ``String.prototype.substring``: negatives clamp to 0 and the bounds swap if reversed."""
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    if start > end:
        start, end = end, start
    return text[start:end]


def _js_parse_int(text: str) -> float:
    """JavaScript ``parseInt(text)`` without radix (NaN as float nan)."""
    s = text.lstrip(" \t\n\r\v\f\u00a0\ufeff")
    sign = 1
    if s[:1] in "+-" and s:
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    base, digits = 10, "0123456789"
    if s[:2].lower() == "0x":
        base, digits, s = 16, "0123456789abcdef", s[2:]
    n = 0
    for i, ch in enumerate(s.lower()):
        if ch not in digits:
            s = s[:i]
            break
        n = n * base + digits.index(ch)
    return float("nan") if not s else sign * n


def parse_line(line: str, prefix: str = "drop_block") -> tuple[str, float] | None:
    """(block type, slot) as the converter reads one lowercased line; None when the line is skipped."""
    head = prefix + "("
    if not line.startswith(head):
        return None
    comma = line.find(",")
    name = _js_substring(line, len(head) + 1, comma - 1).upper()
    if name not in ("B31", "B13", "B11"):
        raise ConversionError(TYPE_ERROR)
    close = line.find(")", comma + 1) if comma >= 0 else -1
    slot = _js_parse_int(_js_substring(line, comma + 1, close).strip())
    return name.lower(), slot


def _cell(grid: list[list[int]], row: int, col: float) -> int | None:
    """grid[row][col] with JavaScript's ``undefined`` (None) for anything outside the array."""
    if math.isnan(col) or col != int(col) or not 0 <= col < GRID_WIDTH or not 0 <= row < GRID_HEIGHT:
        return None
    return grid[row][int(col)]


def drop_blocks(code: str, prefix: str = "drop_block") -> GridLevel:
    """Drop every call of the extracted code onto the grid; any official error aborts the whole level."""
    grid = [[0] * GRID_WIDTH for _ in range(GRID_HEIGHT)]
    placed: list[tuple[str, int, int]] = []
    for line in code.lower().split("\n"):
        parsed = parse_line(line, prefix)
        if parsed is None:
            continue
        kind, x = parsed
        if _cell(grid, TOP_ROW, x) != 0:
            raise ConversionError(HEIGHT_ERROR)
        col = int(x)
        y = TOP_ROW
        for row in range(TOP_ROW, -1, -1):
            if grid[row][col] != 0:
                break
            if kind == "b31":
                if col - 1 < 0 or col + 1 > GRID_WIDTH - 1:
                    raise ConversionError(WIDTH_ERROR)
                if grid[row][col - 1] != 0 or grid[row][col + 1] != 0:
                    break
            y = row
        grid[y][col] = 1
        if kind == "b31":
            grid[y][col - 1] = grid[y][col + 1] = 1
        elif kind == "b13":
            if y + 2 > TOP_ROW:
                raise ConversionError(HEIGHT_ERROR)
            grid[y + 1][col] = grid[y + 2][col] = 1
        placed.append((kind, col, y))
    used = [c for c in range(GRID_WIDTH) if any(grid[r][c] for r in range(GRID_HEIGHT))]
    shift = min(used) if used else 0
    blocks = tuple(GridBlock(kind, col - shift, row, col) for kind, col, row in placed)
    return GridLevel(blocks, tuple(tuple(r) for r in grid))
