"""The Mario content kinds: replies read into slice ids or tile rows, named reasons for bad replies, the
answer grammar agreeing with `show`, and the level picture."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.problem import ContentKind, reason_code
from pcg_plugin.problems.pcgbench.games.smb.kind import SLICE_REASONS, SliceIds, level_svg, tile_rows
from pcg_plugin.problems.pcgbench.games.smb.level import slice_level


def test_kinds_follow_the_protocol():
    assert isinstance(SliceIds(16), ContentKind) and isinstance(tile_rows(16), ContentKind)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 125), min_size=16, max_size=16))
def test_show_parse_round_trip_and_grammar(content):
    kind = SliceIds(16)
    shown = "Here is my level.\n" + kind.show(content)
    assert kind.parse(shown) == (content, None)
    reason = kind.check(content)
    assert reason is None or reason_code(reason) == "no_enemy"
    assert re.fullmatch(kind.answer_regex(), shown)


def test_slice_ids_named_reasons():
    kind = SliceIds(4)
    assert reason_code(kind.parse("no fence")[1]) == "no_block"
    assert reason_code(kind.parse("```\n[1, 2, x]\n```")[1]) == "not_slice_ids"
    assert kind.parse("```\n1 2, 3\n4\n```") == ([1, 2, 3, 4], None)
    assert reason_code(kind.check([1, 2, 3])) == "wrong_length"
    assert reason_code(kind.check([1, 2, 3, 126])) == "wrong_value"
    assert reason_code(kind.check([1, 2, 3, -1])) == "wrong_value"
    assert reason_code(kind.check([1, 2, 3, True])) == "wrong_value"
    assert reason_code(kind.check("1234")) == "not_slice_ids"
    assert reason_code(kind.check([0, 1, 9, 14])) == "no_enemy"  # no slice holds g, k or y
    assert kind.check([0, 1, 9, 5]) is None  # slice 5 holds a spiny
    assert set(SLICE_REASONS) == {"no_block", "not_slice_ids", "wrong_length", "wrong_value", "no_enemy"}


def test_sample_is_one_stream_in_range():
    a = SliceIds(50).sample(np.random.default_rng(3))
    rng = np.random.default_rng(3)
    assert a[:2] == [int(rng.integers(0, 126)), int(rng.integers(0, 126))]  # scalar draws, the benchmark's order
    assert len(a) == 50 and all(0 <= v < 126 for v in a) and len(set(a)) > 10


def test_placeholders_list_every_slice():
    text = SliceIds(16).placeholder_values()["<SLICES>"]
    assert text.splitlines()[0] == "0: --------------XX" and len(text.splitlines()) == 126


def test_tile_rows_parse_and_draw():
    kind = tile_rows(16)
    grid = [[0] * 16 for _ in range(14)] + [[1] * 16, [1] * 16]
    assert kind.parse(kind.show(grid)) == (grid, None)
    assert reason_code(kind.check(grid)) == "no_enemy" and "no_enemy" in kind.reasons
    grid[13][5] = 7
    assert kind.check(grid) is None
    svg = kind.draw(grid)
    assert svg.startswith("<svg") and svg.count("<rect") == 1 + 2 * 22 + 3  # sky, floor, M, F and the goomba
    assert len(kind.key()) == 13


def test_level_picture_draws_tiles_and_path():
    rows = slice_level([5] * 16)
    svg = level_svg(rows, [[32.0, 208.0], [64.0, 200.0]])
    assert svg.count('fill="#e02828"') == 16  # one spiny per slice-5 column
    assert '<polyline points="16.0,104.0 32.0,100.0"' in svg
