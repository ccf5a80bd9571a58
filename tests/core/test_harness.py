"""The harness alone, on the toy problem (tests/toy_problem): collection, items, records across xdist, errors,
folder problems, the controller's end of the run, and the registry. No letter, level or edition in sight."""

from __future__ import annotations

import json

import pytest
from toy_problem import SPELL, spell_contest

from pcg_plugin.core.contract import problem as problems
from pcg_plugin.core.contract.problem import Problem


@pytest.fixture
def contest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    spell_contest(pytester, monkeypatch, {"alpha": {"cat": "cat", "dog": "dot"}, "beta": {"cat": "cut"}})
    (pytester.path / "subs" / "notes").mkdir()  # no manifest: nobody's submission, left to pytest
    return pytester


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    return {k: v for k, v in result.parseoutcomes().items() if not k.startswith("warning")}


def results(pytester: pytest.Pytester) -> dict:
    (path,) = (pytester.path / "pcg-runs").glob("*/results.json")
    return json.loads(path.read_text())


def test_items_are_submission_target_trial_in_order(contest):
    result = contest.runpytest("subs", *SPELL, "--co", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids == [f"subs/{s}::{w}::{t}" for s in ("alpha", "beta") for w in ("cat", "dog") for t in (1, 2)]


def test_target_and_trial_keywords_select_cleanly(contest):
    result = contest.runpytest("subs", *SPELL, "--co", "-q", "-k", "word_dog and trial_2")
    assert [line for line in result.outlines if "::" in line] == ["subs/alpha::dog::2", "subs/beta::dog::2"]


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "2"]])
def test_records_reach_the_problem_and_rank(contest, workers):
    result = contest.runpytest_subprocess("subs", *SPELL, *workers)
    assert outcomes(result) == {"passed": 6, "zero": 2}  # beta has no "dog": an official zero passes, shown as 0
    doc = results(contest)
    assert doc["submissions"] == [
        {"name": "alpha", "rank": 1, "score": (1 + 1 + 2 / 3 + 2 / 3) / 4},
        {"name": "beta", "rank": 2, "score": (2 / 3 + 2 / 3) / 4},
    ]
    result.stdout.fnmatch_lines(["*pytest-pcg leaderboard*", "1. alpha 0.833", "2. beta 0.333"])


def test_n0_and_n2_finish_identically(contest):
    docs = []
    for workers in ([], ["-p", "xdist", "-n", "2"]):
        contest.runpytest_subprocess("subs", *SPELL, *workers, "--basetemp", str(contest.path / f"t{len(docs)}"))
        docs.append(results(contest))
        for path in (contest.path / "pcg-runs").glob("*/results.json"):
            path.rename(path.with_name("seen.json"))
    assert docs[0] == docs[1]


def test_an_infrastructure_failure_errors_and_the_run_still_finishes(contest):
    (contest.path / "subs" / "beta" / "spell.json").write_text('{"cat": "!crash", "dog": "dog"}')
    result = contest.runpytest_subprocess("subs", *SPELL)
    result.assert_outcomes(passed=6, errors=2)  # an infrastructure error is pytest's ERROR, not a FAILED submission
    result.stdout.fnmatch_lines(["*infrastructure error in subs/beta::cat::1: beta cat trial 1: the speller crashed*"])
    result.stdout.fnmatch_lines(["ERROR subs/beta::cat::1 - infrastructure error in *"])
    doc = results(contest)
    assert sorted(doc["errors"]) == ["subs/beta::cat::1", "subs/beta::cat::2"]
    assert doc["submissions"][1] == {"name": "beta", "rank": 2, "score": 0.5}  # errored trials count 0


def test_a_folder_the_problem_cannot_evaluate_is_one_failing_item(contest):
    (contest.path / "subs" / "gamma").mkdir()
    (contest.path / "subs" / "gamma" / "spell.json").write_text("{not json")
    result = contest.runpytest_subprocess("subs", *SPELL)
    assert outcomes(result) == {"passed": 6, "zero": 2, "failed": 1}
    result.stdout.fnmatch_lines(["*folder 'gamma' is not evaluated (no scores, not ranked)*spell.json is not JSON*"])
    assert list(results(contest)["folder_errors"]) == ["subs/gamma::not-evaluated"]


def test_an_unknown_problem_is_a_usage_error_naming_the_closest_ones_not_all(contest):
    result = contest.runpytest("subs", "--pcg-problem", "pcgbench/zelda", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--pcg-problem: no problem 'pcgbench/zelda' (closest: pcgbench/zelda-v0, *; 52 installed*"
            "pytest_pcg_problem hook)*"
        ]
    )
    assert "science-birds" not in result.stderr.str()  # the closest names, not all 52


def test_problems_satisfy_the_protocol():
    from toy_problem.problem import Spell

    assert "science-birds" in problems.registered()
    assert isinstance(problems.load("science-birds"), Problem)
    assert isinstance(Spell(), Problem)
