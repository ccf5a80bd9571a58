"""CI gating end to end: save a baseline, replay the stored responses against it, fail a worse run with a table."""

from __future__ import annotations

import json

import pytest
from e2e_support import VARIED_BODY, load_results, program, run_args, write_competition

ARGS = ("--pcg-letters", "I,L", "--pcg-trials", "2")


def scores(results: dict) -> dict:
    return {
        s["name"]: (s["prompt_score"], s["normalized_score"], {c: d["char_score"] for c, d in s["letters"].items()})
        for s in results["submissions"]
    }


def test_save_replay_gate_and_compare(competition):
    # two programs whose trials differ (diversity > 0, so every score is above 0)
    write_competition(
        competition.path,
        {"team_prog": {"entry.py": program(VARIED_BODY)}, "team_b": {"entry.py": program(VARIED_BODY)}},
    )
    # 1. a run that saves its baseline
    first = competition.runpytest_inprocess(*run_args("run1", *ARGS, "--pcg-save-baseline", "good.json"))
    assert first.ret == 0, first.stdout.str()
    first.stdout.fnmatch_lines(["*pytest-pcg baseline*", "*baseline saved:*good.json*"])
    baseline = json.loads((competition.path / "good.json").read_text())
    assert baseline["schema"] == "pytest-pcg/baseline/1" and set(baseline["scores"]["submissions"]) == {
        "team_prog",
        "team_prompt",
        "team_b",
    }
    assert all(float(s["prompt_score"]) > 0 for n, s in baseline["scores"]["submissions"].items() if n != "team_prompt")

    # 2. deterministic re-scoring: replay-only (no model may be called), identical scores, the gate passes
    replay = competition.runpytest_subprocess(
        *run_args("run2", *ARGS, "--pcg-record", "none", "-p", "xdist", "-n", "2", "--pcg-baseline", "good.json"),
        timeout=300,
    )
    assert replay.ret == 0, replay.stdout.str()
    assert scores(load_results(competition.path, "run2")) == scores(load_results(competition.path, "run1"))
    replay.stdout.fnmatch_lines(["*plain*max drop 0*", "*0 regressions*"])

    # 3. a worse submission (its answers now hold no code): the gate fails with the table; save it too
    write_competition(competition.path, {"team_b": {"entry.py": program(VARIED_BODY, "MODE=nocode")}})
    worse = competition.runpytest_inprocess(
        *run_args(
            "run3", *ARGS, "--pcg-baseline", "good.json", "--pcg-max-drop", "0", "--pcg-save-baseline", "worse.json"
        )
    )
    assert worse.ret == pytest.ExitCode.TESTS_FAILED, worse.stdout.str()
    worse.stdout.fnmatch_lines(
        [
            "*pytest-pcg baseline*",
            "*team_b*prompt_score*regressed*",
            "*team_b*I*char_score*regressed*",
            "*regressions*FAILED*",
            "*what changed, trial by trial:*run3*compare.html*",
        ]
    )
    assert (competition.path / "worse.json").is_file()
    page = (competition.path / "run3" / "compare.html").read_text()  # from the saved baseline file, no run folder
    assert "team_b" in page and "scored -&gt; zero" in page

    # 4. the good submission against the worse baseline: improvements are reported, never failed. Scores are
    # relative (weights and normalized scores move with the field), so team_prog drops: tolerated here.
    write_competition(competition.path, {"team_b": {"entry.py": program(VARIED_BODY)}})
    better = competition.runpytest_inprocess(
        *run_args("run4", *ARGS, "--pcg-record", "none", "--pcg-max-drop", "60", "--pcg-baseline", "worse.json")
    )
    assert better.ret == 0, better.stdout.str()
    better.stdout.fnmatch_lines(
        [
            "*team_prog*normalized_score*-50.0000*within max drop*",
            "*team_b*improved*",
            "*0 regressions, 4 improvements -> ok*",
        ]
    )

    # 5. not like for like (fewer letters): a clear error, non-zero exit
    other = competition.runpytest_inprocess(
        *run_args(
            "run5", "--pcg-letters", "I", "--pcg-trials", "2", "--pcg-record", "none", "--pcg-baseline", "good.json"
        )
    )
    assert other.ret == pytest.ExitCode.USAGE_ERROR, other.stdout.str()
    other.stderr.fnmatch_lines(
        [
            "*not like for like*refused before any item ran*",
            "*other letters (baseline I, L; this run I): run the same --pcg-letters*",
        ]
    )


def test_bad_gate_options_fail_before_the_run(competition):
    missing = competition.runpytest_inprocess(*run_args("r", *ARGS, "--pcg-baseline", "nope.json"))
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*--pcg-baseline*nope.json does not exist*"])
    (competition.path / "b.json").write_text("{}")
    for bad in (("--pcg-max-drop", "-1"), ("--pcg-max-drop", "lots"), ("--pcg-drop-test", "vibes")):
        result = competition.runpytest_inprocess(*run_args("r", *ARGS, "--pcg-baseline", "b.json", *bad))
        assert result.ret == pytest.ExitCode.USAGE_ERROR, bad
        result.stderr.fnmatch_lines([f"*{bad[0]}*"])


def test_unlike_baseline_is_refused_before_any_item_runs(competition):
    """Other letters, trials or edition than the baseline: refused at configure time, nothing run or paid."""
    from pcg_plugin.problems.science_birds.scoring.baseline import baseline_document

    settings = {
        "edition": "2024",
        "letters": ["I"],
        "trials": 2,
        "disable_weights": False,
        "tie_break": None,
        "diversity_vector": "probs",
    }
    doc = baseline_document({"schema": "pytest-pcg/results/1", "settings": settings, "submissions": []})
    (competition.path / "base.json").write_text(json.dumps(doc))
    result = competition.runpytest_inprocess(*run_args("r", *ARGS, "--pcg-baseline", "base.json"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines(
        [
            "*not like for like*refused before any item ran*",
            "*other letters (baseline I; this run I, L): run the same --pcg-letters*",
        ]
    )
    assert not (competition.path / "r").exists() and not (competition.path / "store").exists()
