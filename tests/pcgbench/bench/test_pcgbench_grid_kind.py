"""The grid content kind: drawing (one coloured square per tile), prompt values, show/parse round trip, regex."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.grid_kind import COLOURS, TILE, GridKind
from pcg_plugin.problems.pcgbench.bench.problem import ContentKind, reason_code
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names

GRIDS = [n for n in names() if get_problem(n).content.kind == "grid"]
TILE_GRIDS = [n for n in GRIDS if type(get_problem(n).content) is GridKind]  # drawn as their own codes


def test_a_level_is_one_square_per_tile_in_its_tile_colour():
    kind = get_problem("zelda-v0").content
    svg = kind.draw([[0, 1, 2], [3, 4, 5]])
    assert f'width="{3 * TILE}" height="{2 * TILE}"' in svg
    rects = re.findall(r'<rect x="(\d+)" y="(\d+)" width="\d+" height="\d+" fill="(#[0-9a-f]{6})"/>', svg)
    tiles = ("wall", "empty", "player", "key", "door", "enemy")
    expected = [(str(x * TILE), str(y * TILE), COLOURS[tiles[3 * y + x]]) for y in range(2) for x in range(3)]
    assert rects == expected


@pytest.mark.parametrize("name", TILE_GRIDS)
def test_every_tile_has_a_colour_and_tiles_can_be_told_apart(name):
    kind = get_problem(name).content
    assert isinstance(kind, ContentKind)
    colours = [colour for _, colour in kind.key()]
    assert len(set(colours)) == len(colours) == kind.alphabet


def test_a_tile_name_without_a_colour_gets_one_of_its_own():
    assert len({GridKind(1, 10, tuple(f"t{i}" for i in range(10))).colour(c) for c in range(10)}) == 10
    patterns = GridKind(1, 52, tuple(f"pattern {i}" for i in range(52)))  # Lode Runner's 2x2 patterns
    assert len({patterns.colour(c) for c in range(52)}) == 52 and patterns.wide_codes


@pytest.mark.parametrize("name", GRIDS)
def test_prompt_values_and_facts(name):
    kind = get_problem(name).content
    values = kind.placeholder_values()
    assert set(values) == set(kind.placeholders)
    assert (values["<WIDTH>"], values["<HEIGHT>"]) == (str(kind.cols), str(kind.rows))
    assert values["<LEGEND>"].splitlines()[0] == f"0 = {kind.legend[0]}"
    assert kind.facts()["legend"] == {str(c): t for c, t in enumerate(kind.legend)}


@given(st.data(), st.integers(1, 6), st.integers(1, 6), st.integers(2, 14))
def test_what_show_writes_parse_reads_back_and_the_grammar_accepts(data, rows, cols, alphabet):
    kind = GridKind(rows, cols, tuple(f"t{i}" for i in range(alphabet)))
    grid = data.draw(
        st.lists(st.lists(st.integers(0, alphabet - 1), min_size=cols, max_size=cols), min_size=rows, max_size=rows)
    )
    shown = kind.show(grid)
    assert kind.parse("Here it is:\n" + shown) == (grid, None)
    assert re.fullmatch(kind.answer_regex(), "Here it is:\n" + shown)
    assert kind.check(grid) is None


def test_the_grammar_refuses_a_wrong_shape_or_code():
    kind = GridKind(2, 3, ("a", "b"))
    assert re.fullmatch(kind.answer_regex(), "```\n010\n111\n```")
    for bad in ("```\n010\n11\n```", "```\n012\n111\n```", "```\n010\n```", "no block"):
        assert not re.fullmatch(kind.answer_regex(), bad)


def test_every_reason_a_grid_gives_is_named():
    kind = GridKind(2, 2, ("a", "b"))
    messages = [
        kind.parse("nothing")[1],
        kind.parse("```\nxy\n```")[1],
        kind.check([[0, 1]]),
        kind.check([[0, 1], [1, 5]]),
    ]
    assert [reason_code(m) for m in messages] == ["no_block", "not_a_grid", "wrong_shape", "wrong_alphabet"]
    assert set(kind.reasons) == {"no_block", "not_a_grid", "wrong_shape", "wrong_alphabet"}
