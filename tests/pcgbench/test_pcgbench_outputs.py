"""The terminal summary of a run: the ranking, every trial that scored 0 by name, what was not evaluated."""

from pcg_plugin.problems.pcgbench.outputs import summary_lines, zero_lines


def doc(zeros=1):
    trials = [{"trial": 1, "reason": None, "message": None}]
    trials += [
        {"trial": n + 2, "reason": "no_block", "message": "no block: the reply has no fenced block (```...```)"}
        for n in range(zeros)
    ]
    trials.append({"trial": zeros + 2, "reason": "error", "message": "boom"})  # errored: listed with the errors
    return {
        "problem": "pcgbench/binary-v0",
        "errors": {"subs/a::path57::9": "RuntimeError: boom"},
        "folder_errors": {"subs/notes::not-evaluated": "not a submission"},
        "submissions": [
            {
                "rank": 1,
                "name": "a",
                "score": 0.5,
                "feasible": 1.0,
                "controlled": 0.5,
                "unique": 0.25,
                "diversity_all": 0.75,
                "zero_reasons": {"no_block": zeros},
                "instances": [{"id": "path57", "trials": trials}],
            }
        ],
    }


def test_each_zero_trial_is_named_with_its_consequence():
    lines = summary_lines(doc(), "run", None, None)
    assert lines[1] == (
        "1. [95% rank -] a score 0.500 (feasible 1.000, controlled 0.500, unique 0.250; diversity 0.750 over "
        "all trials); zeros: no_block 1"
    )
    assert (
        lines[2]
        == "ZERO a instance path57 trial 2: no_block (scored 0): no block: the reply has no fenced block (```...```)"
    )
    assert lines[3] == "ERRORED subs/a::path57::9 (missing, scored 0): RuntimeError: boom"
    assert lines[4] == "NOT EVALUATED subs/notes::not-evaluated: not a submission"
    assert lines[-1] == "run folder: run"


def test_many_zeros_are_counted_past_the_limit():
    lines = zero_lines(doc(zeros=7), limit=5)
    assert len(lines) == 6 and lines[4].startswith("ZERO a instance path57 trial 6: ")
    assert lines[5] == "... and 2 more trials scored 0 (each in results.json and the report)"


def test_a_failed_scoring_says_so():
    assert summary_lines(None, "run", None, "KeyError: x") == ["scoring the run failed: KeyError: x", "run folder: run"]
