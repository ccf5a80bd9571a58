"""The stability test replayed: the frames come from the scoring run itself (recording them changes nothing),
the last frame is the pose that was scored, and the GIF shows the blocks that moved in red."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageSequence

from pcg_plugin.problems.science_birds.level import pipeline
from pcg_plugin.problems.science_birds.level.animate import COLOURS, EVERY, write_animation
from pcg_plugin.problems.science_birds.level.glyphs import letter_program
from pcg_plugin.problems.science_birds.level.physics import CHECK_EVERY, PhysicsSettings, simulate

RED = COLOURS[3]


def level_of(letter: str, variant: int = 0):  # type: ignore[no-untyped-def]
    return pipeline.build_level("```\n" + letter_program(letter, variant) + "\n```").level


def test_recording_the_frames_changes_nothing_and_ends_at_the_scored_pose():
    for letter in "AIQ":
        level = level_of(letter)
        frames: list = []
        plain, recorded = simulate(level), simulate(level, frames=frames)
        assert recorded == plain  # the same run: every pose, count and step
        assert frames[0] == (0.0, tuple((b.x, b.y, b.rotation) for b in level.blocks))
        assert [round(t / (PhysicsSettings().dt * CHECK_EVERY), 6) for t, _ in frames] == list(range(len(frames)))
        final = [(b.x, b.y, b.rotation) for b in plain.final_level.blocks]
        assert [p for p in frames[-1][1] if p is not None] == final


def red_pixels(img: Image.Image) -> int:
    rgb = img.convert("RGB")
    return sum(count for count, px in rgb.getcolors(rgb.width * rgb.height) or [] if px == RED)


def test_the_animation_has_a_frame_every_0_4_s_and_the_last_and_paints_the_moved_blocks_red(tmp_path: Path):
    falling, standing = level_of("A"), level_of("I")
    for level, name in ((falling, "A"), (standing, "I")):
        ev = pipeline.evaluate_level(level, record_frames=True)
        path = write_animation(tmp_path / f"{name}.gif", level, ev.frames)
        assert path is not None
        with Image.open(path) as gif:
            shown = [f.copy() for f in ImageSequence.Iterator(gif)]
            durations = [f.info.get("duration", 0) for f in ImageSequence.Iterator(gif)]
        assert red_pixels(shown[0]) == 0  # nothing has moved at t = 0
        if name == "A":
            assert ev.moving_blocks > 0 and red_pixels(shown[-1]) > 0
            assert len(shown) == len(ev.frames[::EVERY]) + ((len(ev.frames) - 1) % EVERY != 0)  # + the last
        else:
            assert ev.moving_blocks == 0 and red_pixels(shown[-1]) == 0  # (a block may sway on the way)
        assert sum(durations) >= 10_000  # the whole simulated 10 s, even when the run stopped at rest earlier


def test_a_level_without_blocks_has_no_animation(tmp_path: Path):
    level = level_of("A")
    empty = type(level)(blocks=())
    assert write_animation(tmp_path / "x.gif", empty, [(0.0, ())]) is None
    assert not (tmp_path / "x.gif").exists()
