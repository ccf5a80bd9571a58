"""Glyph programs: every letter/variant lands exactly as designed under the official drop rule."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.science_birds.level import glyphs

LINE = re.compile(r"^drop_block\('(b11|b31|b13)', (\d+)\)$")


def _parse(program: str) -> list[tuple[str, int]]:
    out = []
    for line in program.splitlines():
        m = LINE.match(line)
        assert m, line
        out.append((m.group(1), int(m.group(2))))
    return out


@pytest.mark.parametrize("variant", [0, 1, 2, 3, 4, 9, 17])
@pytest.mark.parametrize("letter", list(glyphs.LETTERS))
def test_program_lands_as_designed(letter: str, variant: int) -> None:
    program = glyphs.letter_program(letter, variant)
    placed = glyphs.drop_grid(_parse(program))
    assert placed == list(glyphs.letter_drops(letter, variant))
    cells = [c for d in placed for c in d.cells()]
    assert len(cells) == len(set(cells)), "blocks overlap"
    assert set(cells) >= glyphs.letter_cells(letter, variant), "every glyph cell is built"
    assert all(0 <= r < glyphs.GRID_HEIGHT and 0 <= c < glyphs.GRID_WIDTH for r, c in cells)


def test_variant_zero_needs_no_font_and_is_stable_text() -> None:
    assert glyphs.letter_program("H") == glyphs.letter_program("h", 0)
    assert glyphs.letter_program("A").startswith("drop_block(")
    assert len({glyphs.letter_program(c) for c in glyphs.LETTERS}) == 26


def test_bad_letters_are_rejected() -> None:
    for bad in ("1", "AB", "", "é"):
        with pytest.raises(ValueError, match="letter"):
            glyphs.letter_cells(bad)


def test_drop_grid_matches_official_rule_examples() -> None:
    # A b31 over a single b11 rests on it; a b13 on the floor fills rows 0..2.
    placed = glyphs.drop_grid([("b11", 5), ("b31", 6), ("b13", 10)])
    assert [(d.block, d.x, d.row) for d in placed] == [("b11", 5, 0), ("b31", 6, 1), ("b13", 10, 0)]
    with pytest.raises(ValueError):
        glyphs.drop_grid([("b31", 0)])
    with pytest.raises(ValueError):
        glyphs.drop_grid([("b13", 3)] * 6)


@settings(max_examples=60, deadline=None)
@given(st.frozensets(st.tuples(st.integers(0, 9), st.integers(1, 18)), min_size=1, max_size=60))
def test_decompose_builds_any_shape(cells: frozenset[tuple[int, int]]) -> None:
    drops, built = glyphs.decompose(cells, max_pillars=200)
    placed = glyphs.drop_grid([(d.block, d.x) for d in drops])
    assert placed == drops
    covered = {c for d in placed for c in d.cells()}
    assert covered == built and built >= cells
