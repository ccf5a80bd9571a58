"""The glyph set (letter-sized structures) keeps main's block and moving counts level by level.

The fixture tests/data/physics/glyph_outcomes.json was written by ``scripts/data/glyph_physics_fixture.py --write`` from
the physics before the speed-ups of docs/performance.md (main dc58d6d): stopping at rest must not change a count.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pcg_plugin.problems.science_birds.level.glyphs import letter_program
from pcg_plugin.problems.science_birds.level.physics import PhysicsSettings, simulate
from pcg_plugin.problems.science_birds.level.pipeline import build_level

FIXTURE = json.loads((Path(__file__).parents[2] / "data" / "physics" / "glyph_outcomes.json").read_text())
DEFAULT_SETTINGS = PhysicsSettings()


def _counts(key: str, settings: PhysicsSettings = DEFAULT_SETTINGS) -> dict[str, int]:
    level = build_level("```\n" + letter_program(key[0], int(key[1:])) + "\n```").level
    sim = simulate(level, settings)
    return {"total": sim.total_blocks, "moving": sim.moving_blocks}


def test_fixture_covers_every_letter_and_twelve_variants() -> None:
    assert len(FIXTURE) == 26 * 12
    assert sum(v["moving"] == 0 for v in FIXTURE.values()) == 117  # glyphs.py: 117 of 312 programs stand


@pytest.mark.parametrize("key", [k for k in FIXTURE if k.endswith(("0", "1")) and len(k) == 2])
def test_variant_0_and_1_counts_unchanged(key: str) -> None:
    assert _counts(key) == FIXTURE[key]


def test_settle_stop_ends_letters_early() -> None:
    """The point of the stop at rest: a standing letter no longer runs all 500 steps."""
    level = build_level("```\n" + letter_program("H", 1) + "\n```").level
    assert simulate(level).steps_run < 250 < simulate(level, PhysicsSettings(settle_time=0)).steps_run


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(FIXTURE))
def test_every_glyph_count_unchanged(key: str) -> None:
    assert _counts(key) == FIXTURE[key]
