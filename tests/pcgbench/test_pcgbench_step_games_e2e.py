"""mdungeons-v0 and ddave-v0 end to end through pytest (pytester) with the scripted test double: the shipped
example submissions run, every answer is one of the variant's feasible example levels, and the run folder,
results and report are written."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_harness_pcgbench import EXAMPLES, args, grid, results  # noqa: F401 - grid is a fixture, used by name


@pytest.mark.parametrize("problem", ["mdungeons-v0", "ddave-v0"])
def test_example_submissions_run_on_the_step_games(grid: pytest.Pytester, problem: str) -> None:  # noqa: F811 - the imported fixture
    shutil.copytree(EXAMPLES, grid.path / "subs")
    result = grid.runpytest(*args(problem, "run", "--pcg-grid-instances", "2", "--pcg-trials", "2"))
    assert result.ret == 0, result.stdout.str()
    doc = results(grid.path, "run")
    assert doc["problem"] == f"pcgbench/{problem}" and not doc["errors"] and not doc["folder_errors"]
    assert {s["name"] for s in doc["submissions"]} == {"few_shot", "self_check", "zero_shot"}
    for s in doc["submissions"]:
        assert s["feasible"] == 1.0, s["name"]  # the double answers the first example level, quality 1.0
        trials = [t for i in s["instances"] for t in i["trials"]]
        assert all(t["quality"] == 1.0 and t["reason"] is None for t in trials)
    assert "<svg" in (grid.path / "run" / "report.html").read_text()
