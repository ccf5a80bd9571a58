"""A real run: a final response that is not one of the model's answers is a named zero (reason
``modified_response``), marked in results.json, the terminal and the report; ``--pcg-unmodified-response off``
scores it like any response, as the official runner did."""

from __future__ import annotations

from e2e_support import GOOD_BODY, load_results, program, run_args, write_competition

ARGS = ("--pcg-letters", "I", "--pcg-trials", "1", "-p", "no:randomly")
HARD_CODED = "```\\ndrop_block('b11', 9)\\ndrop_block('b11', 9)\\ndrop_block('b11', 9)\\n```"
PROGRAMS = {
    "hard_coded": program(
        f'chat_with_chatgpt(ctx, [{{"role": "user", "content": "TARGET=I"}}])\n        return "{HARD_CODED}"'
    ),  # asks, then returns a level of its own
    "never_asks": program(f'return "{HARD_CODED}"'),
    "edits_answer": program(GOOD_BODY + ' + "\\n"'),
}


def reasons(results: dict) -> dict[str, str | None]:
    return {s["name"]: s["letters"]["I"]["trials"][0]["reason"] for s in results["submissions"]}


def test_a_response_that_is_not_a_model_answer_scores_zero_and_off_scores_it(competition):
    write_competition(competition.path, {name: {"entry.py": text} for name, text in PROGRAMS.items()})
    result = competition.runpytest_inprocess(*run_args("run", *ARGS))
    assert result.ret == 0, result.stdout.str()
    results = load_results(competition.path, "run")
    assert reasons(results) == {
        "hard_coded": "modified_response",
        "never_asks": "modified_response",
        "edits_answer": "modified_response",
        "team_prog": None,
        "team_prompt": None,
    }
    assert results["settings"]["unmodified_response"] == "zero"
    trial = {s["name"]: s["letters"]["I"]["trials"][0] for s in results["submissions"]}
    assert trial["never_asks"]["message"].startswith("generate: run() returned without calling the chat function")
    assert "is not one of the model's answers" in trial["hard_coded"]["message"]
    assert trial["hard_coded"]["sta"] is None and trial["hard_coded"]["level"] is None
    raw = (competition.path / "run" / trial["hard_coded"]["raw"]).read_text()
    assert raw == HARD_CODED.replace("\\n", "\n")  # the raw file keeps what the program returned
    result.stdout.fnmatch_lines(["*modified_response: 3*"])
    assert (
        "modified_response: generate: the returned string is not one of the model"
        in (competition.path / "run" / "report.html").read_text()
    )

    off = competition.runpytest_inprocess(
        *run_args("off", *ARGS, "--pcg-unmodified-response", "off", "--pcg-record", "none")
    )
    assert off.ret == 0, off.stdout.str()
    results = load_results(competition.path, "off")
    assert set(reasons(results).values()) == {None}  # replayed from the store; each level scored as returned
    assert results["settings"]["unmodified_response"] == "off"
    assert all(s["letters"]["I"]["trials"][0]["sta"] is not None for s in results["submissions"])
