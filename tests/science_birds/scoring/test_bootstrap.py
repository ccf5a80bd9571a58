"""The shared bootstrap over trials: draws, determinism, the official scorer, and rank_intervals unchanged."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_baseline import NOISY, make_results

from pcg_plugin.errors import ResultsError
from pcg_plugin.problems.science_birds.report.html import rank_intervals
from pcg_plugin.problems.science_birds.results import Letter, Results, Settings
from pcg_plugin.problems.science_birds.scoring.bootstrap import (
    LetterTrials,
    Setup,
    draw,
    interval,
    letter_input,
    prepare,
    resampled_scores,
    setup_from_settings,
)
from pcg_plugin.problems.science_birds.scoring.official import LetterInput, score, to_decimal

D = Decimal


def old_rank_intervals(results: dict[str, Any], *, reps: int = 100, seed: int = 0) -> dict[str, tuple[int, int]]:
    """report_html.rank_intervals as it was before the resampling moved to
    pcg_plugin.problems.science_birds.scoring.bootstrap (reference)."""
    settings = results.get("settings") or {}
    subs = results.get("submissions") or []
    letters = list(settings.get("letters") or [])
    if len(subs) < 2 or not letters or reps < 1:
        return {}
    rnd = random.Random(seed)
    edition = settings.get("edition") if settings.get("edition") in ("2023", "2024", "2025") else "2024"
    ranks: dict[str, list[int]] = {s["name"]: [] for s in subs}
    for _ in range(reps):
        programs = {}
        for sub in subs:
            per_letter = {}
            for c in letters:
                data = (sub.get("letters") or {}).get(c) or {}
                trials = data.get("trials") or []
                drawn = [rnd.choice(trials) for _ in trials]
                per_letter[c] = LetterInput(
                    stability=tuple(
                        (i, to_decimal(t["sta"])) for i, t in enumerate(drawn, 1) if t.get("sta") is not None
                    ),
                    similarity=tuple(
                        (i, to_decimal(t["sim"])) for i, t in enumerate(drawn, 1) if t.get("sim") is not None
                    ),
                    diversity=to_decimal(data.get("diversity") or "0"),
                )
            programs[sub["name"]] = per_letter
        res = score(
            programs,
            edition=edition,
            trials=int(settings.get("trials") or 10),
            letters=letters,
            disable_weights=bool(settings.get("disable_weights")),
        )
        for name, r in res.ranking:
            ranks[name].append(r)
    out = {}
    for name, rs in ranks.items():
        rs.sort()
        out[name] = (rs[int(0.025 * (len(rs) - 1))], rs[round(0.975 * (len(rs) - 1))])
    return out


unit = st.one_of(st.none(), st.floats(0, 1, allow_nan=False))
trial_lists = st.lists(st.tuples(unit, unit), min_size=0, max_size=4)
runs = st.dictionaries(
    st.sampled_from(["p", "q", "r", "s"]),
    st.fixed_dictionaries({"A": trial_lists, "B": trial_lists}),
    min_size=2,
    max_size=4,
)


def results_from(values: dict[str, dict[str, list[tuple[float | None, float | None]]]], **kw: Any) -> dict[str, Any]:
    """A results document with uneven trial counts (the helper scores them; ranks only matter here)."""
    padded = {n: {c: v or [(None, None)] for c, v in per.items()} for n, per in values.items()}
    doc = make_results(padded, trials=4, **kw)
    for sub in doc["submissions"]:  # drop the padding again: a letter may have no trials at all
        for c, data in sub["letters"].items():
            data["trials"] = data["trials"][: len(values[sub["name"]][c])]
    return doc


@given(values=runs, reps=st.integers(0, 25), seed=st.integers(0, 1000), edition=st.sampled_from(["2023", "2024"]))
def test_rank_intervals_same_as_before(values: Any, reps: int, seed: int, edition: str) -> None:
    results = results_from(values, edition=edition, diversity_vector="probs")
    assert rank_intervals(results, reps=reps, seed=seed) == old_rank_intervals(results, reps=reps, seed=seed)


def test_rank_intervals_on_the_fixture() -> None:
    results = make_results()
    assert rank_intervals(results, reps=60, seed=7) == old_rank_intervals(results, reps=60, seed=7)


def settings(**data: Any) -> Settings:
    return Settings.read(data, "settings")


def letters(data: dict[str, Any]) -> dict[str, Letter]:
    return {c: Letter.read(d, c) for c, d in data.items()}


def test_setup_from_settings_defaults() -> None:
    assert setup_from_settings(settings()) == Setup("2024", 10, (), False)
    assert setup_from_settings(settings(edition="2023", trials=3, letters=["A"], disable_weights=True)) == Setup(
        "2023", 3, ("A",), True
    )
    assert setup_from_settings(settings(edition="1999")).edition == "2024"
    with pytest.raises(ResultsError, match=r"settings\.letters is a str, not a list"):
        settings(letters="AB")  # a string is not a list of letters: said so, not read as none


def test_prepare_converts_once_and_fills_missing_letters() -> None:
    prepared = prepare(
        {"x": letters({"A": {"diversity": "0.5", "trials": [{"sta": 1.0, "sim": None}, {"sta": 0.1, "sim": 0.2}]}})},
        ["A", "B"],
    )
    assert prepared["x"]["A"] == LetterTrials(((D(1), None), (D("0.1"), D("0.2"))), D("0.5"))
    assert prepared["x"]["B"] == LetterTrials((), D(0))


def test_letter_input_renumbers_and_skips_missing_stages() -> None:
    li = letter_input([(D(1), D("0.5")), (None, None), (D(1), D("0.5"))], D("0.3"))
    assert li == LetterInput(((1, D(1)), (3, D(1))), ((1, D("0.5")), (3, D("0.5"))), D("0.3"))


def test_draw_keeps_counts_and_values() -> None:
    prepared = prepare(
        {"x": letters({"A": {"diversity": "0.5", "trials": [{"sta": 1.0, "sim": 0.1}, {"sta": 0.5, "sim": 0.9}]}})},
        ["A"],
    )
    seen = set()
    rnd = random.Random(1)
    for _ in range(30):
        li = draw(prepared, ["A"], rnd)["x"]["A"]
        assert [i for i, _ in li.stability] == [1, 2] and li.diversity == D("0.5")
        pairs = set(zip((v for _, v in li.stability), (v for _, v in li.similarity), strict=True))
        assert pairs <= {(D(1), D("0.1")), (D("0.5"), D("0.9"))}  # a trial's sta and sim travel together
        seen |= pairs
    assert len(seen) == 2


def test_resampled_scores_deterministic_and_official() -> None:
    results = Results.from_dict(make_results())
    subs = {s.name: s.letters for s in results.submissions}
    setup = setup_from_settings(results.settings)
    one = list(resampled_scores(subs, setup, reps=5, seed=11))
    assert one == list(resampled_scores(subs, setup, reps=5, seed=11)) and len(one) == 5
    assert one != list(resampled_scores(subs, setup, reps=5, seed=12))
    for res in one:  # each draw is a full official scoring (normalized scores add up to 100)
        assert set(res.programs) == set(NOISY) and sum(res.normalized.values()) == pytest.approx(100)


@pytest.mark.parametrize("disable_weights", [False, True])
def test_constant_trials_resample_to_the_measured_scores(disable_weights: bool) -> None:
    """Every draw of unvarying trials is the run itself, scored as the run was (weights switched off included)."""
    steady = {n: {c: [t[c][0]] * 3 for c in "AB"} for n, t in NOISY.items()}
    results = Results.from_dict(make_results(steady, disable_weights=disable_weights))
    other = Results.from_dict(make_results(steady, disable_weights=not disable_weights))
    assert [s.prompt_score for s in results.submissions] != [s.prompt_score for s in other.submissions]
    subs = {s.name: s.letters for s in results.submissions}
    for res in resampled_scores(subs, setup_from_settings(results.settings), reps=3):
        for sub in results.submissions:
            assert format(res.programs[sub.name].prompt_score, "f") == sub.prompt_score


def test_interval_order_statistics() -> None:
    values = list(range(100, 0, -1))
    assert interval(values) == (3, 98)  # indices floor(0.025*99) = 2 and round(0.975*99) = 97 of 1..100
    assert interval([5]) == (5, 5)
    assert interval(values, 0.5) == (25, 75)
    with pytest.raises(ValueError):
        interval([])
    with pytest.raises(ValueError):
        interval([1], 1.0)


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=300))
def test_interval_matches_the_old_95_percent_rule(values: list[int]) -> None:
    rs = sorted(values)
    assert interval(values, 0.95) == (rs[int(0.025 * (len(rs) - 1))], rs[round(0.975 * (len(rs) - 1))])
    lo, hi = interval(values, 0.95)
    assert min(values) <= lo <= hi <= max(values)


def test_several_models_resample_each_model_and_sum():
    """With one trial per letter every draw is the data itself: each draw equals scoring.score_models."""
    from pcg_plugin.problems.science_birds.scoring.bootstrap import Setup, resampled_model_scores
    from pcg_plugin.problems.science_birds.scoring.official import LetterInput, score_models, to_decimal

    sims = {"m1": {"a": 0.5, "b": 0.25}, "m2": {"a": 0.125, "b": 0.75}}
    per_model = {
        m: {n: letters({"A": {"diversity": "0.5", "trials": [{"sta": 1.0, "sim": v}]}}) for n, v in subs.items()}
        for m, subs in sims.items()
    }
    expected = score_models(
        {
            m: {
                n: {"A": LetterInput(((1, to_decimal(1.0)),), ((1, to_decimal(v)),), to_decimal("0.5"))}
                for n, v in subs.items()
            }
            for m, subs in sims.items()
        },
        trials=1,
        letters=("A",),
    )
    draws = list(resampled_model_scores(per_model, Setup("2025", 1, ("A",)), reps=3, seed=1))
    assert len(draws) == 3 and all(d == expected for d in draws)
    assert expected.ranking == (("b", 1), ("a", 2))


def test_interval_is_the_core_one_and_serves_the_report_and_the_gate() -> None:
    """``baseline.lower_bounds`` and ``report.html.rank_intervals`` import ``interval`` from this module (a
    re-export of ``core.stats.intervals``); a lint fix once dropped it and both raised ImportError."""
    from pcg_plugin.core.stats import intervals
    from pcg_plugin.problems.science_birds.scoring import bootstrap

    assert bootstrap.interval is intervals.interval
