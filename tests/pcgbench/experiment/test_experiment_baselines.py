"""The experiment's baselines on the leaderboard, end to end: `pcg pcgbench experiment` writes Random and GA as
submissions, the harness runs them beside a prompt answered by the scripted double (`grid_double.py`) on the same
instances, and the results, ranking and export hold all of them, each baseline trial the elite of its run."""

from __future__ import annotations

import json
import shutil

import pytest
from test_harness_pcgbench import EXAMPLES, args, grid, results  # noqa: F401 - grid is a fixture, used by name

from pcg_plugin.cli import main


def test_baselines_rank_beside_an_llm_entry(
    grid: pytest.Pytester,  # noqa: F811 - the imported fixture
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = grid.path / "experiment"
    small = ["--runs", "2", "--generations", "1", "--population", "6", "-j", "1", "--fitness", "q,qt"]
    assert main(["pcgbench", "experiment", "zelda-v0", "--generator", "random,ga", *small, "--out", str(out)]) == 0
    subs = grid.path / "subs"
    shutil.copytree(EXAMPLES / "zero_shot", subs / "zero_shot")
    for folder in (out / "baselines" / "zelda-v0").iterdir():
        shutil.copytree(folder, subs / folder.name)
    result = grid.runpytest(*args("zelda-v0", "run", "--pcg-grid-instances", "2"))
    doc = results(grid.path, "run")
    ranked = [(s["rank"], s["name"]) for s in doc["submissions"]]
    assert ranked[0] == (1, "zero_shot") and doc["submissions"][0]["score"] > 0
    assert {name for _, name in ranked[1:]} == {"random-q", "random-qt", "ga-q", "ga-qt"}
    ga = next(s for s in doc["submissions"] if s["name"] == "ga-q")
    elites = json.loads((subs / "ga-q" / "elites.json").read_text())
    for instance in ga["instances"]:  # trial t answers run t's elite, wrapping after the last run
        trials = instance["trials"]
        assert [t["content"] for t in trials] == [elites[k]["content"] for k in (0, 1, 0)]
        assert [t["quality"] for t in trials] == pytest.approx([elites[k]["quality"] for k in (0, 1, 0)])
    assert "ga-q score 0.000 (feasible 0.000" in result.stdout.str()
    capsys.readouterr()  # the experiment's and the inner run's own output
    assert main(["export", str(grid.path / "run"), "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["submission"] for r in rows} == {"zero_shot", "random-q", "random-qt", "ga-q", "ga-qt"}
    assert len(rows) == 5 * 2 * 3  # submissions x instances x trials
