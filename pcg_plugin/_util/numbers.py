"""Numbers as a page or a terminal shows them: rounded to the places the problem publishes (``places``), except
that a value that is not zero never reads as zero (2.9e-5 at four places is ``0.000029``, not ``0.0000``, so that
it does not read as a zero beside a trial that went to zero), and zero never carries a sign (no ``-0.0000``)."""

from __future__ import annotations

import math
from typing import Any

MAX_PLACES = 12  # beyond this many decimals a tiny value is written in scientific notation
PLACES = 4  # where a problem names no ``places`` of its own


def fixed(value: Any, places: int = PLACES, *, sign: bool = False, missing: str = "-") -> str:
    """``value`` with ``places`` decimals (``sign``: ``+`` before a positive one); a nonzero value that would
    round to zero gets the decimals its first two significant digits need (scientific past ``MAX_PLACES``);
    ``missing`` for None and NaN."""
    if value is None:
        return missing
    v = float(value)
    if math.isnan(v):
        return missing
    plus = "+" if sign else ""
    if v == 0:
        return f"{0.0:.{places}f}"
    text = f"{v:{plus}.{places}f}"
    if any(c not in "+-0." for c in text):  # it reads as the number it is
        return text
    needed = 1 - math.floor(math.log10(abs(v)))  # decimals that show two significant digits
    if needed > MAX_PLACES:
        return f"{v:{plus}.1e}"
    return f"{v:{plus}.{needed}f}"


def interval(low: Any, high: Any, places: int = PLACES) -> str:
    """``[low, high]`` of a difference, each signed; empty where there is none."""
    if low is None or high is None:
        return ""
    return f"[{fixed(low, places, sign=True)}, {fixed(high, places, sign=True)}]"


def places_of(problem: Any) -> int:
    """The decimals a problem publishes its scores with (its ``places``; four where it names none)."""
    return int(getattr(problem, "places", PLACES))
