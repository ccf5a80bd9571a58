"""core.stats.intervals: shared ranks, bootstrap draws paired by key, rank and score intervals, paired differences."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.core.stats import intervals
from pcg_plugin.core.stats.intervals import drawn, interval, observed, paired_differences, rank_intervals, shared_ranks


def test_equal_scores_share_the_rank_of_the_first_and_no_score_ranks_last():
    assert shared_ranks({"a": 1.0, "b": 1.0, "c": 0.5, "d": None, "e": float("nan")}) == {
        "a": 1,
        "b": 1,
        "c": 3,
        "d": 4,
        "e": 4,
    }
    assert shared_ranks({"x": 0.0, "y": 0.0, "z": 0.0}) == {"x": 1, "y": 1, "z": 1}


def test_tied_ranks_follow_the_given_order():
    assert intervals.tied_ranks(["a", "b", "c", "d"], {"a": 3, "b": 2, "c": 2, "d": 1}.get) == {
        "a": 1,
        "b": 2,
        "c": 2,
        "d": 4,
    }


@given(st.dictionaries(st.text(min_size=1, max_size=3), st.integers(0, 5), min_size=1))
def test_shared_ranks_are_one_plus_the_count_of_better_scores(scores):
    ranks = shared_ranks({k: float(v) for k, v in scores.items()})
    assert all(ranks[k] == 1 + sum(w > v for w in scores.values()) for k, v in scores.items())


def test_a_draw_depends_on_its_key_alone_so_two_runs_are_resampled_in_pairs():
    pick = drawn(0, 3)
    assert list(pick(("team", None, "A"), 5)) == list(drawn(0, 3)(("team", None, "A"), 5))
    assert all(0 <= i < 5 for i in pick(("team", None, "A"), 5))
    assert [list(drawn(0, r)(("team", None, "A"), 5)) for r in range(5)] != [list(pick(("team", None, "A"), 5))] * 5
    assert list(observed("any", 4)) == [0, 1, 2, 3]


def _scorer(trials):
    """{name: [per-target trial scores]} scored as a mean over each target's picked trials, mean of targets."""

    def score(pick):
        out = {}
        for name, targets in trials.items():
            means = []
            for t, values in enumerate(targets):
                chosen = [values[i] for i in pick((name, None, t), len(values))]
                means.append(sum(chosen) / len(chosen))
            out[name] = sum(means) / len(means)
        return out

    return score


def test_rank_intervals_are_tight_when_the_order_never_flips_and_wide_when_it_may():
    clear = _scorer({"good": [[1, 1, 1]], "bad": [[0, 0, 0]]})
    assert rank_intervals(clear, reps=50) == {"good": (1, 1), "bad": (2, 2)}
    close = _scorer({"a": [[1, 0, 1]], "b": [[0, 1, 1]]})
    assert rank_intervals(close, reps=200) == {"a": (1, 2), "b": (1, 2)}


def test_paired_differences_of_a_run_with_itself_are_zero_and_a_drop_leaves_out_zero():
    a = _scorer({"t": [[1, 1, 0, 1], [1, 0, 1, 1]]})
    same = paired_differences(a, a, {"t": "t"}, reps=100)
    assert same == {"t": (0.0, 0.0)}
    worse = paired_differences(a, _scorer({"t": [[0, 0, 0, 0], [0, 0, 0, 0]]}), {"t": "t"}, reps=100)
    assert worse["t"][1] < 0


def test_interval_takes_order_statistics_and_refuses_nothing():
    assert interval(list(range(101))) == (2, 98)
    with pytest.raises(ValueError):
        interval([])


def test_rank_text():
    assert intervals.rank_text([1, 2]) == "1-2" and intervals.rank_text([3, 3]) == "3"
    assert intervals.rank_text(None) == "-"
