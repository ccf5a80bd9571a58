"""The end of an episode problem's run (the picture game, GameEval): errored items counted per submission, rank
intervals on the leaderboard, results.json and report.html written in the run folder."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from pcg_plugin._util import jsontext
from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.core.results import runs
from pcg_plugin.core.stats.intervals import level_key

REPORT_FILE = "report.html"


def run_levels(collected: Any, order: Sequence[str], models: Sequence[str]) -> list[str]:
    """The model levels the run's items had (several ``models``: each model, or each cross-play assignment), in
    ``order`` first; none for a run of one model (whose items' ``model`` is the manifest's, no level)."""
    if len(models) < 2:
        return []
    seen = {m["model"] for m in collected.items.values() if m.get("model") is not None}
    seen |= {r.model for r in collected.records.values() if getattr(r, "model", None) is not None}
    return [m for m in order if m in seen] + sorted(seen - set(order))


def errors_by_submission(collected: Any) -> dict[str, int]:
    """How many items errored, per row (``level_key``: the submission, with its model level in a several-model
    run): the leaderboard's errors column."""
    errors: dict[str, int] = {}
    for nodeid in collected.errors:
        meta = collected.items.get(nodeid, {})
        level = meta.get("model")  # a level item's id is sub::<level>::target::trial (its manifest's is no level)
        level = level if nodeid.split("::")[-3:-2] == [level] else None
        name = level_key(meta.get("name", nodeid.split("::")[0]), level)
        errors[name] = errors.get(name, 0) + 1
    return errors


def write_run(
    run: MutableMapping[str, Any] | Any, doc: dict[str, Any], problem: Any, render: Callable[[dict[str, Any]], str]
) -> tuple[dict[str, Any], Path]:
    """``doc`` with each submission's rank interval (when ``problem`` is given), written as results.json, and
    ``render(doc)`` as report.html; returns the document and the report's path."""
    if problem is not None:
        runs.annotate(problem, doc, doc["leaderboard"], "key")
    run_dir = Path(run["run_dir"])
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(run_dir / runs.RESULTS_FILE, jsontext.dumps(doc, indent=1) + "\n")
    report = run_dir / REPORT_FILE
    atomic_write(report, render(doc))
    return doc, report
