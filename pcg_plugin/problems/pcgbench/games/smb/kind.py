"""The two content kinds of the Mario problems and the level picture they share.

`SliceIds` (smb): W integers in [0, 126), indices into the benchmark's slices; a reply gives them as a JSON
list (or integers separated by commas or spaces) in its last fenced block, and `<SLICES>` lists every slice as
`id: column` (16 characters, top row first). `TileRows` (smbtile): a 16×W grid of tile codes 0..9, read and
written as `grid_kind.GridKind` does; only its picture differs. Both draw the whole level (padding, Mario `M`,
flag `F`) in Mario colours, with the agent's path on top when one is given (`level_svg`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.bench.grid_kind import REASONS as GRID_REASONS
from pcg_plugin.problems.pcgbench.bench.grid_kind import GridKind
from pcg_plugin.problems.pcgbench.bench.json_reply import NO_BLOCK
from pcg_plugin.problems.pcgbench.bench.parse import last_fenced_block, long_number
from pcg_plugin.problems.pcgbench.games.smb.level import ENEMIES, SYMBOLS, slice_level, slices, tile_level

TILE = 8  # pixels per tile in the report
TILE_NAMES = {
    "-": "sky",
    "X": "ground",
    "#": "solid block",
    "S": "brick",
    "Q": "question block (coin)",
    "t": "pipe",
    "o": "coin",
    "g": "goomba",
    "k": "green koopa",
    "y": "spiny",
    "M": "Mario (start)",
    "F": "flag (exit)",
}
TILE_COLOURS = {
    "-": "#6d8ffc",
    "X": "#b4581c",
    "#": "#7c4a24",
    "S": "#d07a3c",
    "Q": "#f0b030",
    "t": "#2fa52f",
    "o": "#ffe14a",
    "g": "#8a3b12",
    "k": "#22aa44",
    "y": "#e02828",
    "M": "#ff40ff",
    "F": "#202020",
}
PATH_COLOUR = "#ffffff"
SLICE_REASONS = {
    "no_block": "the reply has no fenced block (```...```)",
    "not_slice_ids": "the last fenced block is not a JSON list of integers (nor integers separated by commas or "
    "spaces), or holds a number of more than 100 digits",
    "wrong_length": "not exactly one slice id per level column",
    "wrong_value": "a slice id is not an integer 0..125",
    "no_enemy": "no slice with an enemy: the benchmark's floating-enemy share is 0/0 (it raises ZeroDivisionError)",
}
NO_ENEMY = (
    "no enemy: the level has no goomba, koopa or spiny, so the benchmark's floating-enemy share is 0/0 "
    "(it raises ZeroDivisionError)"
)
TILE_REASONS = {
    **GRID_REASONS,
    "no_enemy": "no enemy tile (7, 8, 9): the benchmark's floating-enemy share is 0/0 (it raises ZeroDivisionError)",
}
ENEMY_CODES = frozenset(i for i, s in enumerate(SYMBOLS) if s in ENEMIES)
_INTS = re.compile(r"^[\s,\[\]]*-?\d+([\s,]+-?\d+)*[\s,\[\]]*$")


def level_svg(rows: Sequence[str], path: Sequence[Sequence[float]] = (), tile: int = TILE) -> str:
    """A level's rows (the padded level string) as coloured tiles, and Mario's positions (pixels, 16 a tile) as
    a line."""
    height, width = len(rows), len(rows[0]) if rows else 0
    rects = "".join(
        f'<rect x="{x * tile}" y="{y * tile}" width="{tile}" height="{tile}" fill="{TILE_COLOURS.get(ch, "#000000")}"/>'
        for y, row in enumerate(rows)
        for x, ch in enumerate(row)
        if ch != "-"
    )
    line = ""
    if path:
        scale = tile / 16
        points = " ".join(f"{x * scale:.1f},{y * scale:.1f}" for x, y in path)
        line = f'<polyline points="{points}" fill="none" stroke="{PATH_COLOUR}" stroke-width="1.5"/>'
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * tile}" height="{height * tile}" '
        f'viewBox="0 0 {width * tile} {height * tile}" shape-rendering="crispEdges">'
        f'<rect width="{width * tile}" height="{height * tile}" fill="{TILE_COLOURS["-"]}"/>{rects}{line}</svg>'
    )


def level_key() -> list[tuple[str, str]]:
    return [(name, TILE_COLOURS[ch]) for ch, name in TILE_NAMES.items()] + [("agent's path", PATH_COLOUR)]


class SliceIds:
    """smb's content: `width` slice ids, each an integer in [0, 126)."""

    kind = "slice ids"
    placeholders = ("<WIDTH>", "<SLICES>")
    reasons = SLICE_REASONS

    def __init__(self, width: int) -> None:
        self.width = width
        self.locate: Any = None  # content -> the agent's path, set by the variant (the picture draws it)

    @property
    def count(self) -> int:
        return len(slices())

    def check(self, content: Any) -> str | None:
        if not isinstance(content, Sequence) or isinstance(content, str | bytes):
            return "not slice ids: expected a list of integers"
        if len(content) != self.width:
            more = (
                ""
                if len(content) < self.width
                else (
                    " (the benchmark's space takes more, but its diversity cannot compare levels of different widths)"
                )
            )
            return f"wrong length: {len(content)} slice ids, expected {self.width}{more}"
        for x, v in enumerate(content):
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 0 <= v < self.count:
                return f"wrong value: column {x} is {v!r}, expected an integer 0..{self.count - 1}"
        if not any(ch in ENEMIES for v in content for ch in slices()[v]):
            return NO_ENEMY
        return None

    def sample(self, rng: np.random.Generator) -> list[int]:
        """One scalar draw per column from one stream (the benchmark's ArraySpace shares one leaf)."""
        return [int(rng.integers(0, self.count)) for _ in range(self.width)]

    def slices_text(self) -> str:
        return "\n".join(f"{i}: {s}" for i, s in enumerate(slices()))

    def placeholder_values(self) -> dict[str, str]:
        return {"<WIDTH>": str(self.width), "<SLICES>": self.slices_text()}

    def show(self, content: Sequence[int]) -> str:
        return "```json\n[" + ", ".join(str(int(v)) for v in content) + "]\n```"

    def parse(self, reply: str) -> tuple[Any, str | None]:
        body = last_fenced_block(reply)
        if body is None:
            return None, NO_BLOCK
        if not _INTS.match(body):
            return None, "not slice ids: the fenced block is not a list of integers"
        tokens = re.findall(r"-?\d+", body)
        digits = long_number(tokens)
        if digits is not None:
            return None, f"not slice ids: the fenced block holds a number of {digits} digits"
        return [int(v) for v in tokens], None

    def draw(self, content: Sequence[int]) -> str:
        return level_svg(slice_level(content), _path(self.locate, content))

    def key(self) -> list[tuple[str, str]]:
        return level_key()

    def facts(self) -> dict[str, Any]:
        return {"kind": self.kind, "width": self.width, "slices": self.count, "values": f"0..{self.count - 1}"}

    def answer_regex(self) -> str:
        """Free text without backticks, then the fenced JSON list exactly as `show` writes it."""
        value = r"(\d|[1-9]\d|1[01]\d|12[0-5])"
        return rf"[^`]*```json\n\[{value}(, {value}){{{self.width - 1}}}\]\n```"


def _path(locate: Any, content: Any) -> list[list[float]]:
    return locate(content) if locate is not None else []


@dataclass(frozen=True)
class TileRows(GridKind):
    """smbtile's content: a 16×W grid of the ten tile codes, drawn as the whole padded level."""

    locate: Any = None  # content -> the agent's path, set by the variant (the picture draws it)
    kind: str = "tile rows"  # a Mario level, not a plain grid: its picture and legend add Mario, flag and path

    def __post_init__(self) -> None:
        object.__setattr__(self, "reasons", TILE_REASONS)

    def check(self, content: Any) -> str | None:
        reason = super().check(content)
        if reason is None and not any(v in ENEMY_CODES for row in content for v in row):
            return NO_ENEMY
        return reason

    def draw(self, content: Sequence[Sequence[int]], tile: int = TILE) -> str:
        return level_svg(tile_level(content), _path(self.locate, content), tile=tile)

    def key(self) -> list[tuple[str, str]]:
        return (
            [(f"{code} = {name}", TILE_COLOURS[SYMBOLS[code]]) for code, name in enumerate(self.legend)]
            + [(TILE_NAMES[c], TILE_COLOURS[c]) for c in "MF"]
            + [("agent's path", PATH_COLOUR)]
        )


def tile_rows(width: int, height: int = 16) -> TileRows:
    """smbtile's kind at one width: the legend names the ten symbols in code order."""
    return TileRows(
        height,
        width,
        tuple(f"{s} ({TILE_NAMES[s]})" for s in SYMBOLS),
        no_extra="its evaluation fails on extra rows, and its diversity on levels of different widths",
    )
