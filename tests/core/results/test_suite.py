"""The suite run folder's contract (``pcg_plugin.core.results.suite``): a suite is read problem by problem, a single run
as a suite of one, and a missing member is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pcg_plugin.core.results import suite
from pcg_plugin.errors import ResultsError


def write(path: Path, doc: dict) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.json").write_text(json.dumps(doc))
    return path


def test_a_single_run_is_a_suite_of_one(tmp_path: Path) -> None:
    write(tmp_path, {"problem": "imagegame"})
    assert suite.members(tmp_path) == [("imagegame", tmp_path / "results.json")]


def test_a_suite_is_read_problem_by_problem_in_its_order(tmp_path: Path) -> None:
    names = ["pcgbench/zelda-v0", "imagegame"]
    for name in names:
        write(tmp_path / suite.folder_for(name), {"problem": name})
    write(tmp_path, suite.document({n: suite.folder_for(n) for n in names}))
    got = suite.members(tmp_path)
    assert [p for p, _ in got] == names
    assert got[0][1] == tmp_path / "pcgbench-zelda-v0" / "results.json"


def test_a_missing_member_is_named(tmp_path: Path) -> None:
    write(tmp_path, suite.document({"imagegame": "imagegame"}))
    with pytest.raises(ResultsError, match="imagegame"):
        suite.members(tmp_path)
