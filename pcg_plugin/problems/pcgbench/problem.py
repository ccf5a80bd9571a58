"""Every registered PCG Benchmark variant as a harness problem, `pcgbench/<variant>` (`pcgbench/zelda-large-v0`):
one class, parametrized by the variant; the one entry point `pcgbench/*` (a family, `FAMILY` in the package's
`__init__`) lists every name of `bench/registry.py`, so a new variant needs no pyproject line.

Targets are instances (control values, `instances.py`); a trial asks the submission's prompt or program for a
level and scores it with the benchmark's own functions; the end of the run scores diversity, ranks and writes
results.json and report.html.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.contract.base import BaseProblem, Finished, WorkerStats
from pcg_plugin.problems.pcgbench import PLACES, outputs, records, rows, submission, trial
from pcg_plugin.problems.pcgbench import settings as settings_mod
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.instances import instance_by_id
from pcg_plugin.problems.pcgbench.records import BenchRecord
from pcg_plugin.problems.pcgbench.settings import BenchSettings
from pcg_plugin.problems.pcgbench.worker import CONTEXT_KEY, BenchContext, bench_context


class PcgBenchProblem(BaseProblem):
    """One benchmark variant (`binary-v0`, `building-tall-v0`, ...) on the Problem protocol."""

    target_label = "instance"
    score_name = "score (mean over instances of the share of trials feasible, controlled and unique)"
    places = PLACES

    def __init__(self, benchmark: str) -> None:
        self.benchmark = benchmark
        self.name = f"pcgbench/{benchmark}"

    def configure(self, config: pytest.Config) -> BenchSettings:
        return settings_mod.from_config(self.benchmark, config)

    def settings_from_dict(self, data: Mapping[str, Any]) -> BenchSettings:
        return BenchSettings.from_dict(data)

    def like_for_like(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """Beyond the harness's check (model, backend, targets, trials): the instance draw and the decoding."""
        from pcg_plugin.core.results.like_for_like import recorded

        return recorded(results, {"instance draw seed": ("seed",), "constrained decoding": ("constrain",)})

    def markers(self) -> Sequence[str]:
        return ("pcgbench_prompt: a PCG Benchmark prompt-file trial", "pcgbench_program: a PCG Benchmark program trial")

    def header_lines(self, config: pytest.Config, settings: BenchSettings, run: Mapping[str, Any]) -> list[str]:
        model = settings.model or ("the offline default LLM" if settings.offline_default else "?")
        lines = [
            f"pcg: problem {self.name} (pcg_benchmark 00b96f5 semantics), {len(settings.targets)} instances "
            f"({', '.join(settings.targets)}) x {settings.trials} trials; model {model}"
        ]
        if settings.multi_model:
            lines.append(
                f"pcg: {len(settings.models)} models, one item level each (-k model_<name> selects one), each "
                "scored alone: one row per submission x model, ranked across every row and within its model"
            )
        return lines + [f"pcg: {note}" for note in settings.notes]

    @property
    def placeholders(self) -> tuple[str, ...]:
        return get_problem(self.benchmark).placeholders

    # -- collection --------------------------------------------------------------------------------------------

    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        return submission.detect_folder(path, roots, self.placeholders)

    def detect_file(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        return submission.detect_file(path, roots, self.placeholders)

    # -- every process -----------------------------------------------------------------------------------------

    def start_process(
        self, config: pytest.Config, settings: BenchSettings, run: Mapping[str, Any], workers: int, service: str | None
    ) -> None:
        config.stash[CONTEXT_KEY] = BenchContext(settings, Path(run["run_dir"]), workers=workers)

    def process_facts(self, config: pytest.Config) -> dict[str, Any]:
        ctx = config.stash.get(CONTEXT_KEY, None)
        return {"stats": ctx.stats, "facts": ctx.facts()} if ctx else {}

    def run_trial(
        self, config: pytest.Config, sub: Any, target: str, number: int, nodeid: str, model: str | None
    ) -> BenchRecord:
        ctx = bench_context(config)
        s = ctx.settings
        instance = instance_by_id(get_problem(s.problem), s.instance_count, s.seed, target)
        return trial.run_trial(sub, instance, number, nodeid, ctx, model)

    def describe(self, record: BenchRecord) -> str:
        return records.describe(record)

    def trial_score(self, record: BenchRecord) -> float:
        """The trial's quality (1: a playable level), the benchmark's first figure."""
        return float(record.quality)

    def trial_states(self, record: BenchRecord) -> list[dict[str, Any]]:
        return records.trial_states(record)

    def record_from_json(self, text: str) -> BenchRecord:
        return BenchRecord.from_json(text)

    # -- controller, after the run -----------------------------------------------------------------------------

    def finish_run(
        self, config: pytest.Config, run: Mapping[str, Any], collected: Any, worker_stats: WorkerStats
    ) -> Finished:
        return outputs.finish_run(config, run, collected, worker_stats)

    def summary_lines(
        self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
    ) -> list[str]:
        return outputs.summary_lines(results, run_dir, report, error)

    # -- the run read back (core.results.runs) -------------------------------------------------------------------------

    def trial_rows(self, results: Mapping[str, Any]) -> list[dict[str, Any]]:
        return rows.trial_rows(results)

    def scores(self, results: Mapping[str, Any], pick: Any) -> dict[str, float]:
        return rows.scores(results, pick)

    def trial_zero_cause(self, row: Mapping[str, Any]) -> str | None:
        """Why a trial without an official reason scored 0: which of feasible, controlled, unique it was not."""
        return rows.zero_cause(row)
