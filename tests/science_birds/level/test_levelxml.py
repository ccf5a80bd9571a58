"""Science Birds XML: byte-identical to the official converter; tolerant reader; write-read-write identity."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import valid_levels

from pcg_plugin.errors import ConversionError
from pcg_plugin.problems.science_birds.level.grid import drop_blocks
from pcg_plugin.problems.science_birds.level.levelxml import grid_to_xml, level_to_xml, parse_level
from pcg_plugin.problems.science_birds.level.types import Block, Level


def _cases(reference):  # type: ignore[no-untyped-def]
    cases = json.loads((reference / "official-golden/extract_convert_golden.json").read_text())
    cases.update(json.loads((reference / "official-golden/few_shot_levels_golden.json").read_text()))
    return {k: v for k, v in cases.items() if "xml" in v}


def test_golden_xml_byte_for_byte(reference) -> None:
    cases = _cases(reference)
    assert len(cases) >= 15
    for name, case in cases.items():
        xml = grid_to_xml(drop_blocks(case["extracted"]))
        assert xml == case["xml"], name
        assert level_to_xml(parse_level(xml)) == xml, name


def test_calibration_levels_round_trip(reference) -> None:
    paths = sorted((reference / "unity-2023-calibration").glob("*/levels/*/*.xml"))
    assert len(paths) == 60
    for path in paths:
        text = path.read_text()
        level = parse_level(text)
        assert level.blocks
        assert parse_level(level_to_xml(level)) == level


def test_reads_other_tools_levels() -> None:
    xml = """<?xml version="1.0" encoding="utf-16"?>
<Level width="2"><Camera x="0" y="-1" minWidth="20" maxWidth="25"/>
<Birds><Bird type="BirdRed"/></Birds><Slingshot x="-8" y="-2.5"/>
<GameObjects>
 <Block type="RectBig" material="stone" x="1.5" y="-3.39" rotation="0"/>
 <Block type="Circle" material="ICE" x="1.5" y="-2.9"/>
 <Pig type="BasicSmall" x="3" y="-3"/>
 <TNT type="" x="4" y="-3.16" rotation="0"/>
 <Platform type="Platform" x="0" y="0"/>
</GameObjects></Level>"""
    level = parse_level(xml)
    assert [(b.type, b.material) for b in level.blocks] == [("RectBig", "stone"), ("Circle", "ice"), ("TNT", "")]
    assert level.blocks[1].rotation == 0.0 and level.width == "2"


@pytest.mark.parametrize(
    "xml",
    [
        "not xml",
        "<Foo/>",
        '<Level><GameObjects><Block type="SquareTiny" material="gold" x="1" y="1"/></GameObjects></Level>',
        '<Level><GameObjects><Block type="SquareTiny" x="nan" y="1"/></GameObjects></Level>',
        '<Level><GameObjects><Block type="SquareTiny" y="1"/></GameObjects></Level>',
    ],
)
def test_bad_xml_is_a_clear_error(xml: str) -> None:
    with pytest.raises(ConversionError, match="level XML"):
        parse_level(xml)


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@given(
    st.lists(
        st.builds(
            Block,
            st.sampled_from(["SquareTiny", "RectSmall", "RectBig", "Circle"]),
            st.sampled_from(["wood", "ice", "stone"]),
            finite,
            finite,
            finite,
        ),
        max_size=8,
    )
)
def test_write_read_write_identical(blocks) -> None:  # type: ignore[no-untyped-def]
    xml = level_to_xml(Level(tuple(blocks)))
    assert level_to_xml(parse_level(xml)) == xml


@given(valid_levels())
def test_converted_levels_write_read_write(level) -> None:  # type: ignore[no-untyped-def]
    xml = level_to_xml(level)
    assert level_to_xml(parse_level(xml)) == xml
