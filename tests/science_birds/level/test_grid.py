"""The official drop grid: golden errors and blocks, drop rules, and non-overlap for any accepted sequence."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from strategies import drop_program

from pcg_plugin.errors import ConversionError
from pcg_plugin.problems.science_birds.level.grid import HEIGHT_ERROR, TYPE_ERROR, WIDTH_ERROR, drop_blocks, parse_line


def test_golden_errors_and_successes(reference) -> None:
    cases = json.loads((reference / "official-golden/extract_convert_golden.json").read_text())
    for name, case in cases.items():
        if case["extracted"] is None:
            continue
        if "error" in case:
            with pytest.raises(ConversionError) as info:
                drop_blocks(case["extracted"])
            assert str(info.value) == case["error"], name
            assert info.value.reason == "conversion_error"
        else:
            drop_blocks(case["extracted"])


def test_few_shot_unshifted_positions(reference) -> None:
    cases = json.loads((reference / "official-golden/few_shot_levels_golden.json").read_text())
    for name, case in cases.items():
        grid = drop_blocks(case["extracted"])
        assert [(b.type, b.raw_col, b.row) for b in grid.blocks] == [
            (b["id"], b["x"], b["y"]) for b in case["blocks"]
        ], name


def test_shift_and_overlap_quirk() -> None:
    grid = drop_blocks("drop_block('b11', 9)\ndrop_block('b31', 12)\n")
    assert [(b.col, b.raw_col) for b in grid.blocks] == [(0, 9), (3, 12)]
    # column 5 full to row 15: a b31 centred at 4 finds its side cell taken in row 15 and stays there
    code = "".join("drop_block('b11', 5)\n" for _ in range(16)) + "drop_block('b31', 4)\n"
    grid = drop_blocks(code)
    assert grid.blocks[-1].row == 15  # placed overlapping the b11 in row 15, no error


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("drop_block('b33', 5)", TYPE_ERROR),
        ("drop_block('b31', 19)", WIDTH_ERROR),
        ("drop_block('b11', 20)", HEIGHT_ERROR),
        ("drop_block('b11', -1)", HEIGHT_ERROR),
        ("drop_block('b11', )", HEIGHT_ERROR),
    ],
)
def test_single_line_errors(line: str, message: str) -> None:
    with pytest.raises(ConversionError, match=message.replace(".", r"\.")):
        drop_blocks(line + "\n")


def test_b31_fits_at_both_edges() -> None:
    """Spec 4.3: the width error is for x = 0 or x = 19 only; a b31 centred at 1 or 18 covers columns 0-2 / 17-19."""
    grid = drop_blocks("drop_block('b31', 1)\ndrop_block('b31', 18)\n")
    assert [(b.raw_col, b.row) for b in grid.blocks] == [(1, 0), (18, 0)]
    assert grid.cells[0] == (1, 1, 1) + (0,) * 14 + (1, 1, 1)
    for edge in (0, 19):
        with pytest.raises(ConversionError, match=WIDTH_ERROR.replace(".", r"\.")):
            drop_blocks(f"drop_block('b31', {edge})\n")


def test_parse_line_js_semantics() -> None:
    assert parse_line("drop_block('b11', 04)") == ("b11", 4)
    assert parse_line("drop_block(|b13|, 0x0a)") == ("b13", 10)  # parseInt reads hex without a radix
    assert parse_line("print('x')") is None


@given(drop_program)
def test_any_sequence_errors_officially_or_never_overlaps(code: str) -> None:
    try:
        grid = drop_blocks(code)
    except ConversionError as exc:
        assert str(exc) in (HEIGHT_ERROR, WIDTH_ERROR, TYPE_ERROR)
        return
    seen: set[tuple[int, int]] = set()
    for b in grid.blocks:
        cells = {
            "b11": [(b.row, b.raw_col)],
            "b31": [(b.row, b.raw_col + d) for d in (-1, 0, 1)],
            "b13": [(b.row + d, b.raw_col) for d in (0, 1, 2)],
        }[b.type]
        if b.row == 15 and b.type == "b31":
            continue  # the official row-15 overlap quirk
        assert not seen & set(cells)
        assert all(0 <= r < 16 and 0 <= c < 20 for r, c in cells)
        seen |= set(cells)
    assert min(c for b in grid.blocks for c in ([b.col - 1] if b.type == "b31" else [b.col])) == 0
