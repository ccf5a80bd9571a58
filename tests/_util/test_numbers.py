"""How a number reads on a page and in a terminal (``_util.numbers``): at the problem's places, a value that is
not 0 never as 0, and 0 never with a sign."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin._util.numbers import fixed, interval

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)
places = st.integers(min_value=0, max_value=6)


@given(finite, places, st.booleans())
def test_a_value_that_is_not_zero_never_reads_as_zero(value, n, sign):
    shown = fixed(value, n, sign=sign)
    assert (float(shown) == 0) == (value == 0), shown
    assert shown[0] != "-" or value < 0  # a sign only where there is one: no -0.0000
    if value:
        assert math.copysign(1, float(shown)) == math.copysign(1, value)
        assert math.isclose(float(shown), value, rel_tol=0.05, abs_tol=0.5 * 10**-n), shown


def test_the_issue_numbers():
    """A trial that scored 2.9e-5 read ``0.0000`` beside ``scored -> zero``; an interval whose upper end was a
    bootstrap draw of 0 read ``-0.0000``."""
    assert fixed(2.9e-5) == "0.000029"
    assert fixed(0.0133, sign=True) == "+0.0133"
    assert fixed(-0.0) == fixed(0.0) == "0.0000" and fixed(-0.0, sign=True) == "0.0000"
    assert interval(-0.0133, -0.0) == "[-0.0133, 0.0000]"
    assert interval(-0.0133, -2.9e-5) == "[-0.0133, -0.000029]"
    assert fixed(3e-15) == "3.0e-15" and fixed(None) == "-" and fixed(float("nan"), missing="") == ""
    assert fixed(100, 2) == "100.00" and fixed(0.004, 2) == "0.0040"
