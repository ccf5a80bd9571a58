"""Real submissions as organizers receive them (issue 12): every folder accounted for, nested programs run
from their team folder, and the organizers' own example repositories run unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import TINY_CLASSIFIER, load_results, run_args, write_competition

import submission_shapes as shapes

# Any message gets one small fenced level: enough to show that a trial reached the model and returned.
ANY_LEVEL = '''
def respond(messages, n=1):
    return ["```\\ndrop_block('b11', 10)\\ndrop_block('b11', 10)\\n```"] * n
'''


def _records(results: dict) -> dict[str, list[dict]]:
    return {s["name"]: [t for letter in s["letters"].values() for t in letter["trials"]]
            for s in results["submissions"]}  # fmt: skip


def test_every_real_shape_is_accounted_for_and_runs_from_its_team_folder(competition):
    subs = competition.path / "submissions"
    shutil.rmtree(subs)
    for name, (build, *_rest) in shapes.SHAPES.items():
        build(subs / name)
    result = competition.runpytest(*run_args("run", "--pcg-letters", "A", "--pcg-trials", "1",
                                             "--pcg-requirements", "off"))  # fmt: skip
    out = result.stdout.str()
    # the pre-flight table lists every folder before any model call, the disqualified shape as an error
    for name in shapes.SHAPES:
        assert name in out.split("pre-flight:")[0], name
    assert "pre-flight: 6 folder(s): 5 submission(s), 1 not evaluated, 0 skipped" in out
    results = load_results(competition.path, "run")
    rows = {r["folder"]: r for r in results["folders"]}
    for name, (_build, entry, workdir, _verdict) in shapes.SHAPES.items():
        row = rows[f"submissions/{name}"]
        if entry is None:
            assert row["status"] == "error" and "not a submission" in row["message"]
        else:
            assert (row["status"], row["entry"], row["workdir"]) == ("submission", entry, workdir), row
    trials = _records(results)
    assert sorted(trials) == sorted(n for n, (_b, e, *_r) in shapes.SHAPES.items() if e)
    for name, rows_ in trials.items():  # every team's program read its prompt and reached the model
        assert [t["reason"] for t in rows_] == [None], (name, rows_)
    # the 26-script folder fails visibly, naming itself and why; it is not ranked
    assert "folder 'standalone_scripts' is not evaluated" in out
    assert any("standalone_scripts" in k for k in results["folder_errors"])
    assert "NOT EVALUATED submissions/standalone_scripts: " in out.split("pytest-pcg leaderboard")[1]
    report = (competition.path / "run" / "report.html").read_text()
    assert "Pre-flight: 6 folder(s)" in report and "1 folder(s) not evaluated or skipped: submissions/standalone" in report
    result.assert_outcomes(passed=5, failed=1)


def test_loose_files_and_official_runner_folders_are_listed_never_dropped(competition):
    subs = competition.path / "submissions"
    (subs / "notes.txt").write_text("no placeholder here")
    (subs / "requirements.txt").write_text("python-dotenv\n")  # never a prompt, never an error
    (subs / "logs").mkdir()
    (subs / "empty_team").mkdir()
    result = competition.runpytest(*run_args("run", "--pcg-letters", "A", "--pcg-trials", "1"))
    rows = {r["folder"]: r for r in load_results(competition.path, "run")["folders"]}
    assert rows["submissions/notes.txt"]["status"] == "error"
    assert rows["submissions/logs"]["status"] == "skipped"
    assert "no .py or .txt file" in rows["submissions/empty_team"]["message"]
    assert "submissions/requirements.txt" not in rows
    result.assert_outcomes(passed=2, failed=2)  # notes.txt and empty_team fail visibly; logs is the runner's


@pytest.mark.parametrize(("example", "edition"), [("2024-pe-examples", "2024"),
                                                   ("2025-llms4pcg-pe-examples", "2025")])  # fmt: skip
def test_official_examples_run_unchanged(pytester, monkeypatch, tiny_classifier, shared, example, edition):
    shutil.copytree(tiny_classifier, pytester.path / TINY_CLASSIFIER)
    (pytester.path / "any_level.py").write_text(ANY_LEVEL)
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    repo = shared / "official-examples" / example
    names = sorted(p.name for p in repo.iterdir() if p.is_dir() and not p.name.startswith("."))
    args = run_args("run", "--pcg-letters", "A", "--pcg-trials", "1", "--pcg-edition", edition,
                    "--pcg-requirements", "off")  # fmt: skip
    args[0] = str(repo)
    args[args.index("scripted_llm:respond")] = "any_level:respond"
    result = pytester.runpytest(*args)
    results = load_results(pytester.path, "run")
    assert [r["status"] for r in results["folders"]] == ["submission"] * len(names)
    trials = _records(results)
    assert sorted(trials) == names
    for name, rows in trials.items():
        assert [t["reason"] for t in rows] == [None], (name, rows)
    result.assert_outcomes(passed=len(names))
