"""Real submissions as organizers receive them (issue 12): every folder accounted for, nested programs run
from their team folder, and the organizers' own example repositories run unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

import loopback_llm
import pytest
import submission_shapes as shapes
from e2e_support import TINY_CLASSIFIER, load_results, run_args

WHEELS = Path(__file__).resolve().parents[1] / "data" / "wheels"  # python-dotenv 1.0.1, as published on PyPI


@pytest.fixture
def local_index(monkeypatch, tmp_path):
    """pip sees only tests/data/wheels (no network), and environments go to a fresh cache."""
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(WHEELS))
    monkeypatch.setenv("PIP_CONFIG_FILE", str(tmp_path / "no-pip.conf"))
    monkeypatch.setenv("PCG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _records(results: dict) -> dict[str, list[dict]]:
    return {
        s["name"]: [t for letter in s["letters"].values() for t in letter["trials"]] for s in results["submissions"]
    }


def test_every_real_shape_is_accounted_for_and_runs_from_its_team_folder(competition, local_index):
    subs = competition.path / "submissions"
    shutil.rmtree(subs)
    for name, (build, *_rest) in shapes.SHAPES.items():
        build(subs / name)
    result = competition.runpytest(*run_args("run", "--pcg-letters", "A", "--pcg-trials", "1"))
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
    assert "NOT EVALUATED: " in out.split("pytest-pcg leaderboard")[1].split("standalone_scripts")[0]
    report = (competition.path / "run" / "report.html").read_text()
    assert (
        "Pre-flight: 6 folder(s)" in report and "1 folder(s) not evaluated or skipped: submissions/standalone" in report
    )
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


@pytest.mark.parametrize(
    ("example", "edition", "root_requirements"),
    [
        ("2024-pe-examples", "2024", True),
        ("2024-pe-examples", "2024", False),
        ("2025-llms4pcg-pe-examples", "2025", True),
    ],
)
def test_official_examples_run_unchanged_against_a_loopback_server(
    pytester, monkeypatch, tiny_classifier, official_examples, local_index, example, edition, root_requirements
):
    """The organizers' example repositories as published (and, issue 27, without the root requirements.txt the
    teams never shipped): python-dotenv installed from the local index into the edition's official environment
    (never by hand), every model call over HTTP to a loopback OpenAI-compatible server."""
    shutil.copytree(tiny_classifier, pytester.path / TINY_CLASSIFIER)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    repo = official_examples / example
    if not root_requirements:
        repo = Path(shutil.copytree(repo, pytester.path / "examples"))
        (repo / "requirements.txt").unlink()
    names = sorted(p.name for p in repo.iterdir() if p.is_dir() and not p.name.startswith("."))

    class OneLevel(loopback_llm.FakeOpenAI):  # every answer is one small fenced level, whatever was asked
        def answer(self, body: dict) -> list[str]:
            return ["```\ndrop_block('b11', 10)\ndrop_block('b11', 10)\n```"] * body.get("n", 1)

    with loopback_llm.serve(OneLevel()) as server:
        result = pytester.runpytest(
            str(repo),
            "--pcg-backend",
            "openai-compatible",
            "--pcg-base-url",
            server.url,
            "--pcg-model",
            "local-model",
            "--pcg-edition",
            edition,
            "--pcg-letters",
            "A",
            "--pcg-trials",
            "1",
            "--pcg-classifier",
            str(TINY_CLASSIFIER),
            "--pcg-out",
            "run",
            "--pcg-store",
            "store",
            "-p",
            "no:cacheprovider",
        )
        calls = len(server.bodies)
    results = load_results(pytester.path, "run")
    assert [r["status"] for r in results["folders"]] == ["submission"] * len(names)
    requirements = [r["requirements"] for r in results["folders"]]
    own = " + own requirements.txt" if root_requirements else ""
    assert [r["environment"] for r in results["folders"]] == [f"official {edition}{own}"] * len(names)
    if edition == "2024":  # python-dotenv installed from the local index into the official environment, once
        official = "2024-pe-examples.txt: "
        assert [official + "installed 1 package(s)" in r for r in requirements] == [True] + [False] * (len(names) - 1)
        assert all(official + "1 package(s), cached" in r for r in requirements[1:]), requirements
        assert [p.name for p in local_index.glob("envs/*/dotenv")] == ["dotenv"]  # the root file: the same lines
    else:  # llms4pcg==2.0.1 only: served by the harness's stand-ins, nothing to install
        assert all("official package line(s) served by the harness" in r for r in requirements), requirements
    assert "chatgpt4pcg/llms4pcg are served by the harness" in result.stdout.str()
    assert "is not provided" not in result.stdout.str()
    trials = _records(results)
    assert sorted(trials) == names
    for name, rows in trials.items():  # every example's trial got its response over HTTP and was scored
        assert [(t["reason"], t["sim"] is not None) for t in rows] == [(None, True)], (name, rows)
    assert calls >= len(names)  # tot and the multi-turn examples make several calls
    result.assert_outcomes(passed=len(names))


def test_a_team_whose_requirement_cannot_be_installed_errors_and_the_others_score(competition, local_index):
    subs = competition.path / "submissions"
    team = shapes.root_program(subs / "broken_reqs")
    (team / "requirements.txt").write_text("python-dotenv~=1.0.0\nno-such-package-pcg==9.9\n")
    (team / "main.py").write_text(
        (team / "main.py")
        .read_text()
        .replace("from dotenv import load_dotenv", "from dotenv import load_dotenv\nimport no_such_package_pcg")
    )
    result = competition.runpytest(*run_args("run", "--pcg-letters", "A", "--pcg-trials", "1"))
    out = result.stdout.str()
    header = out.split("pre-flight:")[0]
    assert "WILL ERROR: module 'no_such_package_pcg'" in header  # said before any model call
    result.stdout.fnmatch_lines(
        [
            "*requirements of broken_reqs cannot be met, so its trials were not run (no model "
            "call): module 'no_such_package_pcg' (imported at main.py:*) is not provided: "
            "requirements.txt line 2 'no-such-package-pcg==9.9' failed*"
        ]
    )
    result.assert_outcomes(passed=2, errors=1)
    assert "During handling" not in out
    results = load_results(competition.path, "run")
    scored = {s["name"]: s for s in results["submissions"]}
    assert [(t["reason"], t["sim"] is not None) for t in scored["team_prog"]["letters"]["A"]["trials"]] == [
        (None, True)
    ]  # the others ran and were scored
    assert [t["reason"] for t in scored["broken_reqs"]["letters"]["A"]["trials"]] == ["error"]


def test_dry_run_runs_nested_programs_as_the_evaluation_does(competition, local_index):
    subs = competition.path / "submissions"
    shutil.rmtree(subs)
    for name in ("root_program", "nested_tot", "nested_few_shot", "team_named"):
        shapes.SHAPES[name][0](subs / name)
    result = competition.runpytest(
        "--pcg-dry-run", "--pcg-letters", "T", "submissions", "-p", "no:cacheprovider", "-rA"
    )
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*returned one of the model's answers unmodified*"])


def test_two_teams_without_requirements_run_in_the_official_2024_environment(competition, local_index):
    """Issue 27: the programs import load_dotenv one folder down and ship no requirements.txt; they run in the
    organizers' environment (python-dotenv from the local index, installed once), and the table says so."""
    subs = competition.path / "submissions"
    shutil.rmtree(subs)
    shapes.dotenv_without_requirements(subs / "team_one", "agent")
    shapes.dotenv_without_requirements(subs / "team_two", "solver")
    result = competition.runpytest(*run_args("run", "--pcg-letters", "A", "--pcg-trials", "1"))
    out = result.stdout.str()
    assert "is not provided" not in out
    rows = load_results(competition.path, "run")["folders"]
    assert [(r["folder"], r["entry"], r["environment"]) for r in rows] == [
        ("submissions/team_one", "agent/agent.py", "official 2024"),
        ("submissions/team_two", "solver/solver.py", "official 2024"),
    ]
    assert [p.name for p in local_index.glob("envs/*/dotenv")] == ["dotenv"]  # built once, then cached
    assert "2024-pe-examples.txt: 1 package(s), cached" in rows[1]["requirements"]
    trials = _records(load_results(competition.path, "run"))
    assert {name: [t["reason"] for t in rows_] for name, rows_ in trials.items()} == {
        "team_one": [None],
        "team_two": [None],
    }
    result.assert_outcomes(passed=2)
