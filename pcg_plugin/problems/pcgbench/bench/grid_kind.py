"""Tile grids, the content of binary, sokoban, zelda (and ddave, mdungeons, loderunner): one `GridKind` per size.

Content: `rows` lists of `cols` ints, the codes of `legend` (the benchmark's `ArraySpace` of `IntegerSpace`s).
A reply holds the grid in its last fenced block, as rows of codes (digits side by side when every code is one
digit, else separated by spaces or commas) or as a JSON list of lists (`parse.py`). Prompt placeholders:
`<WIDTH>` / `<HEIGHT>` (columns / rows) and `<LEGEND>` (one `code = tile` line per tile). The report draws each
tile as a coloured square; `COLOURS` names a colour per tile name, and a tile name it lacks gets one from
`PALETTE` by code (or, in a legend longer than the palette, a hue of its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.bench.content import Grid, check_grid, sample_grid
from pcg_plugin.problems.pcgbench.bench.parse import parse_grid

TILE = 10  # pixels per tile in the report
COLOURS = {
    "solid": "#3b3b3b",
    "wall": "#3b3b3b",
    "empty": "#f4f4f4",
    "player": "#1f77d4",
    "crate": "#c8842c",
    "target": "#e0413c",
    "key": "#f2c200",
    "door": "#7a4a1e",
    "enemy": "#9c27b0",
    "gold": "#f2c200",
    "ladder": "#8d6e63",
    "rope": "#c8a96e",
    "exit": "#7a4a1e",
    "potion": "#e0413c",
    "treasure": "#f2c200",
    "goblin": "#59a14f",
    "ogre": "#9c27b0",
    "diamond": "#17becf",
    "spike": "#b0b0b0",
}
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
REASONS = {
    "no_block": "the reply has no fenced block (```...```)",
    "not_a_grid": "the last fenced block is empty, holds a line that is not codes (or a number of more than 100 "
    "digits), or JSON that is not a list of lists of integers",
    "wrong_shape": "the grid has fewer rows or cells in a row than the variant's size, more where the benchmark "
    "cannot score more, or rows of different lengths",
    "wrong_alphabet": "a cell is not one of the problem's tile codes",
}


@dataclass(frozen=True)
class GridKind:
    """A rows×cols grid of tile codes 0..len(legend)-1 (see the module docstring)."""

    rows: int
    cols: int
    legend: tuple[str, ...]
    # Extra rows and columns, which the benchmark's space accepts: scored (zelda, sokoban: its evaluation reads
    # the whole grid), else a named zero saying why the benchmark cannot score them (`no_extra`).
    extra: bool = False
    no_extra: str = "its evaluation fails on them"
    kind: str = "grid"
    placeholders: tuple[str, ...] = ("<WIDTH>", "<HEIGHT>", "<LEGEND>")
    reasons: Any = None  # set in __post_init__ (a dict is not a valid dataclass default)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reasons", REASONS)

    @property
    def alphabet(self) -> int:
        return len(self.legend)

    @property
    def wide_codes(self) -> bool:
        """Codes of two or more digits: a row is written with spaces between its codes."""
        return self.alphabet > 10

    def check(self, content: Any) -> str | None:
        return check_grid(content, self.rows, self.cols, self.alphabet, self.extra, self.no_extra)

    def sample(self, rng: np.random.Generator) -> Grid:
        return sample_grid(rng, self.rows, self.cols, self.alphabet)

    def legend_text(self) -> str:
        return "\n".join(f"{code} = {name}" for code, name in enumerate(self.legend))

    def placeholder_values(self) -> dict[str, str]:
        return {"<WIDTH>": str(self.cols), "<HEIGHT>": str(self.rows), "<LEGEND>": self.legend_text()}

    def show(self, content: Grid) -> str:
        """A grid as a reply should write it: rows of codes in a fenced block."""
        sep = " " if self.wide_codes else ""
        return "```\n" + "\n".join(sep.join(str(v) for v in row) for row in content) + "\n```"

    def parse(self, reply: str) -> tuple[Grid | None, str | None]:
        return parse_grid(reply, one_digit_codes=not self.wide_codes)

    def colour(self, code: int) -> str:
        """The tile name's colour; else the palette's by code; past the palette (Lode Runner's 52 patterns), a hue
        per code a golden angle apart, so that every code of a legend gets its own."""
        if self.legend[code] in COLOURS:
            return COLOURS[self.legend[code]]
        if self.alphabet <= len(PALETTE):
            return PALETTE[code]
        return f"hsl({code * 137.508 % 360:.1f},60%,{45 + 15 * (code % 3)}%)"

    def draw(self, content: Sequence[Sequence[int]], tile: int = TILE) -> str:
        """One grid as an SVG of coloured squares (codes outside the legend never reach here: they are invalid)."""
        rows, cols = len(content), len(content[0]) if content else 0
        rects = "".join(
            f'<rect x="{x * tile}" y="{y * tile}" width="{tile}" height="{tile}" fill="{self.colour(v)}"/>'
            for y, row in enumerate(content)
            for x, v in enumerate(row)
        )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * tile}" height="{rows * tile}" '
            f'viewBox="0 0 {cols * tile} {rows * tile}" shape-rendering="crispEdges">{rects}</svg>'
        )

    def key(self) -> list[tuple[str, str]]:
        return [(f"{code} = {name}", self.colour(code)) for code, name in enumerate(self.legend)]

    def facts(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "width": self.cols,
            "height": self.rows,
            "legend": {str(code): name for code, name in enumerate(self.legend)},
        }

    def answer_regex(self) -> str:
        """Free text without backticks, then a fenced block of exactly `rows` lines of `cols` codes."""
        if self.wide_codes:
            code = "(" + "|".join(str(c) for c in range(self.alphabet)) + ")"
            line = rf"{code}( {code}){{{self.cols - 1}}}\n"
        else:
            line = rf"[0-{self.alphabet - 1}]{{{self.cols}}}\n"
        return rf"[^`]*```\n({line}){{{self.rows}}}```"
