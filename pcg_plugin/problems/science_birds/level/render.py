"""Black-on-white 1024x1024 image of a level, as the Unity evaluator's OCR capture (physics.md section 6)."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image

from pcg_plugin.problems.science_birds.level.physics import BOX_CORES, SKIN, core_vertices
from pcg_plugin.problems.science_birds.level.types import Block, Level

SIZE = 1024
MARGIN = 100
INNER = SIZE - 2 * MARGIN  # 824


def _world_vertices(block: Block, pad: float) -> np.ndarray:
    """Block outline in world units; ``pad`` grows boxes per side (sprite = core + 0.01 each side)."""
    verts = np.array(core_vertices(block), dtype=float)
    if block.type in BOX_CORES and pad:
        verts = verts + np.sign(verts) * pad
    a = math.radians(block.rotation)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return verts @ rot.T + np.array([block.x, block.y])


def render_level(level: Level) -> Image.Image | None:
    """The OCR image: the blocks' core AABB's longer side scaled to 824 px inside a 100 px white margin,
    each block a solid black rotated sprite rectangle, pixel-centre sampling (binary, no anti-aliasing).
    None for a level without blocks (the official pipeline writes no image).

    Greyscale ("L"): Unity's capture is RGB, but every reader converts to RGB first (the official classifier:
    ``Image.open(path).convert("RGB")``), which gives the same pixels; an RGB copy would cost a conversion
    here and triple the PNG encoder's work for every trial."""
    if not level.blocks:
        return None
    cores = [_world_vertices(b, 0.0) for b in level.blocks]
    allv = np.concatenate(cores)
    lo, hi = allv.min(axis=0), allv.max(axis=0)
    extent = float(max(hi - lo))
    if not math.isfinite(extent) or extent <= 0:
        return None
    scale = INNER / extent
    cx, cy = (lo + hi) / 2
    ink = np.zeros((INNER, INNER), dtype=bool)
    for block in level.blocks:
        poly = _world_vertices(block, SKIN)
        # pixel column i covers x = cx + (i + 0.5 - 412) / s; row j covers y = cy - (j + 0.5 - 412) / s
        i0 = max(0, math.floor((poly[:, 0].min() - cx) * scale + INNER / 2 - 0.5))
        i1 = min(INNER - 1, math.ceil((poly[:, 0].max() - cx) * scale + INNER / 2 - 0.5))
        j0 = max(0, math.floor((cy - poly[:, 1].max()) * scale + INNER / 2 - 0.5))
        j1 = min(INNER - 1, math.ceil((cy - poly[:, 1].min()) * scale + INNER / 2 - 0.5))
        if i0 > i1 or j0 > j1:
            continue
        xs = cx + (np.arange(i0, i1 + 1) + 0.5 - INNER / 2) / scale
        ys = cy - (np.arange(j0, j1 + 1) + 0.5 - INNER / 2) / scale
        px, py = np.meshgrid(xs, ys)
        inside = np.ones(px.shape, dtype=bool)
        n = len(poly)
        sign = 1.0 if _signed_area(poly) > 0 else -1.0
        for k in range(n):
            (ax, ay), (bx, by) = poly[k], poly[(k + 1) % n]
            inside &= sign * ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) >= 0
        ink[j0 : j1 + 1, i0 : i1 + 1] |= inside
    pixels = np.full((SIZE, SIZE), 255, dtype=np.uint8)
    pixels[MARGIN : MARGIN + INNER, MARGIN : MARGIN + INNER][ink] = 0
    return Image.fromarray(pixels, mode="L")


def blank_image() -> Image.Image:
    """Unity's capture when a level had blocks but none is left (outputErrorLevels: an all-white frame)."""
    return Image.new("L", (SIZE, SIZE), 255)


def _signed_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)) / 2


def black_mask(image: Image.Image) -> np.ndarray:
    """Boolean mask of dark pixels (for IoU against Unity's PNGs)."""
    return np.asarray(image.convert("L")) < 128


def iou(a: Image.Image, b: Image.Image) -> float:
    """Intersection over union of the black pixels of two images (1.0 when both are blank)."""
    ma, mb = black_mask(a), black_mask(b)
    union = np.logical_or(ma, mb).sum()
    return float(np.logical_and(ma, mb).sum() / union) if union else 1.0
