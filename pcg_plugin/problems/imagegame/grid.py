"""Grids as clembench writes them: rows joined by "\\n", cells joined by one space, "▢" for an empty cell.

Everything here reads a grid the way clembench 2.0.0's evaluator does (``strip()`` the text, split rows on
"\\n" and cells on " ", the first row's width stands for the grid's width), so a grid the follower wrote with a tab
or a short row behaves here exactly as it did there.
"""

from __future__ import annotations

EMPTY = "▢"


def empty_grid(dimension: int) -> str:
    """The all-empty grid a drawing starts from (clembench's "previous grid" before the first turn)."""
    return "\n".join(" ".join([EMPTY] * dimension) for _ in range(dimension))


def rows(grid: str) -> list[list[str]]:
    """The cells of each row: ``strip()``, split on "\\n", then on single spaces (no other whitespace)."""
    return [row.split(" ") for row in grid.strip().split("\n")]


def size(grid: str) -> tuple[int, int]:
    """(row count, cell count of the first row): the only shape clembench compares before scoring a drawing."""
    cells = rows(grid)
    return len(cells), len(cells[0])


def filled_count(grid: str) -> int:
    """How many cells are not empty."""
    return sum(cell != EMPTY for row in rows(grid) for cell in row)


def from_cells(cells: list[list[str]]) -> str:
    """The text of a grid given its cells (no leading or trailing newline, as the v2.0 instances store it)."""
    return "\n".join(" ".join(row) for row in cells)
