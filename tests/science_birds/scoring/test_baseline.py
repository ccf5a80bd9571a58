"""Baseline gating: the baseline document, save/load, like-for-like checks, plain and noise-aware comparison."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.core.results import like_for_like as lfl
from pcg_plugin.problems.science_birds import like_for_like as sb
from pcg_plugin.problems.science_birds.scoring.baseline import (
    BASELINE_SCHEMA,
    BaselineError,
    Change,
    Comparison,
    baseline_document,
    compare,
    format_comparison,
    incompatibilities,
    load_baseline,
    lower_bounds,
    save_baseline,
)
from pcg_plugin.problems.science_birds.scoring.official import LetterInput, score, to_decimal

D = Decimal
LETTERS = ("A", "B")
TRIALS = 3
Trials = dict[str, dict[str, list[tuple[float | None, float | None]]]]

# Three submissions x two letters x three trials of (sta, sim): some noise, one failed trial.
NOISY: Trials = {
    "team_a": {"A": [(1.0, 0.9), (1.0, 0.7), (0.5, 0.8)], "B": [(1.0, 0.6), (1.0, 0.9), (1.0, 0.3)]},
    "team_b": {"A": [(0.5, 0.4), (1.0, 0.9), (None, None)], "B": [(1.0, 0.5), (0.0, 0.2), (1.0, 0.8)]},
    "team_c": {"A": [(1.0, 0.2), (1.0, 0.3), (1.0, 0.1)], "B": [(0.5, 0.5), (0.5, 0.6), (1.0, 0.4)]},
}
DIVERSITY = {"A": 0.5, "B": 0.25}


def make_settings(**overrides: Any) -> dict[str, Any]:
    settings = {
        "edition": "2024",
        "letters": list(LETTERS),
        "trials": TRIALS,
        "backend": "openai",
        "offline_default": False,
        "model": "gpt-3.5-turbo-0125",
        "base_url": None,
        "temperature": 1,
        "seed_policy": "fixed:42",
        "record_mode": "none",
        "classifier": {"name": "pcg-letters", "digest": "sha256:" + "ab12" * 16},
        "physics": {"digest": "0123456789abcdef", "damage": False},
        "diversity_vector": "probs",
        "disable_weights": False,
        "tie_break": None,
        "max_time": 60,
        "token_limit": 4096,
        "notes": [],
    }
    settings.update(overrides)
    return settings


def make_results(values: Trials = NOISY, **settings_overrides: Any) -> dict[str, Any]:
    """A results.json document (docs/results-schema.md) whose scores come from the official scorer."""
    settings = make_settings(**settings_overrides)
    letters = tuple(settings["letters"])
    programs = {
        name: {
            c: LetterInput(
                stability=tuple((i, to_decimal(sta)) for i, (sta, _) in enumerate(per_letter[c], 1) if sta is not None),
                similarity=tuple(
                    (i, to_decimal(sim)) for i, (_, sim) in enumerate(per_letter[c], 1) if sim is not None
                ),
                diversity=to_decimal(DIVERSITY.get(c, 0.5)),
            )
            for c in letters
        }
        for name, per_letter in values.items()
    }
    res = score(
        programs,
        edition=settings["edition"],
        trials=settings["trials"],
        letters=letters,
        disable_weights=settings["disable_weights"],
    )
    subs = []
    for name, prog in res.programs.items():
        letters_doc = {}
        for c in letters:
            ch = prog.letters[c]
            scores = dict(ch.trial_scores)
            letters_doc[c] = {
                "char_score": format(ch.char_score, "f"),
                "sta_mean": format(ch.sta_mean, "f"),
                "sim_mean": format(ch.sim_mean, "f"),
                "diversity": None if ch.diversity is None else format(ch.diversity, "f"),
                "trials": [
                    {
                        "trial": i,
                        "nodeid": f"submissions/{name}::{c}::{i}",
                        "sta": sta,
                        "sim": sim,
                        "trial_score": format(scores.get(i, D(0)), "f"),
                        "top": c,
                        "reason": None if sta is not None else "no_code",
                        "message": None,
                        "probs": None,
                    }
                    for i, (sta, sim) in enumerate(values[name][c], 1)
                ],
            }
        subs.append(
            {
                "name": name,
                "team": name,
                "format": "program-2024",
                "path": f"submissions/{name}",
                "files_hash": f"sha256:{name}",
                "prompt_length": None,
                "prompt_score": format(prog.prompt_score, "f"),
                "normalized_score": format(prog.normalized_score, "f"),
                "rank": prog.rank,
                "usage": {},
                "letters": letters_doc,
            }
        )
    subs.sort(key=lambda s: s["rank"])
    return {
        "schema": "pytest-pcg/results/1",
        "run": {
            "id": "20261122-180000-ab12cd",
            "started": "2026-11-22T18:00:00+00:00",
            "finished": "2026-11-22T18:05:00+00:00",
            "out_dir": "/tmp/run",
        },
        "settings": settings,
        "provenance": {"git_sha": "0123abc", "versions": {"python": "3.11.7", "pytest-pcg": "0.1.0"}},
        "competition_score": format(res.competition_score, "f"),
        "weights": {},
        "submissions": subs,
        "per_model": None,
        "workers": {},
    }


def worse(trials: Trials, name: str, letter: str, factor: float) -> Trials:
    """``trials`` with every similarity of (name, letter) scaled by ``factor`` (a worse submission)."""
    out = copy.deepcopy(trials)
    out[name][letter] = [(sta, None if sim is None else sim * factor) for sta, sim in out[name][letter]]
    return out


def by_key(comparison: Comparison) -> dict[tuple[str, str | None, str], Change]:
    return {(ch.submission, ch.letter, ch.metric): ch for ch in comparison.changes}


# -- the document and its file ----------------------------------------------------------------------------


def test_baseline_document_contents() -> None:
    results = make_results()
    doc = baseline_document(results)
    assert doc["schema"] == BASELINE_SCHEMA and doc["created"].endswith("+00:00")
    s = doc["settings"]
    assert s["edition"] == "2024" and s["letters"] == ["A", "B"] and s["trials"] == 3 and s["seed_policy"] == "fixed:42"
    assert s["classifier"]["digest"].startswith("sha256:ab12") and s["physics"]["digest"] == "0123456789abcdef"
    assert "record_mode" not in s and "notes" not in s  # replaying the store is the same run
    assert doc["versions"] == {"git_sha": "0123abc", "python": "3.11.7", "pytest-pcg": "0.1.0"}
    team_a = doc["scores"]["submissions"]["team_a"]
    src = next(sub for sub in results["submissions"] if sub["name"] == "team_a")
    assert team_a["normalized_score"] == src["normalized_score"] and isinstance(team_a["prompt_score"], str)
    assert team_a["letters"]["A"]["char_score"] == src["letters"]["A"]["char_score"]
    assert team_a["letters"]["A"]["trials"][0] == {
        "trial": 1,
        "sta": 1.0,
        "sim": 0.9,
        "trial_score": src["letters"]["A"]["trials"][0]["trial_score"],
        "reason": None,
    }
    assert team_a["rank"] == src["rank"]
    # the competition score (Σ prompt, the normalisation's denominator) is kept as the exact string
    assert doc["scores"]["competition_score"] == results["competition_score"] and doc["scores"]["multi_model"] is False


def test_save_load_round_trip(tmp_path: Path) -> None:
    results = make_results()
    path = save_baseline(tmp_path / "deep" / "baselines" / "main.json", results)
    assert path.is_file() and [p.name for p in path.parent.iterdir()] == ["main.json"]  # no temp file left
    loaded = load_baseline(path)
    expected = baseline_document(results)
    assert {k: v for k, v in loaded.items() if k != "created"} == {k: v for k, v in expected.items() if k != "created"}
    assert json.loads(path.read_text()) == loaded and path.read_text().startswith('{\n  "created"')  # sorted, indented
    assert not compare(loaded, results, max_drop=0).failed


def test_save_again_into_the_same_folder_replaces_the_baseline(tmp_path: Path) -> None:
    """main refreshes its committed baseline in place (the documented workflow): the folder already exists."""
    path = tmp_path / "baselines" / "main.json"
    save_baseline(path, make_results())
    better = make_results()
    better["competition_score"] = "1"
    save_baseline(path, better)
    assert load_baseline(path)["scores"]["competition_score"] == "1" and len(list(path.parent.iterdir())) == 1


@pytest.mark.parametrize(
    "content, words",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a pytest-pcg baseline"),
        ('{"schema": "something/else"}', "not a pytest-pcg baseline"),
        ('{"schema": "pytest-pcg/baseline/9"}', "another pytest-pcg version"),
        ('{"schema": "pytest-pcg/baseline/1"}', "damaged"),
    ],
)
def test_bad_files_name_the_path(tmp_path: Path, content: str, words: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(BaselineError, match=words) as info:
        load_baseline(path)
    assert str(path) in str(info.value) and "--pcg-save-baseline" in str(info.value)


def test_a_results_json_or_its_run_folder_is_read_as_the_baseline_cut_from_it(tmp_path: Path) -> None:
    """Issue 34: --pcg-baseline takes a saved baseline, a run's results.json or the run folder."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps(make_results()))
    cut = baseline_document(make_results())
    for source in (path, tmp_path):
        got = load_baseline(source)
        assert got["schema"] == "pytest-pcg/baseline/1"
        assert got["scores"] == cut["scores"] and got["settings"] == cut["settings"]


def test_a_missing_file_is_not_a_baseline(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="does not exist") as info:
        load_baseline(tmp_path / "nope.json")
    assert str(tmp_path / "nope.json") in str(info.value)


# -- like for like ----------------------------------------------------------------------------------------


def more_trials(values: Trials) -> Trials:
    """``values`` with a fourth trial of every letter."""
    return {n: {c: [*v, (1.0, 0.5)] for c, v in per.items()} for n, per in values.items()}


def letters_of(values: Trials, letters: Sequence[str]) -> Trials:
    """``values`` over ``letters`` (a letter it lacks takes A's trials)."""
    return {n: {c: per.get(c, per["A"]) for c in letters} for n, per in values.items()}


# One pair of runs for each label the gate can name: (label, settings of the second run, its trials).
CASES: list[tuple[str, dict[str, Any], Trials]] = [
    ("edition", {"edition": "2023"}, NOISY),
    ("letters", {"letters": ["A", "C"]}, letters_of(NOISY, "AC")),
    ("trial counts", {"trials": 4}, more_trials(NOISY)),
    ("model", {"model": "gpt-4o"}, NOISY),
    ("backend", {"backend": "offline"}, NOISY),
    ("base URL", {"base_url": "http://localhost:8000/v1"}, NOISY),
    ("temperature", {"temperature": 0.7}, NOISY),
    ("seed policy", {"seed_policy": "none"}, NOISY),
    ("disable weights", {"disable_weights": True}, NOISY),
    ("tie break", {"tie_break": "prompt-length"}, NOISY),
    ("diversity vector", {"diversity_vector": "embedding"}, NOISY),
    ("max time", {"max_time": 30}, NOISY),
    ("token limit", {"token_limit": 1024}, NOISY),
    ("classifier digest", {"classifier": {"name": "pcg-letters", "digest": "sha256:" + "cd34" * 16}}, NOISY),
    ("physics digest", {"physics": {"digest": "fedcba9876543210", "damage": True}}, NOISY),
]


def test_the_cases_cover_every_label_the_gate_or_the_hook_can_name() -> None:
    labels = {label for label, _ in lfl.COMMON} | set(sb.SHAPE) | {s.label for s in sb.OWN}
    assert sorted(label for label, _, _ in CASES) == sorted(labels) == sorted(sb.HINTS)
    assert set(sb.PRE_RUN) <= labels


@pytest.mark.parametrize("label, override, values", CASES, ids=[c[0] for c in CASES])
def test_each_setting_difference_is_named(label: str, override: dict[str, Any], values: Trials) -> None:
    base = baseline_document(make_results())
    other = baseline_document(make_results(values, **override))
    lines = incompatibilities(base, other)
    start = {"letters": "other letters (baseline A, B; this run A, C)", "trial counts": "other trial counts ("}
    assert len(lines) == 1 and lines[0].startswith(start.get(label, f"another {label} (baseline "))
    assert lines[0].endswith(f"): {sb.HINTS[label]}")  # says how to fix
    with pytest.raises(BaselineError, match=re.escape(lines[0])):
        compare(base, other, max_drop="0.01")


@pytest.mark.parametrize("label, override, values", CASES, ids=[c[0] for c in CASES])
def test_the_gate_and_the_hook_name_the_same_differences(label: str, override: dict[str, Any], values: Trials) -> None:
    """The gate (baseline documents) says what the harness's check says of the same two runs through Science
    Birds' hook (``pcg compare``, results.json and their trial rows), in its words (letters for targets) with
    the fix: a setting one of them compares and the other does not goes red here."""
    from pcg_plugin.problems.science_birds.problem import ScienceBirds
    from pcg_plugin.problems.science_birds.rows import trial_rows

    a, b = make_results(), make_results(values, **override)
    problem = ScienceBirds()
    harness = lfl.differences(problem, problem.name, a, b, trial_rows(a), trial_rows(b))
    in_letters = [
        line.replace("other targets", "other letters").replace("per target", "per letter") for line in harness
    ]
    assert len(harness) == 1
    assert incompatibilities(baseline_document(a), baseline_document(b)) == [
        lfl.with_hint(line, sb.HINTS[label]) for line in in_letters
    ]


def test_a_model_change_is_the_harness_line_and_its_fix() -> None:
    a, b = make_results(), make_results(model="gpt-4o")
    (harness,) = lfl.setting_differences(lfl.common_settings(a), lfl.common_settings(b))
    assert harness == "another model (baseline gpt-3.5-turbo-0125, this run gpt-4o)"
    assert incompatibilities(baseline_document(a), baseline_document(b)) == [
        f"{harness}: use the same --pcg-model, or re-save the baseline"
    ]


def test_incompatibility_message_shape() -> None:
    base = baseline_document(make_results())
    other = baseline_document(make_results(classifier={"name": "x", "digest": "sha256:" + "cd34" * 16}))
    (line,) = incompatibilities(base, other)
    assert line == (
        "another classifier digest (baseline sha256:ab12ab12ab12ab12ab12ab12ab12ab12…, this run "
        "sha256:cd34cd34cd34cd34cd34cd34cd34cd34…): re-save the baseline after changing the classifier"
    )


def test_the_pre_run_check_names_only_what_is_known_before_the_run() -> None:
    base = baseline_document(make_results())
    other = baseline_document(make_results(letters_of(NOISY, "AC"), letters=["A", "C"], model="gpt-4o", trials=4))
    assert [line.split(" (")[0] for line in incompatibilities(base, other, keys=sb.PRE_RUN)] == [
        "other letters",
        "other trial counts",
    ]
    assert [line.split(" (")[0] for line in incompatibilities(base, other, keys=("model",))] == ["another model"]


def test_unrecorded_profile_guards_do_not_block() -> None:
    base = baseline_document(make_results(max_time=None, token_limit=None))
    assert incompatibilities(base, baseline_document(make_results())) == []


def test_a_run_that_loaded_no_classifier_or_physics_is_gated_not_refused() -> None:
    """Every answer empty: no trial reached classification or simulation, so the run records no digest; no score
    of it depends on them (issue 34: the gate must fail such a run, exit 1, not refuse it). A digest that
    differs is still refused."""
    base = baseline_document(make_results())
    unloaded = baseline_document(
        make_results(classifier={"name": None, "digest": None}, physics={"digest": None, "damage": False})
    )
    assert incompatibilities(base, unloaded) == []
    other = baseline_document(make_results(physics={"digest": "fedcba9876543210", "damage": False}))
    assert [line.split(" (")[0] for line in incompatibilities(base, other)] == ["another physics digest"]
    assert sb.own_settings(unloaded).keys().isdisjoint({"classifier digest", "physics digest"})  # the hook agrees


# -- plain comparison -------------------------------------------------------------------------------------


def test_identical_runs_pass() -> None:
    results = make_results()
    comparison = compare(baseline_document(results), baseline_document(results), max_drop="0")
    assert not comparison.failed and comparison.regressions == () and comparison.improvements == ()
    assert {ch.status for ch in comparison.changes} == {"unchanged"}
    assert len(comparison.changes) == 3 * (2 + len(LETTERS))  # normalized, prompt, every letter's char score
    lines = format_comparison(comparison)
    assert lines[0].endswith("(plain: max drop 0)") and lines[1] == "no score changed"
    assert lines[-1] == "0 regressions, 0 improvements -> ok"


def test_a_letter_that_drops_fails_the_run() -> None:
    base = baseline_document(make_results())
    current = make_results(worse(NOISY, "team_a", "B", 0.5))
    comparison = compare(base, current, max_drop="0.001")
    rows = by_key(comparison)
    assert rows[("team_a", "B", "char_score")].status == "regressed"
    assert rows[("team_a", None, "prompt_score")].status == "regressed"
    assert rows[("team_a", None, "normalized_score")].status == "regressed"
    assert rows[("team_a", "A", "char_score")].status == "unchanged"
    assert rows[("team_b", None, "normalized_score")].status == "improved"  # relative: the others gain
    assert comparison.failed and all(ch.allowed == D("0.001") for ch in comparison.changes)
    ch = rows[("team_a", "B", "char_score")]
    assert ch.delta == ch.current - ch.baseline < D("-0.001")  # type: ignore[operator]
    lines = format_comparison(comparison)
    assert lines[0].endswith("(plain: max drop 0.001)")
    assert lines[1].split() == ["submission", "letter", "metric", "baseline", "current", "delta", "allowed", "status"]
    body = "\n".join(lines)
    assert "team_a      B       char_score" in body and "regressed" in body and "improved" in body
    assert "team_a" in lines[2] and lines[-1].startswith("3 regressions, ") and lines[-1].endswith("-> FAILED")
    regressed = [ln for ln in lines if ln.endswith("regressed")]
    assert len(regressed) == 3 and all("-0.00" in ln for ln in regressed if "normalized" not in ln)  # readable decimals
    assert "E-" not in body and "e-" not in body  # no exponents


def test_a_drop_smaller_than_the_threshold_passes() -> None:
    base = baseline_document(make_results())
    current = make_results(worse(NOISY, "team_a", "B", 0.999))
    comparison = compare(base, current, max_drop="0.1")  # normalized scores are percentages: ~0.03 moved
    assert not comparison.failed and comparison.regressions == ()
    small = by_key(comparison)[("team_a", "B", "char_score")]
    assert small.status == "within_max_drop" and small.delta is not None and small.delta < 0
    assert any("team_a" in ln and "within max drop" in ln for ln in format_comparison(comparison))  # moved: shown
    assert len(format_comparison(comparison, only_changes=False)) > len(format_comparison(comparison))


def test_an_improvement_is_reported_not_failed() -> None:
    alone = {"team_c": NOISY["team_c"]}  # one submission: its normalized score is 100 whatever it scores
    better = {"team_c": {**NOISY["team_c"], "A": [(1.0, 0.9)] * 3}}
    # weights off: with one submission the official weight (1 - average) would shrink as it improves
    comparison = compare(
        make_results(alone, disable_weights=True), make_results(better, disable_weights=True), max_drop=0
    )
    rows = by_key(comparison)
    assert rows[("team_c", "A", "char_score")].status == "improved"
    assert rows[("team_c", None, "prompt_score")] in comparison.improvements
    assert rows[("team_c", None, "normalized_score")].status == "unchanged"
    assert not comparison.failed and len(comparison.improvements) == 2
    assert format_comparison(comparison)[-1] == "0 regressions, 2 improvements -> ok"


def test_others_gain_normalized_score_when_one_drops() -> None:
    """normalized_score is per run (sums to 100): it is gated like the others, its rises are improvements."""
    comparison = compare(make_results(), make_results(worse(NOISY, "team_a", "A", 0.0)), max_drop="0.001")
    rows = by_key(comparison)
    assert rows[("team_b", None, "normalized_score")].status == "improved"
    assert rows[("team_b", None, "normalized_score")] not in comparison.regressions
    assert sum(ch.current for ch in comparison.changes if ch.metric == "normalized_score") == 100  # type: ignore[misc]


def test_exact_threshold_is_not_a_regression() -> None:
    base = baseline_document(make_results())
    current = copy.deepcopy(base)
    sub = current["scores"]["submissions"]["team_a"]
    sub["prompt_score"] = format(D(sub["prompt_score"]) - D("0.001"), "f")
    rows = by_key(compare(base, current, max_drop="0.001"))
    assert rows[("team_a", None, "prompt_score")].status == "within_max_drop"  # strictly greater fails
    rows = by_key(compare(base, current, max_drop="0.00099999999999999999"))
    assert rows[("team_a", None, "prompt_score")].status == "regressed"  # exact Decimal, no float rounding


def test_vanished_submission_fails_and_new_one_is_reported() -> None:
    base = baseline_document(make_results())
    trials = {k: v for k, v in NOISY.items() if k != "team_c"} | {"team_d": NOISY["team_c"]}
    comparison = compare(base, make_results(trials), max_drop=100)
    rows = by_key(comparison)
    assert rows[("team_c", None, "normalized_score")].status == "missing"
    assert rows[("team_c", None, "normalized_score")] in comparison.regressions and comparison.failed
    assert rows[("team_d", None, "normalized_score")].status == "new"
    assert rows[("team_d", None, "normalized_score")].baseline is None
    assert "1 new" in format_comparison(comparison)[-1]


def test_bad_arguments() -> None:
    doc = baseline_document(make_results())
    with pytest.raises(ValueError, match="max-drop"):
        compare(doc, doc, max_drop=-1)
    with pytest.raises(ValueError, match="max-drop"):
        compare(doc, doc, max_drop="lots")
    with pytest.raises(ValueError, match="drop-test"):
        compare(doc, doc, max_drop=0, method="t-test")


# -- noise-aware comparison -------------------------------------------------------------------------------


def test_bootstrap_is_deterministic_and_says_so() -> None:
    base = baseline_document(make_results())
    current = make_results(worse(NOISY, "team_b", "A", 0.9))
    one = compare(base, current, max_drop="0.0001", method="bootstrap", resamples=40, seed=3)
    assert one == compare(base, current, max_drop="0.0001", method="bootstrap", resamples=40, seed=3)
    assert one.method == "bootstrap" and one.confidence == 0.95
    assert format_comparison(one)[0].endswith(
        "(noise-aware: bootstrap over trials, 40 resamples, 95 % (max drop 0.0001))"
    )


def test_small_drop_in_noisy_trials_is_within_noise() -> None:
    base = baseline_document(make_results())
    current = make_results(worse(NOISY, "team_a", "B", 0.97))
    plain = by_key(compare(base, current, max_drop="0.0001"))
    noisy = compare(base, current, max_drop="0.0001", method="bootstrap", resamples=60)
    key = ("team_a", "B", "char_score")
    assert plain[key].status == "regressed"
    ch = by_key(noisy)[key]
    assert ch.status == "within_noise" and ch.allowed > D("0.0001") and -ch.delta <= ch.allowed  # type: ignore[operator]
    assert ch not in noisy.regressions and "within noise" in format_comparison(noisy)[-1]
    # a collapse is not noise
    collapsed = compare(
        base, make_results(worse(NOISY, "team_a", "B", 0.0)), max_drop="0.0001", method="bootstrap", resamples=60
    )
    assert by_key(collapsed)[key].status == "regressed" and collapsed.failed


def test_constant_trials_make_bootstrap_plain() -> None:
    steady: Trials = {name: {c: [trials[c][0]] * TRIALS for c in LETTERS} for name, trials in NOISY.items()}
    steady["team_b"]["A"] = [(1.0, 0.5)] * TRIALS
    base = baseline_document(make_results(steady))
    current = make_results(worse(steady, "team_a", "B", 0.95))
    plain = compare(base, current, max_drop="0.0001")
    boot = compare(base, current, max_drop="0.0001", method="bootstrap", resamples=30)
    assert [(c.status, c.allowed) for c in plain.changes] == [(c.status, c.allowed) for c in boot.changes]
    assert boot.failed


def test_multi_model_baseline_with_a_model_missing_its_letters() -> None:
    results = make_results()
    results["per_model"] = {"m": {"submissions": {}}}  # a model part without this run's submissions: zeros
    assert not compare(results, results, max_drop=0, method="bootstrap", resamples=2).failed
    assert not compare(results, results, max_drop=0).failed


@given(
    max_drop=st.decimals(min_value=0, max_value=1, allow_nan=False, allow_infinity=False, places=6),
    method=st.sampled_from(["plain", "bootstrap"]),
    seed=st.integers(0, 2**16),
)
def test_self_comparison_never_fails(max_drop: Decimal, method: str, seed: int) -> None:
    doc = SELF_DOC
    comparison = compare(doc, doc, max_drop=max_drop, method=method, resamples=5, seed=seed)
    assert not comparison.failed and not comparison.regressions
    if method == "plain":
        assert all(ch.allowed == max_drop for ch in comparison.changes)
    else:
        assert all(ch.allowed >= max_drop for ch in comparison.changes)


SELF_DOC = baseline_document(make_results())


@given(
    factor=st.floats(0, 1.2),
    max_drop=st.decimals(min_value=0, max_value="0.01", places=5),
    method=st.sampled_from(["plain", "bootstrap"]),
)
def test_status_agrees_with_the_threshold(factor: float, max_drop: Decimal, method: str) -> None:
    """regressed <=> drop > allowed; within_noise only under bootstrap; improvements never fail."""
    current = make_results(worse(NOISY, "team_c", "A", factor))
    comparison = compare(SELF_DOC, current, max_drop=max_drop, method=method, resamples=5)
    for ch in comparison.changes:
        assert ch.delta is not None
        drop = -ch.delta
        assert (ch.status == "regressed") == (drop > ch.allowed)
        assert ch.status != "within_noise" or (method == "bootstrap" and max_drop < drop <= ch.allowed)
        assert ch.status != "improved" or (ch.delta > 0 and ch not in comparison.regressions)
    assert comparison.failed == bool(comparison.regressions)


def several_models(values: dict[str, Trials]) -> dict[str, Any]:
    """A several-model results document: each model's part from its own scorer run, totals in submissions[]."""
    parts = {m: make_results(v, edition="2025", model="m1,m2") for m, v in values.items()}
    doc = copy.deepcopy(next(iter(parts.values())))
    doc["per_model"] = {m: {"submissions": {s["name"]: s for s in p["submissions"]}} for m, p in parts.items()}
    for sub in doc["submissions"]:
        sub["prompt_score"] = str(
            sum(D(part["submissions"][sub["name"]]["prompt_score"]) for part in doc["per_model"].values())
        )
        sub["letters"] = {}
    return doc


def test_several_models_are_gated_per_model() -> None:
    base = several_models({"m1": NOISY, "m2": NOISY})
    saved = baseline_document(base)
    assert saved["scores"]["multi_model"] and set(saved["scores"]["submissions"]["team_a"]["models"]) == {"m1", "m2"}
    same = compare(saved, base, max_drop=0)
    assert not same.failed and all(ch.status == "unchanged" for ch in same.changes)
    assert {ch.model for ch in same.changes} == {None, "m1", "m2"}
    cur = several_models({"m1": NOISY, "m2": worse(NOISY, "team_a", "A", 0.5)})
    comparison = compare(saved, cur, max_drop=0)
    failed = {(ch.submission, ch.model, ch.letter, ch.metric) for ch in comparison.regressions}
    assert ("team_a", "m2", "A", "char_score") in failed and ("team_a", None, None, "prompt_score") in failed
    assert not any(model == "m1" and letter == "A" and name == "team_a" for name, model, letter, _ in failed)
    table = format_comparison(comparison)
    assert table[1].split()[:4] == ["submission", "model", "letter", "metric"]
    assert any(line.split()[:4] == ["team_a", "m2", "A", "char_score"] and line.endswith("regressed") for line in table)
    one = format_comparison(compare(make_results(), make_results(worse(NOISY, "team_a", "A", 0.5)), max_drop=0))
    assert one[1].split()[:4] == ["submission", "letter", "metric", "baseline"]  # one model: the table of before
    lower, scored = lower_bounds(saved, resamples=30, confidence=0.95, seed=0)
    assert scored == 30
    assert {key[3] for key in lower} == {None, "m1", "m2"} and ("team_a", "A", "char_score", "m2") in lower
    assert lower[("team_a", "A", "char_score", "m2")] <= D(
        saved["scores"]["submissions"]["team_a"]["models"]["m2"]["letters"]["A"]["char_score"]
    )
    noisy = compare(saved, base, max_drop=0, method="bootstrap", resamples=30)
    assert not noisy.failed and noisy.method == "bootstrap"


# -- the gate's interval and resample count, pinned through their effect ---------------------------------

# Ten trials per letter with distinct similarities: the char scores of 200 resamples are all different, so the
# 95 % lower bound (5th of 200) differs from the 99.9 % one (1st) and from any bound of a few resamples.
SPREAD: Trials = {
    "team_a": {c: [(1.0, 0.05 + 0.09 * i + 0.01 * j) for i in range(10)] for j, c in enumerate(LETTERS)},
    "team_b": {c: [(1.0 if i % 3 else 0.5, 0.9 - 0.08 * i) for i in range(10)] for c in LETTERS},
}
GATED = ("team_a", "A", "char_score")


def expected_lower_bound(base: dict[str, Any]) -> Decimal:
    """The 95 % lower end by hand: 200 resamples (seed 0), sorted, order statistic floor(0.025·199) = the 5th."""
    from pcg_plugin.problems.science_birds.results import Letter, Settings
    from pcg_plugin.problems.science_birds.scoring.bootstrap import resampled_scores, setup_from_settings

    subs = {
        name: {c: Letter.read(d, c) for c, d in s["letters"].items()}
        for name, s in base["scores"]["submissions"].items()
    }  # a baseline's letters read as results letters
    setup = setup_from_settings(Settings.read(base["settings"], "settings"))
    values = sorted(
        res.programs["team_a"].letters["A"].char_score for res in resampled_scores(subs, setup, reps=200, seed=0)
    )
    assert len(values) == 200 and len(set(values)) > 190
    return values[4]


def with_char_score(doc: dict[str, Any], value: Decimal) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out["scores"]["submissions"]["team_a"]["letters"]["A"]["char_score"] = format(value, "f")
    return out


def test_bootstrap_gate_uses_a_95_percent_interval_of_200_resamples() -> None:
    base = baseline_document(make_results(SPREAD, trials=10))
    lower = expected_lower_bound(base)
    assert lower < D(base["scores"]["submissions"]["team_a"]["letters"]["A"]["char_score"])
    just_inside = compare(base, with_char_score(base, lower), max_drop=0, method="bootstrap")
    just_outside = compare(base, with_char_score(base, lower - D("1e-20")), max_drop=0, method="bootstrap")
    assert by_key(just_inside)[GATED].status == "within_noise" and not just_inside.failed
    assert by_key(just_outside)[GATED].status == "regressed" and just_outside.failed
    # the header reports the resamples that were scored and the interval used
    assert format_comparison(just_outside)[0].endswith(
        "(noise-aware: bootstrap over trials, 200 resamples, 95 % (max drop 0))"
    )


def test_a_saved_baseline_reads_back_as_the_run_it_was_cut_from() -> None:
    """The page a failing gate writes compares trial by trial: from a baseline file, the same trial rows and the same
    resampled scores as from the run's results.json."""
    from pcg_plugin.problems.science_birds import rows
    from pcg_plugin.problems.science_birds.scoring.baseline import results_document

    results = make_results()
    back = results_document(json.loads(json.dumps(baseline_document(results))))
    fields = ("submission", "model", "target", "trial", "score", "reason")
    assert [{k: r[k] for k in fields} for r in rows.trial_rows(back)] == [
        {k: r[k] for k in fields} for r in rows.trial_rows(results)
    ]
    first_only = lambda key, n: [0] * n  # noqa: E731 - one resample: every letter's first trial
    assert rows.scores(back, first_only) == rows.scores(results, first_only) != {}
