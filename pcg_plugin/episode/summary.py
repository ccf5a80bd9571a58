"""The terminal summary every episode problem prints around its own table: why scoring failed, or its table, the
folders not evaluated, and where the run and its report lie."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def summary_lines(
    doc: Mapping[str, Any] | None,
    run_dir: str | Path,
    report: Path | None,
    error: str | None,
    table: Callable[[Mapping[str, Any]], list[str]],
) -> list[str]:
    """``table(doc)``: the problem's own lines (its leaderboard, the episodes that scored 0)."""
    if doc is None:
        return [f"scoring the run failed: {error}", f"run folder: {run_dir}"] if error else [f"run folder: {run_dir}"]
    lines = table(doc)
    if doc["folder_errors"]:
        lines.append(f"{len(doc['folder_errors'])} folder(s) not evaluated: {', '.join(doc['folder_errors'])}")
    lines.append(f"run folder: {run_dir}")
    if report is not None:
        lines.append(f"report: {report}")
    return lines
