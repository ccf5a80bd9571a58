"""The charts' numbers are the trials' (pure functions: rows in, SVG out)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.core.views import charts


def row(sub: str, target: str, score: float | None, reason: str | None = None) -> dict:
    return {"submission": sub, "target": target, "score": score, "reason": reason}


def test_the_mean_per_target_is_each_submissions_own():
    svg = charts.by_target(
        [row("a", "X", 1.0), row("a", "X", 0.5), row("b", "X", 0.0, "no_code"), row("a", "Y", None, "error")],
        ["X", "Y", "Z"],
    )
    assert re.findall(r"<title>([^<]+)</title>", svg) == ["a · X: mean 0.75", "b · X: mean 0"]
    assert ">Y<" in svg and ">Z<" not in svg  # Y had trials (none with a score), Z none: not on the axis
    assert charts.by_target([row("a", "X", None)], ["X"]) == ""


@given(st.lists(st.floats(min_value=-5, max_value=5, allow_nan=False), min_size=1, max_size=60))
def test_the_histogram_counts_every_score_once(scores):
    svg = charts.histogram(scores)
    counts = [int(n) for n in re.findall(r": (\d+) trial\(s\)</title>", svg)]
    assert sum(counts) == len(scores) and len(counts) == 10


def test_scores_in_zero_one_are_drawn_on_zero_one():
    titles = re.findall(r"<title>([^<]+)</title>", charts.histogram([0.0, 0.05, 0.15, 0.95, 1.0]))
    assert [t for t in titles if not t.endswith(": 0 trial(s)")] == [
        "0–0.1: 2 trial(s)",
        "0.1–0.2: 1 trial(s)",
        "0.9–1: 2 trial(s)",
    ]


def test_zero_reasons_longest_first_and_escaped():
    svg = charts.reasons(
        [row("a", "X", 0, "no_code"), row("a", "Y", 0, "<b>"), row("b", "X", 0, "no_code"), row("b", "Y", 1.0)]
    )
    assert re.findall(r"<title>([^<]+)</title>", svg) == ["no_code: 2 trial(s)", "&lt;b&gt;: 1 trial(s)"]
    assert charts.reasons([row("a", "X", 1.0)]) == ""
