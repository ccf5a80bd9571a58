"""Offline data for the embedded letter classifier, labelled by what each image shows (issue 13).

Font letters and clean block letters carry their letter. A pipeline image (physics + render) carries the intended
letter only when the structure visibly still is that letter: no block moved (``moving_blocks == 0``) and the pixel
IoU of the final image with the same program's clean render (the initial poses) is >= ``STAND_IOU``. An image with
IoU < ``RUBBLE_IOU`` is rubble: its target is the uniform distribution (label ``RUBBLE``), which pushes the model
towards "no letter", never towards the intended one. Anything in between is left out.
"""

from __future__ import annotations

import math
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from pcg_plugin.problems.science_birds.level import glyphs

LETTERS = glyphs.LETTERS
RENDER = 1024  # official render: 1024x1024, 100 px margin, longer side of the structure = 824 px
MARGIN = 100


STAND_IOU = 0.8  # standing programs of glyphs.letter_program (v 0..11) measure 0.81..1.0; collapsed ones <= 0.3
RUBBLE_IOU = 0.5
RUBBLE = -1  # label of an image that shows no letter: trained towards the uniform distribution
IOU_SIZE = 64  # IoU is taken on the model's input resolution


@dataclass(frozen=True)
class Sample:
    image: Image.Image
    label: int  # 0..25, or RUBBLE


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


# Typeface families (file-name stem before the first "-", lower case) held out from training: the families the
# previous release held out (seed 0 over its 443 files), fixed so that old and new models meet the same test fonts.
HELD_OUT_FAMILIES = frozenset(
    {
        "andika",
        "berenisadfpro",
        "caladea",
        "carlito",
        "dejavusanscondensed",
        "dejavuserif",
        "dkgbi",
        "gentiumalt",
        "jetbrainsmono",
        "linlibertine_ri",
        "nimbusroman",
        "ptf75f",
        "ptn77f",
        "pts55f",
        "romandeadfscriptstd",
        "stixmath",
        "texgyreheros",
        "tinos",
        "veranasansdemi",
    }
)


def split_fonts(fonts: list[Path]) -> tuple[list[Path], list[Path]]:
    """(train, held out): whole typeface families in HELD_OUT_FAMILIES are held out."""
    test = [f for f in fonts if f.stem.split("-")[0].lower() in HELD_OUT_FAMILIES]
    train = [f for f in fonts if f not in test]
    return train, test


def render_font_letter(
    font_path: Path, letter: str, rng: random.Random, size: int, augment: bool = True
) -> Image.Image:
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
    return glyphs.centre(
        frozenset(
            (rows - 1 - y, x)
            for y in range(rows)
            for x in range(width)
            if small[x, y] >= 110  # type: ignore[index]
        )
    )


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
        polys.append(
            [(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))]
        )
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


def cell_drops(cells: glyphs.Cells) -> list[tuple[str, float, float, float]] | None:
    """The blocks of ``cells`` as drawn (no physics): stand-in render input; None if not droppable."""
    if not cells:
        return None
    try:
        drops, _ = glyphs.decompose(cells)
    except ValueError:
        return None
    out = []
    for d in drops:
        _w, h = {"b11": (1, 1), "b31": (3, 1), "b13": (1, 3)}[d.block]
        out.append((d.block, d.x + 0.5, d.row + h / 2, 0.0))
    return out


def block_letter(cells: glyphs.Cells, size: int) -> Image.Image | None:
    """The clean stand-in render of a block letter (every block where it was dropped)."""
    placed = cell_drops(cells)
    return None if placed is None else render_blocks(placed, size)


def shaken(cells: glyphs.Cells, rng: random.Random, size: int, collapse: float) -> Image.Image | None:
    """Synthetic collapse: blocks knocked off, tilted and shifted (more so higher up); only ever used as rubble."""
    placed = cell_drops(cells)
    if placed is None:
        return None
    top = max(cy for _, _, cy, _ in placed) + 1
    out = []
    for block, cx, cy, ang in placed:
        if rng.random() < 0.15 * collapse:
            continue
        lift = cy / top
        if rng.random() < collapse * (0.3 + lift):
            ang = rng.uniform(-1.6, 1.6) * collapse
            cx += rng.uniform(-3, 3) * collapse
            cy -= rng.uniform(0, cy) * collapse
        out.append((block, cx, max(0.5, cy), ang))
    return render_blocks(out, size) if out else None


def mask_iou(a: Image.Image, b: Image.Image) -> float:
    """Pixel IoU of the black parts of two images, both taken at IOU_SIZE (1.0 when both are blank)."""
    import numpy as np

    ma = np.asarray(a.convert("L").resize((IOU_SIZE, IOU_SIZE), Image.Resampling.BILINEAR)) < 128
    mb = np.asarray(b.convert("L").resize((IOU_SIZE, IOU_SIZE), Image.Resampling.BILINEAR)) < 128
    union = (ma | mb).sum()
    return float((ma & mb).sum() / union) if union else 1.0


def visible_label(letter: int, moving_blocks: int, iou: float) -> int | None:
    """The label an image earns: its letter if standing and close to the clean render, RUBBLE if far, else None."""
    if moving_blocks == 0 and iou >= STAND_IOU:
        return letter
    if iou < RUBBLE_IOU:
        return RUBBLE
    return None


@dataclass(frozen=True)
class Level:
    """One program through pytest-pcg's pipeline: final image, clean render, and how much moved."""

    image: Image.Image
    iou: float
    moving_blocks: int
    stability: float


def pipeline_level(program: str, size: int) -> Level | None:
    """The real thing: a drop program through our simulate-and-render pipeline, images at ``size`` px."""
    from pcg_plugin.errors import PcgError
    from pcg_plugin.problems.science_birds.level import pipeline, render

    try:
        build = pipeline.build_level(f"```python\n{program}\n```")
        result = pipeline.evaluate_level(build.level)
    except PcgError:
        return None
    clean = render.render_level(build.level)
    if result.image is None or clean is None:
        return None
    image = result.image.convert("L").resize((size, size), Image.Resampling.BILINEAR)
    return Level(image, mask_iou(result.image, clean), result.moving_blocks, result.stability)


def program_of(cells: glyphs.Cells) -> str | None:
    """The drop program that builds ``cells`` (with support pillars where needed)."""
    try:
        return "\n".join(d.line() for d in glyphs.decompose(cells)[0]) if cells else None
    except ValueError:
        return None


def bar_program(cells: int, block: str = "b11") -> str:
    """A single vertical bar at column 10: ``cells`` b11 stacked, or ``cells`` // 3 b13 when ``block`` is b13."""
    n = cells // 3 if block == "b13" else cells
    return "\n".join(f"drop_block('{block}', 10)" for _ in range(n))


def bar_cells(height: int, width: int = 1) -> glyphs.Cells:
    """A solid upright bar, ``width`` columns by ``height`` rows: the plainest I there is."""
    return glyphs.centre(frozenset((r, c) for r in range(height) for c in range(width)))


GLYPH_VARIANTS = range(40)  # glyphs.letter_cells variants used: 0..3 the 5x7 font, 4..39 Pillow's font
HELD_OUT_VARIANTS = tuple(v for v in GLYPH_VARIANTS if v >= 4 and v % 5 == 4)  # 4, 9, ..., 39: never trained on
TRAIN_VARIANTS = tuple(v for v in GLYPH_VARIANTS if v not in HELD_OUT_VARIANTS)
