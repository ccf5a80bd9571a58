"""The gate's ``--pcg-max-drop`` (``core.results.gate.parse_drop``), read the same for every problem (Science Birds
passes
its exact-Decimal reader to the same ``settings``; its messages are the same)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.core.results.gate import parse_drop
from pcg_plugin.problems.science_birds.scoring.baseline import parse_max_drop


@given(st.floats(min_value=0, allow_infinity=False))
def test_a_drop_of_zero_or_more_is_read_exactly(value):
    assert parse_drop(repr(value)) == value


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("-1", "must be 0 or more"),
        ("-0.001", "must be 0 or more"),
        ("nan", "must be 0 or more"),
        ("lots", "is not a number"),
    ],
)
def test_a_bad_drop_is_named(text, why):
    with pytest.raises(ValueError, match=f"--pcg-max-drop: '{text}' {why}"):
        parse_drop(text)
    with pytest.raises(ValueError, match="--pcg-max-drop"):  # Science Birds' exact reader refuses it too
        parse_max_drop(text)
