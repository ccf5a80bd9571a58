"""The end of an episode problem's run (the picture game, GameEval): errored items counted per submission, rank
intervals on the leaderboard, results.json and report.html written in the run folder."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

from pcg_plugin._util import jsontext
from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.core.results import runs

REPORT_FILE = "report.html"


def errors_by_submission(collected: Any) -> dict[str, int]:
    """How many items errored, per submission name (the leaderboard's errors column)."""
    errors: dict[str, int] = {}
    for nodeid in collected.errors:
        name = collected.items.get(nodeid, {}).get("name", nodeid.split("::")[0])
        errors[name] = errors.get(name, 0) + 1
    return errors


def write_run(
    run: MutableMapping[str, Any] | Any, doc: dict[str, Any], problem: Any, render: Callable[[dict[str, Any]], str]
) -> tuple[dict[str, Any], Path]:
    """``doc`` with each submission's rank interval (when ``problem`` is given), written as results.json, and
    ``render(doc)`` as report.html; returns the document and the report's path."""
    if problem is not None:
        runs.annotate(problem, doc, doc["leaderboard"], "submission")
    run_dir = Path(run["run_dir"])
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(run_dir / runs.RESULTS_FILE, jsontext.dumps(doc, indent=1) + "\n")
    report = run_dir / REPORT_FILE
    atomic_write(report, render(doc))
    return doc, report
