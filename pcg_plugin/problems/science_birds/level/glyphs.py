"""Letters as Science Birds structures: glyph bitmap -> 20x16 drop grid -> drop_block program that lands as drawn.

What this is: a scripted LLM double for tests, dry runs and benchmarks. Its programs land block for block as drawn
under the official drop rule (the grid), but nothing here checks that the structure then STANDS under physics,
and most do not. Measured with pytest-pcg's own physics (``pipeline.evaluate_level``) over A-Z x variants 0..11:
117 of 312 programs stand (no block moving), 98 end with stability < 0.5 and 63 with stability < 0.3, flat piles
in which no letter can be seen; variant 0 (what ``dry_run`` answers with) stands for only 6 of 26 letters
(H I L M T W), variant 1 for 20. The cause: overhangs (a b31 resting on one end cell, e.g. the rounded feet of
O, U, S) and support pillars under tall columns. So stage times, stability and similarity measured with this
double, and report examples made with it, are NOT those of a real run of good levels; for standing examples use
variant 1, or ``letter_program`` only where a test needs text that lands as designed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pcg_plugin.problems.science_birds.letters import LETTERS as LETTERS  # re-exported: the alphabet the glyphs cover

GRID_WIDTH = 20
GRID_HEIGHT = 16

# A hand-made 5x7 font (top row first): always available, no font files needed.
FONT_5X7: dict[str, tuple[str, ...]] = {
    "A": (".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"),
    "B": ("####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."),
    "C": (".####", "#....", "#....", "#....", "#....", "#....", ".####"),
    "D": ("####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."),
    "E": ("#####", "#....", "#....", "####.", "#....", "#....", "#####"),
    "F": ("#####", "#....", "#....", "####.", "#....", "#....", "#...."),
    "G": (".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"),
    "H": ("#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"),
    "I": (".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."),
    "J": ("..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."),
    "K": ("#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"),
    "L": ("#....", "#....", "#....", "#....", "#....", "#....", "#####"),
    "M": ("#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"),
    "N": ("#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"),
    "O": (".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."),
    "P": ("####.", "#...#", "#...#", "####.", "#....", "#....", "#...."),
    "Q": (".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"),
    "R": ("####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"),
    "S": (".####", "#....", "#....", ".###.", "....#", "....#", "####."),
    "T": ("#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."),
    "U": ("#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."),
    "V": ("#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."),
    "W": ("#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."),
    "X": ("#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"),
    "Y": ("#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."),
    "Z": ("#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"),
}

Cells = frozenset[tuple[int, int]]  # (row, col), row 0 = bottom, col 0 = left


@dataclass(frozen=True)
class Drop:
    """One drop_block call and where it is meant to land (bottom row)."""

    block: str  # b11 | b31 | b13
    x: int  # centre column (the official slot)
    row: int

    def cells(self) -> list[tuple[int, int]]:
        if self.block == "b31":
            return [(self.row, self.x + d) for d in (-1, 0, 1)]
        if self.block == "b13":
            return [(self.row + d, self.x) for d in (0, 1, 2)]
        return [(self.row, self.x)]

    def line(self) -> str:
        return f"drop_block('{self.block}', {self.x})"


def bitmap_cells(rows: Iterable[str], sx: int | Sequence[int] = 1, sy: int = 1) -> Cells:
    """Top-first text bitmap ('#' = set) -> cells, bottom-left at (0, 0); ``sx`` may give each column's width."""
    rows = list(rows)
    widths = [sx] * max(map(len, rows)) if isinstance(sx, int) else list(sx)
    starts = [sum(widths[:j]) for j in range(len(widths))]
    out: set[tuple[int, int]] = set()
    for i, text in enumerate(rows):
        r0 = (len(rows) - 1 - i) * sy
        for j, ch in enumerate(text):
            if ch == "#":
                out.update((r0 + a, starts[j] + b) for a in range(sy) for b in range(widths[j]))
    return frozenset(out)


def centre(cells: Cells) -> Cells:
    """Shift so the lowest cell is on row 0 and the shape is centred in the 20 columns."""
    if not cells:
        return cells
    r0 = min(r for r, _ in cells)
    c0, c1 = min(c for _, c in cells), max(c for _, c in cells)
    dx = (GRID_WIDTH - (c1 - c0 + 1)) // 2 - c0
    return frozenset((r - r0, c + dx) for r, c in cells)


def _tile_run(cols: list[int], supported: set[int]) -> list[tuple[str, int]] | None:
    """Cover a horizontal run with b31 (>= 1 supported cell) and b11 (supported) pieces; fewest pieces; None if
    impossible."""
    n = len(cols)
    best: list[list[tuple[str, int]] | None] = [None] * (n + 1)
    best[0] = []
    for i in range(n):
        prefix = best[i]
        if prefix is None:
            continue
        cands = []
        if cols[i] in supported:
            cands.append((1, ("b11", cols[i])))
        if i + 2 < n and any(c in supported for c in cols[i : i + 3]):
            cands.append((3, ("b31", cols[i + 1])))
        for step, piece in cands:
            new = [*prefix, piece]
            known = best[i + step]
            if known is None or len(new) < len(known):
                best[i + step] = new
    return best[n]


def _runs(cols: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for c in sorted(cols):
        if runs and runs[-1][-1] == c - 1:
            runs[-1].append(c)
        else:
            runs.append([c])
    return runs


def decompose(target: Cells, max_pillars: int = 40) -> tuple[list[Drop], Cells]:
    """Drops that build ``target`` bottom-up, each landing where meant; unbridgeable gaps get a support pillar.

    Returns the drops and the cells actually built (target plus any pillars).
    """
    cells = set(target)
    for _ in range(max_pillars + 1):
        drops: list[Drop] = []
        failed: tuple[int, list[int], set[int]] | None = None
        top = max((r for r, _ in cells), default=-1)
        for row in range(top + 1):
            cols = [c for r, c in cells if r == row]
            supported = {c for c in cols if row == 0 or (row - 1, c) in cells}
            for run in _runs(cols):
                pieces = _tile_run(run, supported)
                if pieces is None:
                    failed = (row, run, supported)
                    break
                drops.extend(Drop(b, x, row) for b, x in pieces)
            if failed:
                break
        if failed is None:
            return _merge_columns(drops), frozenset(cells)
        row, run, supported = failed
        # First try squaring a corner: one more cell beside the run, over something solid (as a builder would).
        sides = [c for c in (run[0] - 1, run[-1] + 1) if 0 <= c < GRID_WIDTH and (row == 0 or (row - 1, c) in cells)]
        if sides:
            cells.add((row, sides[0]))
            continue
        unsupported = [c for c in run if c not in supported]
        stretch = max(_runs(unsupported), key=len)
        col = stretch[len(stretch) // 2]
        below = max((r for r, c in cells if c == col and r < row), default=-1)
        cells.update((r, col) for r in range(below + 1, row))
    raise ValueError("glyph could not be made droppable")


def _merge_columns(drops: list[Drop]) -> list[Drop]:
    """Three stacked b11 in one column become one b13 (fewer, more level-like drops); order by bottom row."""
    singles = {(d.row, d.x): d for d in drops if d.block == "b11"}
    used: set[tuple[int, int]] = set()
    out = [d for d in drops if d.block != "b11"]
    for row, x in sorted(singles):
        if (row, x) in used:
            continue
        if all((row + k, x) in singles and (row + k, x) not in used for k in (1, 2)):
            used.update({(row, x), (row + 1, x), (row + 2, x)})
            out.append(Drop("b13", x, row))
        else:
            used.add((row, x))
            out.append(singles[(row, x)])
    return sorted(out, key=lambda d: (d.row, d.x))


def drop_grid(program_lines: Iterable[tuple[str, int]]) -> list[Drop]:
    """The official Tetris-style drop (spec §4.3), for checking that a program lands as designed."""
    heights = [0] * GRID_WIDTH
    placed = []
    for block, x in program_lines:
        foot = [x - 1, x, x + 1] if block == "b31" else [x]
        if any(c < 0 or c >= GRID_WIDTH for c in foot):
            raise ValueError(f"{block} at {x} is outside the grid")
        row = max(heights[c] for c in foot)
        h = 3 if block == "b13" else 1
        if row + h > GRID_HEIGHT:
            raise ValueError(f"{block} at {x} goes above the grid")
        for c in foot:
            heights[c] = row + h
        placed.append(Drop(block, x, row))
    return placed


def _pillow_cells(letter: str, variant: int) -> Cells:
    """Rasterise ``letter`` with Pillow's built-in scalable font at a size picked by ``variant``."""
    from PIL import Image, ImageDraw, ImageFont

    rows = 9 + variant % 6  # 9..14 grid rows tall
    font = ImageFont.load_default(size=rows * 8)
    canvas = Image.new("L", (rows * 16, rows * 16), 0)
    ImageDraw.Draw(canvas).text((rows * 2, rows * 2), letter, fill=255, font=font)
    bbox = canvas.getbbox()
    if bbox is None:
        raise ValueError(f"the built-in font draws nothing for {letter!r}")
    glyph = canvas.crop(bbox)
    aspect = glyph.width / glyph.height
    width = max(3, min(GRID_WIDTH - 2, round(rows * aspect * (1.0 + 0.15 * (variant // 6 % 3)))))
    small = glyph.resize((width, rows), Image.Resampling.BOX)
    gray = small.tobytes()  # mode L: one byte per pixel, rows top first
    out = {(rows - 1 - y, x) for y in range(rows) for x in range(width) if gray[y * width + x] >= 110}
    return frozenset(out)


@lru_cache(maxsize=512)
def letter_cells(letter: str, variant: int = 0) -> Cells:
    """The intended grid cells of ``letter`` (before pillars): variant 0 = the 5x7 font at 2x2, others vary."""
    letter = letter.upper()
    if letter not in FONT_5X7:
        raise ValueError(f"not an uppercase English letter: {letter!r}")
    if variant < 0:
        raise ValueError("variant must be >= 0")
    if variant == 0:  # stroke columns 2 wide, gaps 1 wide: a 4-cell gap between legs is bridged by two b31
        return centre(bitmap_cells(FONT_5X7[letter], (2, 1, 2, 1, 2), 2))
    if variant in (1, 2, 3):
        sx, sy = {1: (1, 2), 2: (3, 2), 3: (2, 1)}[variant]
        return centre(bitmap_cells(FONT_5X7[letter], sx, sy))
    return centre(_pillow_cells(letter, variant - 4))


@lru_cache(maxsize=512)
def letter_drops(letter: str, variant: int = 0) -> tuple[Drop, ...]:
    drops, _ = decompose(letter_cells(letter, variant))
    return tuple(drops)


def letter_program(letter: str, variant: int = 0) -> str:
    """A ``drop_block('b31', 5)`` program, one call per line, that draws ``letter`` on the 20x16 drop grid.

    Variant 0 uses a hand-made 5x7 font (no font files needed); 1..3 rescale it; 4+ rasterise Pillow's built-in
    scalable font at several sizes and widths. Every block lands where intended under the official drop rule, but
    the structure often falls over afterwards (see the module docstring): it is a test double, not a good level.
    """
    return "\n".join(d.line() for d in letter_drops(letter, variant))


def built_cells(letter: str, variant: int = 0) -> Cells:
    """Every cell the program fills (glyph plus support pillars)."""
    return frozenset(c for d in letter_drops(letter, variant) for c in d.cells())
