"""Offline training data for the embedded letter classifier: font-rendered letters and block-letter levels."""

from __future__ import annotations

import math
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from pcg_plugin import glyphs

LETTERS = glyphs.LETTERS
RENDER = 1024  # official render: 1024x1024, 100 px margin, longer side of the structure = 824 px
MARGIN = 100


@dataclass(frozen=True)
class Sample:
    image: Image.Image
    label: int


def find_fonts() -> list[Path]:
    """Every TrueType/OpenType file fontconfig knows that draws distinct A..Z glyphs."""
    try:
        out = subprocess.run(["fc-list", ":", "file"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        out = ""
    files = sorted({Path(line.split(":")[0].strip()) for line in out.splitlines() if line.strip()})
    good = []
    for f in files:
        if f.suffix.lower() not in {".ttf", ".otf"}:
            continue
        try:
            font = ImageFont.truetype(str(f), 48)
            boxes = {font.getbbox(c) for c in "AOWX"}
            if len(boxes) >= 3 and all(b[2] - b[0] > 4 for b in boxes):  # skips symbol/icon fonts
                good.append(f)
        except OSError:
            continue
    return good


def split_fonts(fonts: list[Path], seed: int, held_out: float = 0.15) -> tuple[list[Path], list[Path]]:
    """Hold out whole typefaces (font families by file-name stem prefix) for testing."""
    families: dict[str, list[Path]] = {}
    for f in fonts:
        families.setdefault(f.stem.split("-")[0].lower(), []).append(f)
    names = sorted(families)
    random.Random(seed).shuffle(names)
    k = max(1, round(len(names) * held_out))
    test = [f for n in names[:k] for f in families[n]]
    train = [f for n in names[k:] for f in families[n]]
    return train, test


def render_font_letter(font_path: Path, letter: str, rng: random.Random, size: int, augment: bool = True) -> Image.Image:
    """Black letter on white, cropped to its ink and padded like the official renders, then augmented."""
    px = 96
    font = ImageFont.truetype(str(font_path), px)
    stroke = rng.choice([0, 0, 0, 1, 2, 3]) if augment else 0
    canvas = Image.new("L", (px * 3, px * 3), 255)
    ImageDraw.Draw(canvas).text((px, px // 2), letter, fill=0, font=font, stroke_width=stroke, stroke_fill=0)
    if augment:
        canvas = canvas.rotate(rng.uniform(-12, 12), resample=Image.Resampling.BILINEAR, fillcolor=255)
    return frame(canvas, rng, size, augment)


def frame(canvas: Image.Image, rng: random.Random, size: int, augment: bool) -> Image.Image:
    """Crop to ink, fit the longer side to size*824/1024 (as the official renderer does), pad, add noise."""
    bbox = Image.eval(canvas, lambda v: 255 - v).getbbox()
    if bbox is None:
        return Image.new("L", (size, size), 255)
    ink = canvas.crop(bbox)
    w, h = ink.size
    if augment:
        aspect = math.exp(rng.uniform(-0.35, 0.35))
        w, h = max(1, round(w * aspect)), max(1, round(h / aspect))
    inner = size * (RENDER - 2 * MARGIN) / RENDER * (rng.uniform(0.8, 1.0) if augment else 1.0)
    scale = inner / max(w, h)
    ink = ink.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.BILINEAR)
    out = Image.new("L", (size, size), 255)
    slack_x, slack_y = size - ink.width, size - ink.height
    if augment:
        ox, oy = rng.randint(0, max(0, slack_x)), rng.randint(0, max(0, slack_y))
    else:
        ox, oy = slack_x // 2, slack_y // 2
    out.paste(ink, (ox, oy))
    if augment and rng.random() < 0.3:
        out = out.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.0)))
    if augment and rng.random() < 0.3:
        noise = Image.effect_noise((size, size), rng.uniform(5, 30))
        out = Image.blend(out, noise, 0.15)
    return out


def font_grid_cells(font_path: Path, letter: str, rows: int, widen: float) -> glyphs.Cells:
    """Rasterise ``letter`` from a font onto the drop grid, ``rows`` tall."""
    font = ImageFont.truetype(str(font_path), rows * 10)
    canvas = Image.new("L", (rows * 30, rows * 30), 0)
    ImageDraw.Draw(canvas).text((rows * 5, rows * 5), letter, fill=255, font=font)
    bbox = canvas.getbbox()
    if bbox is None:
        return frozenset()
    glyph = canvas.crop(bbox)
    width = max(3, min(glyphs.GRID_WIDTH - 2, round(rows * glyph.width / glyph.height * widen)))
    small = glyph.resize((width, rows), Image.Resampling.BOX).load()
    return glyphs.centre(frozenset(
        (rows - 1 - y, x) for y in range(rows) for x in range(width) if small[x, y] >= 110  # type: ignore[index]
    ))


def render_blocks(drops: list[tuple[str, float, float, float]], size: int) -> Image.Image:
    """STAND-IN for the pipeline renderer: black rectangles (block = cell minus a small gap) on white.

    ``drops`` holds (block, centre x, centre y, angle) in cell units. Framed like the official render: the longer
    side of the structure's bounding box = 824/1024 of the image, 100/1024 margin.
    """
    big = Image.new("L", (RENDER, RENDER), 255)
    polys = []
    for block, cx, cy, ang in drops:
        w, h = {"b11": (1, 1), "b31": (3, 1), "b13": (1, 3)}[block]
        hw, hh = w / 2 - 0.04, h / 2 - 0.04
        ca, sa = math.cos(ang), math.sin(ang)
        polys.append([(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))])
    xs = [p[0] for poly in polys for p in poly]
    ys = [p[1] for poly in polys for p in poly]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-6)
    k = (RENDER - 2 * MARGIN) / span
    ox = MARGIN + ((RENDER - 2 * MARGIN) - (max(xs) - min(xs)) * k) / 2
    oy = MARGIN + ((RENDER - 2 * MARGIN) - (max(ys) - min(ys)) * k) / 2
    draw = ImageDraw.Draw(big)
    for poly in polys:
        draw.polygon([(ox + (x - min(xs)) * k, RENDER - (oy + (y - min(ys)) * k)) for x, y in poly], fill=0)
    return big.resize((size, size), Image.Resampling.BILINEAR)


def block_letter(cells: glyphs.Cells, rng: random.Random, size: int, collapse: float) -> Image.Image | None:
    """Decompose cells into drops and render; ``collapse`` in [0, 1] knocks blocks off and tilts the top."""
    if not cells:
        return None
    try:
        drops, _ = glyphs.decompose(cells)
    except ValueError:
        return None
    placed = []
    top = max(d.row for d in drops) + 1
    for d in drops:
        w, h = {"b11": (1, 1), "b31": (3, 1), "b13": (1, 3)}[d.block]
        cx, cy, ang = d.x + 0.5, d.row + h / 2, 0.0
        if collapse > 0:
            if rng.random() < 0.15 * collapse:
                continue  # fell away out of frame
            lift = d.row / top
            if rng.random() < collapse * lift:
                ang = rng.uniform(-0.8, 0.8) * collapse
                cx += rng.uniform(-1.5, 1.5) * collapse
                cy -= rng.uniform(0, 2.0) * collapse * lift
        placed.append((d.block, cx, cy, ang))
    if not placed:
        return None
    return render_blocks(placed, size)


def pipeline_letter(drops: list[glyphs.Drop], size: int) -> tuple[Image.Image, bool] | None:
    """The real thing: the drop program through our simulate-and-render pipeline; (image, stayed standing)."""
    from pcg_plugin import pipeline
    from pcg_plugin.errors import PcgError

    program = "\n".join(d.line() for d in drops)
    try:
        build = pipeline.build_level(f"```python\n{program}\n```")
        result = pipeline.evaluate_level(build.level)
    except PcgError:
        return None
    if result.image is None:
        return None
    return result.image.convert("L").resize((size, size), Image.Resampling.BILINEAR), result.moving_blocks == 0
