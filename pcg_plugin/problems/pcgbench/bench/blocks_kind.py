"""Block drops, the content of building: a list of exactly `count` drops `{"x", "y", "type"}` (`BlocksKind`).

Content: the benchmark's `ArraySpace(blocks, DictionarySpace({x: [0, width), y: [0, length), type: [0, 4)}))`
as plain JSON, a list of objects with exactly those three integer keys. Types: 0 = 1x1 (one cell), 1 = 1x3 (three
cells along x), 2 = 3x1 (three cells along y), 3 = 3x3; each is one cell tall and falls from the top of the
width×length×height space. A reply holds the drops in its last fenced block, as one `x y type` line per drop
(spaces or commas between the numbers) or as a JSON list of objects. Prompt placeholders: `<WIDTH>`, `<LENGTH>`,
`<HEIGHT>` (the space), `<BLOCKS>` (how many drops) and `<TYPES>` (one `code = name` line per type). The report
draws the building seen from the front (x across, height up: the highest type in each x/z cell across y) and
from the top (each column's height).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.bench.parse import NO_BLOCK, last_fenced_block, long_number

TYPES = ("1x1", "1x3", "3x1", "3x3")
TYPE_TEXT = ("1x1: one cell", "1x3: three cells along x", "3x1: three cells along y", "3x3: a 3 by 3 square")
SHAPES = ((1, 1), (3, 1), (1, 3), (3, 3))  # (cells along x, cells along y) per type
COLOURS = ("#e0413c", "#1f77d4", "#59a14f", "#f2c200")
KEYS = ("x", "y", "type")
CELL = 8  # pixels per cell in the report
REASONS = {
    "no_block": "the reply has no fenced block (```...```)",
    "not_blocks": "the content is not a list of objects with integer x, y and type (or a line is not three numbers "
    "of at most 100 digits)",
    "wrong_count": "the number of drops differs from the variant's",
    "out_of_range": "an x, y or type is outside the space",
}


Drops = Sequence[Mapping[str, int]]


def simulate(content: Drops, width: int, length: int, height: int) -> tuple[np.ndarray, list[int], int]:
    """Drop every piece in order (the benchmark's drop, which building scores and the report draws): the space
    [z][y][x] (type + 1 where filled), the run-top heights, the failures."""
    lvl = np.zeros((height, length, width), dtype=int)
    failed = 0
    for drop in content:
        sx_len, sy_len = SHAPES[drop["type"]]
        sx, sy = min(drop["x"], width - sx_len), min(drop["y"], length - sy_len)
        ex, ey = min(width, drop["x"] + sx_len), min(length, drop["y"] + sy_len)
        z = height
        while z > 0 and not lvl[z - 1, sy:ey, sx:ex].any():
            z -= 1
        if z < height:
            lvl[z, sy:ey, sx:ex] = drop["type"] + 1
        else:
            failed += 1
    heights = []
    for y in range(length):
        for x in range(width):
            inside = False
            for z in range(height - 1, -1, -1):
                if inside and lvl[z, y, x] == 0:
                    inside = False
                elif not inside and lvl[z, y, x] > 0:
                    heights.append(z + 1)
                    inside = True
    return lvl, heights, failed


@dataclass(frozen=True)
class BlocksKind:
    """`count` drops in a width (x) × length (y) × height (z) space (see the module docstring)."""

    width: int
    length: int
    height: int
    count: int
    kind: str = "blocks"
    placeholders: tuple[str, ...] = ("<WIDTH>", "<LENGTH>", "<HEIGHT>", "<BLOCKS>", "<TYPES>")
    reasons: Mapping[str, str] = field(default_factory=lambda: REASONS)

    def check(self, content: Any) -> str | None:
        if not isinstance(content, Sequence) or isinstance(content, str | bytes):
            return "not blocks: expected a list of drops"
        if len(content) < self.count:
            return f"wrong count: {len(content)} drops, expected {self.count}"
        limits = {"x": self.width, "y": self.length, "type": len(TYPES)}
        for n, drop in enumerate(content):
            if not isinstance(drop, Mapping) or not set(KEYS) <= set(drop):
                return f"not blocks: drop {n} is not an object with x, y and type"
            for key in KEYS:
                v = drop[key]
                if isinstance(v, bool) or not isinstance(v, int | np.integer):
                    return f"not blocks: drop {n} has {key} = {v!r}, not an integer"
                if not 0 <= v < limits[key]:
                    return f"out of range: drop {n} has {key} = {v}, expected 0..{limits[key] - 1}"
        return None

    def sample(self, rng: np.random.Generator) -> list[dict[str, int]]:
        """Uniform drops, x then y then type for each drop in order."""
        return [
            {
                "x": int(rng.integers(0, self.width)),
                "y": int(rng.integers(0, self.length)),
                "type": int(rng.integers(0, len(TYPES))),
            }
            for _ in range(self.count)
        ]

    def placeholder_values(self) -> dict[str, str]:
        return {
            "<WIDTH>": str(self.width),
            "<LENGTH>": str(self.length),
            "<HEIGHT>": str(self.height),
            "<BLOCKS>": str(self.count),
            "<TYPES>": "\n".join(f"{code} = {text}" for code, text in enumerate(TYPE_TEXT)),
        }

    def show(self, content: Sequence[Mapping[str, int]]) -> str:
        """Drops as a reply should write them: one `x y type` line each in a fenced block."""
        return "```\n" + "\n".join(f"{d['x']} {d['y']} {d['type']}" for d in content) + "\n```"

    def parse(self, reply: str) -> tuple[list[dict[str, int]] | None, str | None]:
        body = last_fenced_block(reply)
        if body is None:
            return None, NO_BLOCK
        if body.lstrip().startswith("["):
            try:
                value = json.loads(body)
            except (ValueError, RecursionError):
                return None, "not blocks: the block is not a JSON list of {x, y, type} objects"
            return value, None  # shape and values are `check`'s
        drops = []
        for number, line in enumerate(body.splitlines(), 1):
            tokens = line.replace(",", " ").split()
            if not tokens:
                continue
            if len(tokens) != 3 or not all(t.isascii() and t.isdigit() for t in tokens):
                return None, f"not blocks: line {number} of the block is not three numbers x y type: {line[:40]!r}"
            digits = long_number(tokens)
            if digits is not None:
                return None, f"not blocks: line {number} of the block holds a number of {digits} digits"
            drops.append(dict(zip(KEYS, (int(t) for t in tokens), strict=True)))  # three tokens, checked above
        return (drops, None) if drops else (None, "not blocks: the fenced block is empty")

    def draw(self, content: Sequence[Mapping[str, int]]) -> str:
        """The building from the front (x across, z up; the nearest filled cell along y gives the colour) beside
        its top view (each column's top height as a grey level, darker = taller)."""
        lvl = simulate(content, self.width, self.length, self.height)[0]  # [z][y][x]: type + 1, or 0
        rects = [_rect(0, 0, self.width, self.height, "#f4f4f4")]
        for z in range(self.height):
            for x in range(self.width):
                filled = lvl[z, :, x][lvl[z, :, x] > 0]
                if filled.size:
                    rects.append(_rect(x, self.height - 1 - z, 1, 1, COLOURS[int(filled[0]) - 1]))
        top = np.max(np.where(lvl > 0, np.arange(1, self.height + 1)[:, None, None], 0), axis=0)  # [y][x]
        for y in range(self.length):
            for x in range(self.width):
                grey = 240 - int(200 * int(top[y, x]) / self.height)
                rects.append(_rect(self.width + 1 + x, y, 1, 1, f"rgb({grey},{grey},{grey})"))
        w, h = (2 * self.width + 1) * CELL, max(self.height, self.length) * CELL
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
            f'shape-rendering="crispEdges">{"".join(rects)}</svg>'
        )

    def key(self) -> list[tuple[str, str]]:
        return [
            (f"{code} = {name}", colour) for code, (name, colour) in enumerate(zip(TYPES, COLOURS, strict=True))
        ] + [("top view: darker = taller", "#555555")]

    def facts(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "width": self.width,
            "length": self.length,
            "height": self.height,
            "blocks": self.count,
            "types": {str(code): name for code, name in enumerate(TYPES)},
        }

    def answer_regex(self) -> str:
        """Free text without backticks, then a fenced block of exactly `count` lines `x y type`."""

        def upto(n: int) -> str:
            return "(" + "|".join(str(v) for v in range(n)) + ")"

        line = rf"{upto(self.width)} {upto(self.length)} [0-3]\n"
        return rf"[^`]*```\n({line}){{{self.count}}}```"


def _rect(x: int, y: int, w: int, h: int, fill: str) -> str:
    return f'<rect x="{x * CELL}" y="{y * CELL}" width="{w * CELL}" height="{h * CELL}" fill="{fill}"/>'
