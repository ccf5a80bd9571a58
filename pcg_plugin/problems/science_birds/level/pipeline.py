"""Raw response -> extracted code -> XML -> level, and level -> stability numbers + image (pure, deterministic)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from pcg_plugin.errors import NoCode
from pcg_plugin.problems.science_birds.level.extract import extract_code
from pcg_plugin.problems.science_birds.level.grid import drop_blocks
from pcg_plugin.problems.science_birds.level.levelxml import grid_to_xml, parse_level
from pcg_plugin.problems.science_birds.level.physics import DEFAULT_SETTINGS, PhysicsSettings, simulate
from pcg_plugin.problems.science_birds.level.render import blank_image, render_level
from pcg_plugin.problems.science_birds.level.types import Level

NO_CODE_MESSAGE = "Code not found."


@dataclass(frozen=True)
class LevelBuild:
    """What the official extraction and conversion scripts would write for one response."""

    extracted: str
    xml: str
    level: Level


@dataclass(frozen=True)
class LevelEvaluation:
    """Stability numbers and the OCR image (None for a level without blocks); timings in seconds per stage."""

    total_blocks: int
    moving_blocks: int
    stability: float
    image: Any
    final_level: Level
    timings: dict[str, float] = field(default_factory=dict)
    frames: tuple[Any, ...] = ()  # the simulation's poses every 0.2 s (physics.Frame), for the animation


def build_level(response: str, prefix: str = "drop_block") -> LevelBuild:
    """Extract and convert one response; raises NoCode or ConversionError (official message) on failure."""
    code = extract_code(response, prefix)
    if code is None:
        raise NoCode(NO_CODE_MESSAGE)
    xml = grid_to_xml(drop_blocks(code, prefix))
    return LevelBuild(code, xml, parse_level(xml))


def evaluate_level(
    level: Level, settings: PhysicsSettings = DEFAULT_SETTINGS, *, record_frames: bool = False
) -> LevelEvaluation:
    """Simulate the 10 s stability test and render the image from the final poses; ``record_frames`` keeps the
    poses of this same run every 0.2 s (the stability animation)."""
    t0 = time.perf_counter()
    frames: list[Any] | None = [] if record_frames else None
    sim = simulate(level, settings, frames)
    t1 = time.perf_counter()
    image = render_level(sim.final_level) if level.blocks else None
    if image is None and level.blocks:  # every block destroyed or gone: Unity still writes an all-white image
        image = blank_image()
    t2 = time.perf_counter()
    return LevelEvaluation(
        sim.total_blocks,
        sim.moving_blocks,
        sim.stability,
        image,
        sim.final_level,
        {"physics": t1 - t0, "render": t2 - t1},
        tuple(frames or ()),
    )
