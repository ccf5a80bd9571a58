"""The plugin end to end, in-process: scripted LLM double -> real pipeline -> scoring -> results.json."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from e2e_support import load_results, program, run_args, write_competition

ARGS = ("--pcg-letters", "I,L", "--pcg-trials", "2")


def stable_view(results: dict[str, Any]) -> dict[str, Any]:
    """Everything that must not depend on -n: scores, per-trial numbers (timings and run ids excluded)."""
    subs = []
    for sub in results["submissions"]:
        letters = {}
        for letter, data in sub["letters"].items():
            trials = [{k: v for k, v in t.items() if k not in ("timings", "usage")} for t in data["trials"]]
            letters[letter] = {**{k: v for k, v in data.items() if k != "trials"}, "trials": trials}
        subs.append({k: v for k, v in sub.items() if k not in ("letters", "usage")} | {"letters": letters})
    return {"competition_score": results["competition_score"], "weights": results["weights"], "submissions": subs}


def rescore(results: dict[str, Any]) -> Any:
    """Score the per-trial numbers of results.json again, directly with the scoring module."""
    from pcg_plugin.problems.science_birds.records import TrialRecord
    from pcg_plugin.problems.science_birds.scoring.aggregate import letter_numbers
    from pcg_plugin.problems.science_birds.scoring.official import LetterInput, score, to_decimal

    programs = {}
    for sub in results["submissions"]:
        programs[sub["name"]] = {}
        for letter, data in sub["letters"].items():
            recs = [
                TrialRecord(
                    nodeid=t["nodeid"],
                    submission=sub["name"],
                    letter=letter,
                    trial=t["trial"],
                    sta=t["sta"],
                    sim=t["sim"],
                    probs=tuple(t["probs"]) if t["probs"] else None,
                )
                for t in data["trials"]
            ]
            nums = letter_numbers(recs, results["settings"]["trials"], use_embedding=False)
            programs[sub["name"]][letter] = LetterInput(
                stability=tuple((t, to_decimal(v)) for t, v in nums["stability"]),
                similarity=tuple((t, to_decimal(v)) for t, v in nums["similarity"]),
                diversity=to_decimal(nums["diversity"]),
            )
    return score(programs, edition="2024", trials=results["settings"]["trials"], letters=sorted(results["weights"]))


def check_against_scoring(results: dict[str, Any]) -> None:
    expected = rescore(results)
    assert Decimal(results["competition_score"]) == expected.competition_score
    for sub in results["submissions"]:
        prog = expected.programs[sub["name"]]
        assert Decimal(sub["prompt_score"]) == prog.prompt_score
        assert Decimal(sub["normalized_score"]) == prog.normalized_score
        assert sub["rank"] == prog.rank
        for letter, data in sub["letters"].items():
            assert Decimal(data["char_score"]) == prog.letters[letter].char_score
            for trial in data["trials"]:
                assert trial["reason"] is None, trial
                assert trial["sim"] > 0  # the glyph double draws a real letter


def test_two_submissions_score_end_to_end_with_and_without_xdist(competition):
    """Serial and -n 2 runs: both equal the scoring module's own result, and equal each other."""
    runs = {}
    for out, extra in (("serial", []), ("parallel", ["-p", "xdist", "-n", "2"])):
        if extra:  # a pytest process of its own, as a user starts it, with its xdist workers
            result = competition.runpytest_subprocess(*run_args(out, *ARGS, *extra), timeout=300)
        else:  # in this process (docs/contributing/development.md, The test loop)
            result = competition.runpytest_inprocess(*run_args(out, *ARGS))
        assert result.ret == 0, result.stdout.str()
        result.assert_outcomes(passed=8)
        result.stdout.fnmatch_lines(["*pytest-pcg leaderboard*", "*rank*submission*normalized*", "*report:*"])
        runs[out] = load_results(competition.path, out)
        check_against_scoring(runs[out])
    assert stable_view(runs["serial"]) == stable_view(runs["parallel"])
    results = runs["parallel"]
    assert results["schema"] == "pytest-pcg/results/1"
    # issue 34: the official scorer over the observed trials gives the run's normalized scores; each submission
    # has a rank interval that holds its rank; the trial rows are the run's trials with their official scores
    from pcg_plugin.core.stats.intervals import observed
    from pcg_plugin.problems.science_birds import rows as readback

    assert readback.scores(results, observed) == {
        s["name"]: float(s["normalized_score"]) for s in results["submissions"]
    }
    assert all(s["rank_interval"][0] <= s["rank"] <= s["rank_interval"][1] for s in results["submissions"])
    trial_rows = readback.trial_rows(results)
    assert len(trial_rows) == 8 and all(r["calls"] == 1 and r["target"] in ("I", "L") for r in trial_rows)
    assert sorted(r["score"] for r in trial_rows) == sorted(
        float(t["trial_score"]) for s in results["submissions"] for d in s["letters"].values() for t in d["trials"]
    )
    assert {s["name"] for s in results["submissions"]} == {"team_prog", "team_prompt"}
    run = competition.path / "parallel"
    assert (run / "team_prog/raw/I/team_prog_I_1.txt").is_file()
    assert (run / "team_prog/levels/L/team_prog_L_2.xml").is_file()
    assert (run / "team_prompt/images/I/team_prompt_I_2.png").is_file()
    assert (run / "result/prompt_scores_ranks.csv").is_file()


def test_broken_submissions_get_reasons_and_a_finished_leaderboard(competition):
    write_competition(
        competition.path,
        {
            "bad_syntax": {"entry.py": program("return chat_with_chatgpt(ctx, [  # unclosed")},
            "bad_raise": {"entry.py": program('raise RuntimeError("the program crashed")')},
            "bad_nocode": {"prompt.txt": "TARGET=<OBJECT> MODE=nocode"},
            "bad_convert": {"prompt.txt": "TARGET=<OBJECT> MODE=convert"},
            "bad_huge": {"prompt.txt": "TARGET=<OBJECT> MODE=huge"},
        },
    )
    result = competition.runpytest_inprocess(*run_args("run", "--pcg-letters", "I", "--pcg-trials", "1", "-rA"))
    assert result.ret == 0, result.stdout.str()
    results = load_results(competition.path, "run")
    reasons = {s["name"]: s["letters"]["I"]["trials"][0]["reason"] for s in results["submissions"]}
    assert reasons["bad_syntax"] == "program_error"
    assert reasons["bad_raise"] == "program_error"
    assert reasons["bad_nocode"] == "no_code"
    assert reasons["bad_convert"] == "conversion_error"
    assert reasons["bad_huge"] in ("conversion_error", "token_limit")
    assert reasons["team_prog"] is None and reasons["team_prompt"] is None
    messages = {s["name"]: s["letters"]["I"]["trials"][0]["message"] for s in results["submissions"]}
    assert "Width boundary is intruded" in messages["bad_convert"]
    assert "the program crashed" in messages["bad_raise"]
    by_name = {s["name"]: s for s in results["submissions"]}
    assert Decimal(by_name["bad_nocode"]["prompt_score"]) == 0
    result.stdout.fnmatch_lines(["*pytest-pcg leaderboard*", "*zero*", "*no_code: 1*"])
