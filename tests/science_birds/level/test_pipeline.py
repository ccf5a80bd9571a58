"""Response -> level build and level evaluation: outcomes, determinism, bounded work on huge responses."""

from __future__ import annotations

import json

import pytest

from pcg_plugin.errors import ConversionError, NoCode
from pcg_plugin.problems.science_birds.level.pipeline import build_level, evaluate_level


def test_golden_cases_through_build_level(reference) -> None:
    cases = json.loads((reference / "official-golden/extract_convert_golden.json").read_text())
    for name, case in cases.items():
        if case["extracted"] is None:
            with pytest.raises(NoCode, match=r"Code not found\."):
                build_level(case["input"])
        elif "error" in case:
            with pytest.raises(ConversionError) as info:
                build_level(case["input"])
            assert info.value.message == case["error"], name
        else:
            build = build_level(case["input"])
            assert (build.extracted, build.xml) == (case["extracted"], case["xml"]), name
            assert len(build.level.blocks) == case["extracted"].count("\n")


def test_evaluate_is_deterministic_and_timed() -> None:
    level = build_level("```\ndrop_block('b31', 5)\ndrop_block('b11', 4)\ndrop_block('b11', 6)\n```").level
    a, b = evaluate_level(level), evaluate_level(level)
    assert (
        (a.total_blocks, a.moving_blocks, a.stability) == (b.total_blocks, b.moving_blocks, b.stability) == (3, 0, 1.0)
    )
    assert a.image.tobytes() == b.image.tobytes()
    assert set(a.timings) == {"physics", "render"}


def test_ten_thousand_blocks_fail_fast_with_official_error() -> None:
    response = "```\n" + "drop_block('b11', 3)\n" * 10_000 + "```"
    with pytest.raises(ConversionError, match=r"Height boundary is intruded\."):
        build_level(response)


def test_grid_capacity_level_is_bounded() -> None:
    """The largest possible converted level (320 cells of b11) simulates and renders."""
    code = "".join(f"drop_block('b11', {x})\n" for _ in range(16) for x in range(20))
    ev = evaluate_level(build_level(f"```\n{code}```").level)
    assert ev.total_blocks == 320 and 0 <= ev.moving_blocks <= 320 and ev.image is not None


def test_level_whose_blocks_all_leave_gets_a_white_image() -> None:
    from pcg_plugin.problems.science_birds.level.types import Block, Level

    ev = evaluate_level(Level((Block("SquareTiny", "wood", 40.0, 0.0, 0),)))
    assert (ev.total_blocks, ev.moving_blocks, ev.stability) == (1, 1, 0.0)
    assert ev.image is not None and ev.image.convert("RGB").getextrema() == ((255, 255),) * 3
    assert evaluate_level(Level(())).image is None
