"""The PCG Benchmark grid problems as harness problems: `pcgbench/binary-v0`, `pcgbench/sokoban-v0`,
`pcgbench/zelda-v0` (one class, parametrized by the benchmark problem; an entry point each).

Targets are instances (control values, `instances.py`); a trial asks the submission's prompt or program for a
level and scores it with the benchmark's own functions; the end of the run scores diversity, ranks and writes
results.json and report.html.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.base import BaseProblem
from pcg_plugin.problems.pcgbench import settings as settings_mod
from pcg_plugin.problems.pcgbench.records import GridRecord
from pcg_plugin.problems.pcgbench.settings import GridSettings


class PcgBenchProblem(BaseProblem):
    """One benchmark problem (`binary-v0`, `sokoban-v0` or `zelda-v0`) on the Problem protocol."""

    target_label = "instance"

    def __init__(self, benchmark: str) -> None:
        # every installed problem is made before the command line is parsed: nothing heavy is imported here
        self.benchmark = benchmark
        self.name = f"pcgbench/{benchmark}"

    def add_options(self, parser: pytest.Parser) -> None:
        settings_mod.add_options(parser)

    def configure(self, config: pytest.Config) -> GridSettings:
        return settings_mod.from_config(self.benchmark, config)

    def settings_from_dict(self, data: Mapping[str, Any]) -> GridSettings:
        return GridSettings.from_dict(data)

    def markers(self) -> Sequence[str]:
        return ("pcgbench_prompt: a PCG Benchmark prompt-file trial", "pcgbench_program: a PCG Benchmark program trial")

    def header_lines(self, config: pytest.Config, settings: GridSettings, run: Mapping[str, Any]) -> list[str]:
        model = settings.model or ("the offline default LLM" if settings.offline_default else "?")
        lines = [f"pcg: problem {self.name} (pcg_benchmark 00b96f5 semantics), {len(settings.targets)} instances "
                 f"({', '.join(settings.targets)}) x {settings.trials} trials; model {model}; run folder "
                 f"{run['run_dir']}"]  # fmt: skip
        return lines + [f"pcg: {note}" for note in settings.notes]

    # -- collection --------------------------------------------------------------------------------------------

    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        from pcg_plugin.problems.pcgbench.submission import detect_folder

        return detect_folder(path, roots)

    def detect_file(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        from pcg_plugin.problems.pcgbench.submission import detect_file

        return detect_file(path, roots)

    # -- every process -----------------------------------------------------------------------------------------

    def start_process(self, config: pytest.Config, settings: GridSettings, run: Mapping[str, Any], workers: int,
                      service: str | None) -> None:  # fmt: skip
        from pcg_plugin.problems.pcgbench.worker import CONTEXT_KEY, GridContext

        config.stash[CONTEXT_KEY] = GridContext(settings, Path(run["run_dir"]), workers=workers)

    def process_facts(self, config: pytest.Config) -> dict[str, Any]:
        from pcg_plugin.problems.pcgbench.worker import CONTEXT_KEY

        ctx = config.stash.get(CONTEXT_KEY, None)
        return {"stats": ctx.stats, "facts": ctx.facts()} if ctx else {}

    def run_trial(self, config: pytest.Config, submission: Any, target: str, trial: int, nodeid: str,
                  model: str | None) -> GridRecord:  # fmt: skip
        from pcg_plugin.problems.pcgbench.instances import instance_by_id
        from pcg_plugin.problems.pcgbench.registry import get_problem
        from pcg_plugin.problems.pcgbench.trial import run_trial
        from pcg_plugin.problems.pcgbench.worker import grid_context

        ctx = grid_context(config)
        s = ctx.settings
        instance = instance_by_id(get_problem(s.problem), s.instance_count, s.seed, target)
        return run_trial(submission, instance, trial, nodeid, ctx)

    def describe(self, record: GridRecord) -> str:
        from pcg_plugin.problems.pcgbench.records import describe

        return describe(record)

    def record_from_json(self, text: str) -> GridRecord:
        return GridRecord.from_json(text)

    # -- controller, after the run -----------------------------------------------------------------------------

    def finish_run(self, config: pytest.Config, run: Mapping[str, Any], collected: Any,
                   worker_stats: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, Any], Path | None]:  # fmt: skip
        from pcg_plugin.problems.pcgbench.outputs import finish_run

        return finish_run(config, run, collected, worker_stats)

    def summary_lines(self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None,
                      error: str | None) -> list[str]:  # fmt: skip
        from pcg_plugin.problems.pcgbench.outputs import summary_lines

        return summary_lines(results, run_dir, report, error)


def binary() -> PcgBenchProblem:
    return PcgBenchProblem("binary-v0")


def sokoban() -> PcgBenchProblem:
    return PcgBenchProblem("sokoban-v0")


def zelda() -> PcgBenchProblem:
    return PcgBenchProblem("zelda-v0")
