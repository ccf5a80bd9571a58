"""The end of a picture-game run: the terminal summary and report.html, for runs with gaps (a submission that
played one experiment only, one with no episode at all, episodes that were not played)."""

from __future__ import annotations

from types import SimpleNamespace

from pcg_plugin.problems.imagegame import rules
from pcg_plugin.problems.imagegame.leaderboard import rows
from pcg_plugin.problems.imagegame.records import ABORTED, CONSEQUENCE, EpisodeResult
from pcg_plugin.problems.imagegame.report import MAX_ZERO_LINES, render, results_document, summary_lines
from pcg_plugin.problems.imagegame.settings import Settings

TARGET = "A ▢ ▢ ▢ ▢\n" + "\n".join(["▢ ▢ ▢ ▢ ▢"] * 4)


def aborted(submission: str, game_id: int) -> EpisodeResult:
    return EpisodeResult(
        nodeid=f"subs/{submission}::random_grids/{game_id}::1",
        submission=submission,
        instance=f"random_grids/{game_id}",
        experiment="random_grids",
        game_id=game_id,
        trial=1,
        outcome="aborted",
        turns=0,
        target=TARGET,
        reason=ABORTED,
        message="Invalid instruction format\nsecond line",
    )


def document(results: list[EpisodeResult], names: list[str]) -> dict:
    collected = SimpleNamespace(errors={}, folder_problems={})
    run = {"id": "r", "settings": Settings().to_dict()}
    return results_document(run, results, rows(results, rules.EXPERIMENTS, {}, names), collected)


def test_a_submission_with_one_experiment_or_none_renders() -> None:
    results = [aborted("chatty", 1)]
    doc = document(results, ["chatty", "silent"])
    html = render(doc, results)
    assert "chatty" in html and "silent" in html and CONSEQUENCE[ABORTED] in html
    lines = summary_lines(doc, "run", None, None)
    assert (
        "  chatty instance random_grids/1 trial 1: aborted: Invalid instruction format -> " + CONSEQUENCE[ABORTED]
        in lines
    )  # the message's first line only


def test_the_terminal_lists_a_bounded_number_of_zeros() -> None:
    results = [aborted("chatty", i) for i in range(1, MAX_ZERO_LINES + 4)]
    lines = summary_lines(document(results, ["chatty"]), "run", None, None)
    assert sum(line.startswith("  chatty instance") for line in lines) == MAX_ZERO_LINES
    assert "  ... and 3 more episode(s) with a reason, in results.json" in lines


def test_results_carry_the_runs_provenance_as_every_problems_do() -> None:
    """git SHA, library versions and platform, as Science Birds and the PCG Benchmark write them (`pcg card`
    shows the SHA; it had none for the picture game)."""
    from pcg_plugin._util import provenance
    from pcg_plugin._util.paths import REPO_ROOT

    assert document([aborted("chatty", 1)], ["chatty"])["provenance"] == provenance.collect(REPO_ROOT)


def test_the_terminal_leaderboard_columns_line_up() -> None:
    """The issue's table: each row's figures started where its name ended; now every column starts and ends where
    its header does, whatever the names' lengths and a missing figure (an aborted-only submission's quality)."""
    results = [aborted("a_rather_long_submission_name", 1), aborted("x", 2)]
    doc = document(results, ["a_rather_long_submission_name", "x", "silent"])
    lines = summary_lines(doc, "run", None, None)
    head = next(i for i, line in enumerate(lines) if line.startswith("rank "))
    table = lines[head : head + 4]
    header = table[0]
    for name in ("episodes", "%Played", "Quality", "clemscore", "Success%", "compact %P/Q", "random %P/Q"):
        end = header.index(name) + len(name)  # right-aligned: every cell ends under its header's end
        assert all(row[end - 1] != " " and row[end : end + 1] in ("", " ") for row in table[1:]), (name, table)
    start = header.index("model")  # left-aligned: every cell starts under its header
    assert all(row[start - 2 : start] == "  " and row[start] != " " for row in table[1:]), table
