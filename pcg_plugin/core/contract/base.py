"""The one base every problem subclasses: the eight methods of ``core.contract.problem.Problem`` that it must define,
and
the optional hooks with their defaults (no pre-flight, no services, no participant checks, no cost estimate, a
plain header). A problem overrides the hooks it has; the harness calls every hook of every problem the same way."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import pytest

SERVICE_LISTEN_ENV = "PCG_SERVICE_LISTEN"  # set by --pcg-cluster on a node whose service other hosts reach
WorkerStats: TypeAlias = Mapping[str, Mapping[str, Any]]  # each worker's ``process_facts``, by worker id
Finished: TypeAlias = tuple[dict[str, Any], Path | None]  # a finished run: its results and its report (None: none)


def merged_facts(worker_stats: WorkerStats, local: Mapping[str, Any]) -> dict[str, Any]:
    """The run's facts (the model, the classifier ... a process loaded): each key as the first worker (by id) sent
    it in its ``process_facts()["facts"]`` (all workers load the same things), else as this process has it."""
    out: dict[str, Any] = dict(local)
    for name in sorted(worker_stats):
        for key, value in worker_stats[name].get("facts", {}).items():
            out.setdefault(key, value)
    return out


class BaseProblem(ABC):
    """A problem: subclass, set ``name`` and ``target_label``, define the abstract methods."""

    name = "problem"
    target_label = "target"
    own_baseline_gate = False  # True: the problem gates --pcg-baseline itself (else core/results/gate.py does)

    # -- what a problem must define (core.contract.problem.Problem) ----------------------------------------------------

    @abstractmethod
    def configure(self, config: pytest.Config) -> Any:
        """The run's frozen settings (a bad option is a ``pytest.UsageError`` naming it)."""

    @abstractmethod
    def settings_from_dict(self, data: Mapping[str, Any]) -> Any:
        """The settings again on a worker, from their ``to_dict()``."""

    @abstractmethod
    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        """The submission a folder holds (None: not one; ``errors.SubmissionError``: one we cannot evaluate)."""

    @abstractmethod
    def run_trial(
        self, config: pytest.Config, submission: Any, target: str, trial: int, nodeid: str, model: str | None
    ) -> Any:
        """One trial: its record (an official zero is a record with a reason; a fault raises)."""

    @abstractmethod
    def record_from_json(self, text: str) -> Any:
        """A record again on the controller, from its ``to_json()``."""

    @abstractmethod
    def finish_run(
        self, config: pytest.Config, run: Mapping[str, Any], collected: Any, worker_stats: WorkerStats
    ) -> Finished:
        """The end of the run on the controller: score, write the results and report; (results, report path)."""

    @abstractmethod
    def describe(self, record: Any) -> str:
        """One line about a trial, shown in its report section."""

    @abstractmethod
    def summary_lines(
        self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
    ) -> list[str]:
        """The terminal summary of the run (``error``: scoring the run failed)."""

    # -- optional hooks ----------------------------------------------------------------------------------------

    def markers(self) -> Sequence[str]:
        """The problem's own pytest markers (``name: description``)."""
        return ()

    def checks_collector(self, folder: bool) -> type[pytest.Collector] | None:
        """The collector class of a run that does not evaluate (hook ``pytest_pcg_evaluating``), for a folder or a
        loose file (None: nothing is collected)."""
        return None

    def preflight(self, config: pytest.Config, settings: Any, roots: Sequence[Path]) -> dict[str, Any]:
        """On the controller, before collection: facts every worker gets in the run (requirements prepared ...)."""
        return {}

    def start_services(self, config: pytest.Config, settings: Any, run_dir: Path) -> str | None:
        """On the controller: a service the workers share; the string they are handed (None: none). Where
        ``$PCG_SERVICE_LISTEN`` is ``tcp:HOST`` (``SERVICE_LISTEN_ENV``: a cluster node that serves other nodes too)
        the service listens there, not on a local socket."""
        return None

    def stop_services(self, config: pytest.Config) -> None:
        return None

    def header_lines(self, config: pytest.Config, settings: Any, run: Mapping[str, Any]) -> list[str]:
        return [f"pcg: problem {self.name}, {len(settings.targets)} targets, {settings.trials} trials"]

    def session_lines(self, run: Mapping[str, Any]) -> list[str]:
        """Lines printed before the session header (the pre-flight table)."""
        return []

    def cost_line(self, settings: Any, nodeids: Sequence[str], run: Mapping[str, Any]) -> str | None:
        """After collection: what the collected items will cost (None: nothing to say)."""
        return None

    def detect_file(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        """The submission a loose file is (None: not one)."""
        return None

    def submission_meta(self, submission: Any) -> dict[str, Any]:
        """What the controller keeps of a submission (JSON)."""
        return {"name": submission.name, "format": submission.format}

    def model_levels(self, settings: Any, submission: Any) -> Sequence[str]:
        """The item levels between a submission and its targets (``team::<level>::target::trial``): each model of a
        several-model run, in order; none for a run of one model. A game with roles may give one level per
        assignment of models to roles (``--pcg-cross-play``); the level reaches ``run_trial`` as its ``model``."""
        return tuple(settings.models) if getattr(settings, "multi_model", False) else ()

    def level_keywords(self, settings: Any, submission: Any, level: str) -> Sequence[str]:
        """What ``-k`` matches on the items of a level: ``model_<level>``."""
        return (f"model_{level}",)

    def start_process(
        self, config: pytest.Config, settings: Any, run: Mapping[str, Any], workers: int, service: str | None
    ) -> None:
        """In every process (controller and each worker): the per-process resources."""
        return None

    def process_facts(self, config: pytest.Config) -> dict[str, Any]:
        """A worker's facts for the controller at the end (stats, backend, model)."""
        return {}

    def setup_trial(self, config: pytest.Config, submission: Any) -> None:
        """Before a trial, in its setup: fail here (``pytest.fail``) what must fail before any model call."""
        return None

    def warm_up(self, config: pytest.Config) -> None:
        """With trials in flight (``core.session.inflight``), on a thread of its own as the process's first trial
        starts: load
        what every trial needs (a classifier), so that it loads while the first trials wait on their model rather
        than after. A failure here is left for the trials to meet and report."""
        return None

    # -- the run read back (export, intervals, gate, compare, card: pcg_plugin/core/results/runs.py) -------------------

    def trial_rows(self, results: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Every trial of a results document as ``core.records.trials.row(...)`` (the twelve columns, then the
        problem's own values); none by default."""
        return []

    def scores(self, results: Mapping[str, Any], pick: Any) -> dict[str, float]:
        """``{submission: score}`` re-scored by the problem's own scorer on the trials ``pick(key, n)`` chooses
        from each group resampled together (``core.stats.intervals``); ``pick=core.stats.intervals.observed`` gives the
        run's
        own scores. Empty by default: nothing to resample, no interval."""
        return {}

    def caveats(self, results: Mapping[str, Any]) -> list[str]:
        """What makes a finished run's scores differ from the official pipeline's, beyond who answered (the
        unofficial banner says that): a classifier that is not the official one. The report's warnings, so that
        ``pcg card`` says what the report says; none by default."""
        return []

    def rank_intervals(
        self, results: Mapping[str, Any], *, reps: int = 200, seed: int = 0
    ) -> dict[str, tuple[int, int]]:
        """Each submission's 95 % rank interval: the bootstrap of ``core.stats.intervals`` over ``scores`` with
        shared ranks (a problem with an official ranking overrides this to rank its draws officially)."""
        from pcg_plugin.core.stats import intervals

        if not self.scores(results, intervals.observed):
            return {}
        return intervals.rank_intervals(lambda pick: self.scores(results, pick), reps=reps, seed=seed)

    # -- the viewer (pcg_plugin/core/views/viewer) ------------------------------------------------------------------

    def trial_score(self, record: Any) -> float | None:
        """The trial's own score, for the report's trial table and charts (None: the problem has none)."""
        return None

    def trial_states(self, record: Any) -> list[dict[str, Any]]:
        """What the trial's transcript shows between its calls: the state after each turn. Each a dict with
        ``title``, and any of ``after_call`` (how many calls came before it; None: at the end), ``lines``
        (text), ``grid`` (rows of cells), ``image`` and ``links`` (``[label, path]``), paths relative to the run
        folder."""
        return []
