"""The stability test replayed: an animated GIF of a level through the simulated seconds, drawn from the poses the
scoring simulation itself recorded (``physics.simulate(..., frames)``), never from a second run. A block that has
moved the stability threshold from where it was dropped turns red, so a participant sees which blocks fell and
when; the last frame is the pose the image and the score come from."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_save
from pcg_plugin.problems.science_birds.level.physics import (
    BOX_CORES,
    DEFAULT_SETTINGS,
    SKIN,
    Frame,
    PhysicsSettings,
    core_vertices,
)
from pcg_plugin.problems.science_birds.level.types import Block, Level

SIZE = 160  # px, the longer side
MARGIN = 0.6  # world units around everything drawn
# palette: background, ground (and the time), resting block, moved block: 4 colours, 2 bits a pixel
COLOURS = ((255, 255, 255), (150, 150, 150), (40, 40, 40), (220, 40, 40))
TEXT = 1
EVERY = 2  # one frame per 2 recorded checks (0.4 s of simulated time, shown in real time) and the last: a fall
# still shows (from 1 m it takes 0.45 s), at half the bytes; the file is most of what a trial adds to its run
ANIMATIONS_DIR = "animations"


def animation_rel(image_rel: str) -> str:
    """The stability animation of a trial, beside report.html in its own tree (as the thumbnails): the official
    layout keeps only what the organizers' scripts write."""
    return f"{ANIMATIONS_DIR}/{image_rel.rsplit('.', 1)[0]}.gif"


def _outline(block: Block, pose: tuple[float, float, float]) -> list[tuple[float, float]]:
    x, y, rot = pose
    a = math.radians(rot)
    ca, sa = math.cos(a), math.sin(a)
    pad = SKIN if block.type in BOX_CORES else 0.0
    out = []
    for vx, vy in core_vertices(block):
        vx, vy = vx + math.copysign(pad, vx), vy + math.copysign(pad, vy)
        out.append((x + vx * ca - vy * sa, y + vx * sa + vy * ca))
    return out


def _outlines(level: Level, frames: Sequence[Frame], settings: PhysicsSettings) -> list[list[Any]]:
    """Each frame's block outlines in world units (None for a block gone, not finite or out of the world)."""
    out = []
    for _, poses in frames:
        out.append(
            [
                _outline(block, pose)
                if pose is not None
                and all(math.isfinite(v) for v in pose)
                and abs(pose[0]) <= settings.world_half_width
                else None
                for block, pose in zip(level.blocks, poses, strict=True)
            ]
        )
    return out


def _view(
    level: Level, outlines: Sequence[Sequence[Any]], settings: PhysicsSettings
) -> tuple[float, float, float, float]:
    """The world box drawn: every outline of every frame, and the ground's top."""
    xs = [x for frame in outlines for poly in frame if poly for x, _ in poly]
    ys = [y for frame in outlines for poly in frame if poly for _, y in poly] + [settings.ground_top]
    if not xs:
        xs = [b.x for b in level.blocks] or [0.0]
    return min(xs) - MARGIN, min(ys) - MARGIN, max(xs) + MARGIN, max(ys) + MARGIN


def frames_images(level: Level, frames: Sequence[Frame], settings: PhysicsSettings = DEFAULT_SETTINGS) -> list[Any]:
    """One palette image per recorded frame."""
    from PIL import Image, ImageDraw, ImageFont

    outlines = _outlines(level, frames, settings)
    x0, y0, x1, y1 = _view(level, outlines, settings)
    load = getattr(ImageFont, "load_default_imagefont", None)  # the bitmap font: FreeType costs ~1 ms a frame
    font = load() if load is not None else ImageFont.load_default()
    scale = SIZE / max(x1 - x0, y1 - y0)
    w, h = max(16, round((x1 - x0) * scale)), max(16, round((y1 - y0) * scale) + 12)
    palette = [v for rgb in COLOURS for v in rgb]

    def px(x: float, y: float) -> tuple[float, float]:
        return (x - x0) * scale, (y1 - y) * scale

    start = [(b.x, b.y) for b in level.blocks]
    images = []
    for (t, poses), polys in zip(frames, outlines, strict=True):
        img = Image.new("P", (w, h), 0)
        img.putpalette(palette)
        draw = ImageDraw.Draw(img)
        ground = px(x0, settings.ground_top)[1]
        draw.rectangle((0, ground, w, h - 12), fill=1)
        for pose, poly, (sx, sy) in zip(poses, polys, start, strict=True):
            if poly is None or pose is None:
                continue
            moved = math.hypot(pose[0] - sx, pose[1] - sy) >= settings.move_threshold
            draw.polygon([px(x, y) for x, y in poly], fill=3 if moved else 2)
        gone = sum(1 for p in poses if p is None)
        label = f"t = {t:4.1f} s" + (f", {gone} gone" if gone else "")
        draw.rectangle((0, h - 12, w, h), fill=0)
        draw.text((2, h - 11), label, fill=TEXT, font=font)
        images.append(img)
    return images


def shown_frames(frames: Sequence[Frame]) -> list[Frame]:
    """The frames the animation shows: the first, every ``EVERY``-th after it, and the last (the scored pose)."""
    out = list(frames[::EVERY])
    return out if out[-1] is frames[-1] else [*out, frames[-1]]


def write_animation(
    path: Path, level: Level, frames: Sequence[Frame], settings: PhysicsSettings = DEFAULT_SETTINGS
) -> Path | None:
    """The animated GIF of the run (None for a level without blocks or frames), every ``EVERY``-th recorded
    frame. A run that stopped at rest before 10 s holds its last frame for the rest of the time."""
    if not level.blocks or not frames:
        return None
    frames = shown_frames(frames)
    images = frames_images(level, frames, settings)
    times = [round(t * 1000) for t, _ in frames]
    durations = [b - a for a, b in itertools.pairwise(times)]
    total_ms = round(settings.steps * settings.dt * 1000)
    durations.append(max(200, total_ms - times[-1]) + 1500)  # the rest of the 10 s, then a pause before the loop
    return atomic_save(
        Path(path),
        lambda tmp: images[0].save(
            tmp, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True
        ),
    )
