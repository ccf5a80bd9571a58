"""What changed between two trials (``core.results.compare.change``), the like-for-like check
(``core.results.like_for_like``), and the compare page's escaping (``core.results.compare_page``): pure functions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.core.results.compare import change
from pcg_plugin.core.results.like_for_like import differences, setting_differences, shape_differences

scores = st.one_of(st.none(), st.floats(min_value=0, max_value=100, allow_nan=False))
reasons = st.one_of(st.none(), st.sampled_from(["no_code", "timeout", "unstable"]))
MIRROR = {
    "scored -> zero": "zero -> scored",
    "zero -> scored": "scored -> zero",
    "score fell": "score rose",
    "score rose": "score fell",
    "other zero reason": "other zero reason",
    None: None,
}


@given(scores, reasons, st.floats(min_value=0, max_value=10))
def test_a_trial_unchanged_has_no_change(score, reason, noise):
    assert change(score, reason, score, reason, noise) is None


@given(scores, reasons, scores, reasons, st.floats(min_value=0, max_value=10))
def test_swapping_the_runs_mirrors_the_change(sa, ra, sb, rb, noise):
    assert change(sb, rb, sa, ra, noise) == MIRROR[change(sa, ra, sb, rb, noise)]


@given(scores, reasons, scores, reasons, st.floats(min_value=0, max_value=10), st.floats(min_value=0, max_value=10))
def test_more_noise_never_makes_a_change(sa, ra, sb, rb, n1, n2):
    low, high = sorted((n1, n2))
    if change(sa, ra, sb, rb, low) is None:
        assert change(sa, ra, sb, rb, high) is None


def test_each_kind_of_change():
    assert change(0.5, None, 0.0, "no_code", 0) == "scored -> zero"
    assert change(0.0, "timeout", 0.3, None, 0) == "zero -> scored"
    assert change(0.0, "timeout", 0.0, "no_code", 0) == "other zero reason"
    assert change(0.5, None, 0.2, None, 0.1) == "score fell"
    assert change(0.5, None, 0.55, None, 0.1) is None  # within the noise


class Problem:
    name = "p"

    def like_for_like(self, doc):
        return {"digest": doc["settings"]["digest"]}


def doc(**settings):
    return {"settings": {"model": "m", "backend": "scripted", "base_url": None, "digest": "d1", **settings}}


ROWS = [{"target": "t", "trial": 1}]


def test_another_model_backend_base_url_and_digest_are_each_named():
    got = differences(
        Problem(), "p", doc(), doc(model="n", backend="openai", base_url="http://x", digest="d2"), ROWS, ROWS
    )
    assert got == [
        "another model (baseline m, this run n)",
        "another backend (baseline scripted, this run openai)",
        "another base URL (baseline none, this run http://x)",
        "another digest (baseline d1, this run d2)",
    ]
    assert differences(Problem(), "p", doc(), doc(), ROWS, ROWS) == []


def test_the_model_that_answered_wins_over_the_one_asked_for():
    assert differences(Problem(), "p", doc(model_used="x"), doc(model_used="y"), ROWS, ROWS) == [
        "another model (baseline x, this run y)"
    ]


def test_a_setting_one_run_did_not_record_is_not_compared():
    assert setting_differences({"temperature": 1.0}, {}) == []


def test_another_problem_targets_and_trials():
    assert differences(Problem(), "q", doc(), doc(), ROWS, ROWS) == ["another problem (baseline q, this run p)"]
    two = [{"target": "u", "trial": 2}]
    assert differences(Problem(), "p", doc(), doc(), ROWS, two) == [
        "other targets (baseline t; this run u)",
        "other trial counts (baseline 1 per target, this run 2)",
    ]


def test_a_problem_names_its_targets_and_adds_its_fixes():
    """Science Birds' gate: letters for targets, and each line with how to fix it."""
    hints = {"letters": "same letters", "trial counts": "same trials", "model": "same model"}
    assert shape_differences((("A", "B"), 3), (("A",), 4), "letters", per="letter", hints=hints) == [
        "other letters (baseline A, B; this run A): same letters",
        "other trial counts (baseline 3 per letter, this run 4): same trials",
    ]
    assert setting_differences({"model": "m", "backend": "x"}, {"model": "n", "backend": "y"}, hints=hints) == [
        "another model (baseline m, this run n): same model",
        "another backend (baseline x, this run y)",
    ]
    assert shape_differences(((), 1), ((), 1)) == []


def test_the_page_keeps_every_inserted_text_as_text(tmp_path):
    from pcg_plugin.core.results.compare import Comparison, Pair, TargetPair, TrialChange
    from pcg_plugin.core.results.compare_page import render

    evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    row_a = {"submission": evil, "target": evil, "trial": 1, "score": 0.5, "reason": None}
    row_b = {"submission": evil, "target": evil, "trial": 1, "score": 0.0, "reason": evil}
    c = Comparison(
        evil,
        (Pair(evil, evil, 1.0, 0.0, -1.0, -0.5, targets=(TargetPair(evil, 0.5, 0.0, -0.5, -0.5),)),),
        (evil,),
        (evil,),
        10,
        score=evil,
        run_a=str(tmp_path / evil.replace("/", "_")),
        run_b=str(tmp_path / "b"),
        changes=(TrialChange(evil, evil, 1, "scored -> zero", row_a, row_b, 0.0),),
        target_label=evil,
    )
    html = render([c], tmp_path, only_a=[evil], only_b=[evil])
    assert "<script>alert" not in html and "<img src=x" not in html and "&lt;script&gt;alert(1)" in html
    assert html.count("<script>") == 1  # the page's own


@given(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3), st.integers(0, 6))
def test_a_flag_only_where_the_shown_interval_leaves_out_zero(x, y, places):
    """DROP/RISE exactly where the interval as shown leaves out 0: a flagged interval never reads ``-0.0000``."""
    from pcg_plugin._util.numbers import interval
    from pcg_plugin.core.results.compare import flag

    low, high = sorted((x, y))
    shown = [float(v) for v in interval(low, high, places).strip("[]").split(", ")]
    assert (flag((low + high) / 2, low, high) != "") == (shown[0] > 0 or shown[1] < 0)
