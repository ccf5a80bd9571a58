"""Defaults for the optional parts of a Problem: a problem overrides what it has (checks, services, cost)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest


class BaseProblem:
    """No pre-flight, no services, no participant checks, no cost estimate; a plain header and summary."""

    name = "problem"
    target_label = "target"

    def add_options(self, parser: pytest.Parser) -> None:
        return None

    def markers(self) -> Sequence[str]:
        return ()

    def preflight(self, config: pytest.Config, settings: Any, roots: Sequence[Path]) -> dict[str, Any]:
        return {}

    def start_services(self, config: pytest.Config, settings: Any, run_dir: Path) -> str | None:
        return None

    def stop_services(self, config: pytest.Config) -> None:
        return None

    def header_lines(self, config: pytest.Config, settings: Any, run: Mapping[str, Any]) -> list[str]:
        return [f"pcg: problem {self.name}, {len(settings.targets)} targets, {settings.trials} trials"]

    def session_lines(self, run: Mapping[str, Any]) -> list[str]:
        return []

    def cost_line(self, settings: Any, nodeids: Sequence[str], run: Mapping[str, Any]) -> str | None:
        return None

    def detect_file(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        return None

    def submission_meta(self, submission: Any) -> dict[str, Any]:
        return {"name": submission.name, "format": submission.format}

    def checks_collector(self, folder: bool) -> Any:
        return None

    def start_process(self, config: pytest.Config, settings: Any, run: Mapping[str, Any], workers: int,
                      service: str | None) -> None:  # fmt: skip
        return None

    def process_facts(self, config: pytest.Config) -> dict[str, Any]:
        return {}

    def setup_trial(self, config: pytest.Config, submission: Any) -> None:
        return None

    def describe(self, record: Any) -> str:
        return f"score 0: {record.reason}" if record.reason else "scored"

    def summary_lines(
        self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
    ) -> list[str]:
        if error is not None:
            return [f"scoring the run failed: {error}", f"run folder: {run_dir}"]
        return [f"run folder: {run_dir}"]
