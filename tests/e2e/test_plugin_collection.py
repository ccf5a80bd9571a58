"""Collection only (fast, no models): ids, ordering, selection, and what is never collected."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from e2e_support import program, run_args, write_competition


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.stdout.lines if "::" in line]


def test_ids_are_submission_letter_trial_in_order(competition):
    result = competition.runpytest(*run_args("run", "--pcg-letters", "L,I", "--pcg-trials", "2", "--co", "-q"))
    assert collected(result) == [
        f"submissions/{s}::{c}::{t}" for s in ("team_prog", "team_prompt") for c in "IL" for t in (1, 2)
    ]


def test_k_and_m_select_naturally(competition):
    result = competition.runpytest(
        *run_args(
            "r",
            "--pcg-letters",
            "A-C",
            "--pcg-trials",
            "3",
            "--co",
            "-q",
            "-k",
            "letter_B and trial_2",
            "-m",
            "prompt_2023",
        )
    )
    assert collected(result) == ["submissions/team_prompt::B::2"]


def test_ini_options_apply(competition):
    competition.makeini("[pytest]\npcg_letters = Q\npcg_trials = 1\n")
    result = competition.runpytest(*run_args("run", "--co", "-q"))
    assert collected(result) == ["submissions/team_prog::Q::1", "submissions/team_prompt::Q::1"]


@pytest.mark.parametrize("flag", ["pcg_rules", "pcg_dry_run"])
def test_rules_mode_yields_no_evaluation_items(flag):
    """Science Birds' rules plugin says a --pcg-rules/--pcg-dry-run run checks (command line or ini), and the
    harness then collects no evaluation item."""
    from pcg_plugin.plugin import _evaluating
    from pcg_plugin.problems.science_birds.rules.plugin import pytest_pcg_evaluating

    def config(**kw):
        config = SimpleNamespace(**kw)
        config.hook = SimpleNamespace(pytest_pcg_evaluating=lambda config: pytest_pcg_evaluating(config))
        return config

    off = config(getoption=lambda name, default=None: default, getini=lambda name: False)
    assert _evaluating(off)  # type: ignore[arg-type]
    cli = config(getoption=lambda name, default=None: name == flag, getini=lambda name: False)
    assert not _evaluating(cli)  # type: ignore[arg-type]
    ini = config(getoption=lambda name, default=None: default, getini=lambda name: name == flag)
    assert not _evaluating(ini)  # type: ignore[arg-type]


def test_ambiguous_folder_is_one_failing_item_and_the_rest_still_run(competition):
    write_competition(competition.path, {"two": {"a.py": program(), "b.py": program()}})
    result = competition.runpytest(*run_args("run", "--co", "-q", "--pcg-letters", "A", "--pcg-trials", "1"))
    assert collected(result) == [
        "submissions/team_prog::A::1",
        "submissions/team_prompt::A::1",
        "submissions/two::not-evaluated",
    ]
    result = competition.runpytest(*run_args("run", "-q", "--pcg-letters", "A", "--pcg-trials", "1"))
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*folder 'two' is not evaluated*several entry programs (a.py, b.py)*submission.toml*"])
    assert "Traceback" not in result.stdout.str()


def test_test_trees_are_never_submissions(pytester):
    pytester.mkdir("tests")
    (pytester.path / "tests" / "fixture_entry").mkdir()
    (pytester.path / "tests" / "fixture_entry" / "entry.py").write_text(program())
    (pytester.path / "tests" / "prompt.txt").write_text("<OBJECT>")
    pytester.makepyfile(test_x="def test_ok():\n    pass\n")
    result = pytester.runpytest("tests", "test_x.py", "--co", "-q", "-p", "no:cacheprovider")
    assert collected(result) == ["test_x.py::test_ok"]


@pytest.mark.parametrize("extra", [(), ("-p", "xdist", "-n", "2")], ids=["serial", "xdist"])
def test_no_run_folder_without_evaluation_items(pytester, extra):
    """A session of plain tests (the project's own) neither writes nor names a run folder."""
    pytester.makepyfile(test_x="import pytest\n@pytest.mark.parametrize('n', [1, 2])\ndef test_ok(n):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--pcg-out", "run", *extra)
    assert result.ret == 0
    assert not (pytester.path / "run").exists()
    assert "pytest-pcg leaderboard" not in result.stdout.str() and "run folder" not in result.stdout.str()


def test_the_run_folder_is_named_once_there_are_items_to_run(competition):
    """... and a session that evaluates names the folder it will write (not under --co, which writes none)."""
    args = run_args("run", "--pcg-letters", "A", "--pcg-trials", "1", "-k", "team_prompt")
    listed = competition.runpytest(*args, "--co", "-q")
    assert "run folder" not in listed.stdout.str() and not (competition.path / "run").exists()
    result = competition.runpytest(*args, "-q")
    result.stdout.fnmatch_lines([f"pcg: run folder {competition.path / 'run'}"])
    assert (competition.path / "run" / "results.json").is_file()
    nothing = competition.runpytest(*run_args("none", "-k", "no_such_team", "-q"))  # every item deselected
    assert "run folder" not in nothing.stdout.str() and not (competition.path / "none").exists()
