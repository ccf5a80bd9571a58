"""Science Birds as a Problem: the targets are letters; a trial asks the participant's prompt or program for
``drop_block`` code, builds and simulates the level, renders and classifies it; the official scorer ranks."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.contract.base import SERVICE_LISTEN_ENV, BaseProblem, Finished, WorkerStats
from pcg_plugin.core.inputs import zips
from pcg_plugin.errors import EnvironmentProblem, SubmissionError
from pcg_plugin.problems.science_birds import classify as cs
from pcg_plugin.problems.science_birds import item, preflight, rows
from pcg_plugin.problems.science_birds import settings as settings_mod
from pcg_plugin.problems.science_birds import submissions as collect
from pcg_plugin.problems.science_birds.outputs import finish_run
from pcg_plugin.problems.science_birds.records import TrialRecord
from pcg_plugin.problems.science_birds.report import terminal
from pcg_plugin.problems.science_birds.rules.items import RulesDir, RulesFile
from pcg_plugin.problems.science_birds.settings import Settings
from pcg_plugin.problems.science_birds.worker import CONTEXT_KEY, WorkerContext, worker_context

SERVICE_HANDLE = pytest.StashKey[Any]()


class ScienceBirds(BaseProblem):
    """The first problem of the harness (``--pcg-problem science-birds``, the default)."""

    name = "science-birds"
    target_label = "letter"
    own_baseline_gate = True  # per-letter and per-model scores, like-for-like digests (rules/plugin.py)
    # true of every run: the scores sum to 100 only where some prompt score is above 0
    score_name = "normalized score (official: 100 x prompt score / sum of all prompt scores; 0 when that sum is 0)"
    places = 4  # the decimals its terminal, report and comparison show

    # -- settings ----------------------------------------------------------------------------------------------

    def configure(self, config: pytest.Config) -> Settings:
        return settings_mod.from_config(config)

    def settings_from_dict(self, data: Mapping[str, Any]) -> Settings:
        return Settings.from_dict(data)

    def markers(self) -> Sequence[str]:
        return (
            "program_2024: a 2024 TrialLoop program trial",
            "program_2025: a 2025 TrialLoop program trial",
            "prompt_2023: a 2023 prompt-file trial",
        )

    # -- controller, before collection -------------------------------------------------------------------------

    def preflight(self, config: pytest.Config, settings: Settings, roots: Sequence[Path]) -> dict[str, Any]:
        """Before collection and any model call: every folder given as a pre-flight row, and each program's
        requirements prepared (installed into its cached environment, or checked) for the workers."""
        rows, envs, prompts = [], {}, {}
        for path in preflight.targets(list(roots)):
            sub, problem = preflight.detect(path, limits=zips.ZipLimits.from_config(config))
            display = preflight.display_name(path, Path(config.invocation_params.dir), roots)
            verdict = preflight.rule_verdict(sub) if sub is not None else ""
            if sub is not None and sub.prompt is not None:  # a 2023 prompt is the message: the estimate reads it
                prompts[sub.name] = len(sub.prompt)
            requirements, problems, label = "", [], ""
            if sub is not None and sub.format != "prompt-2023":
                env = preflight.environment(sub, settings.requirements)
                envs[sub.name] = {"site_dirs": [str(d) for d in env.site_dirs], "problems": env.problems}
                requirements, problems, label = env.summary(sub.path), env.problems, env.label()
            rows.append(
                preflight.row_for(
                    path,
                    sub,
                    problem,
                    display=display,
                    rules=verdict,
                    requirements=requirements,
                    problems=problems,
                    environment=label,
                ).to_dict()
            )
        return {"folders": rows, "environments": envs, "prompt_chars": prompts}

    def start_services(self, config: pytest.Config, settings: Settings, run_dir: Path) -> str | None:
        """The run's one classification service when the mode resolves to ``service`` (a GPU, or
        ``--pcg-classify-mode service``); workers get it through workerinput, ``stop_services`` stops it."""
        if cs.resolve_mode(settings.classify_mode, settings.device) != "service":
            return None
        handle = cs.start_service(
            model=settings.classifier,
            device=settings.device,
            run_dir=run_dir,
            export_env=False,
            listen=os.environ.get(SERVICE_LISTEN_ENV) or None,
        )
        config.stash[SERVICE_HANDLE] = handle
        return handle.info.to_env()

    def stop_services(self, config: pytest.Config) -> None:
        handle = config.stash.get(SERVICE_HANDLE, None)
        if handle is not None:
            handle.stop()

    def header_lines(self, config: pytest.Config, settings: Settings, run: Mapping[str, Any]) -> list[str]:
        lines = terminal.header_lines(settings)
        if any(r["format"].startswith("program") for r in run.get("folders", [])):
            lines.append(
                f"pcg: requirements {settings.requirements}; the official packages chatgpt4pcg/llms4pcg "
                "are served by the harness's stand-ins, never installed"
            )
        return lines

    def session_lines(self, run: Mapping[str, Any]) -> list[str]:
        """The pre-flight table (nothing when no folder of ours was given: the project's own tests)."""
        if not run.get("folders"):
            return []
        return list(preflight.table([preflight.FolderRow(**row) for row in run["folders"]]))

    def cost_line(self, settings: Settings, nodeids: Sequence[str], run: Mapping[str, Any]) -> str | None:
        return terminal.preflight_line(settings, nodeids, run.get("prompt_chars", {}))

    # -- collection --------------------------------------------------------------------------------------------

    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        """A folder that must hold a submission (``collect.folder_role``) becomes one, or a SubmissionError;
        containers and foreign folders are left to pytest, except that a manifest anywhere makes a submission."""
        role = None
        try:
            role = collect.folder_role(path, list(roots), require_placeholder=evaluating)
            sub = collect.detect_folder(path, manifest_only=role != "submission", require_placeholder=evaluating)
            if sub is None and role == "submission":
                raise SubmissionError(collect.not_a_submission(path))
        except OSError as exc:
            if role == "submission":  # a team folder we cannot read is reported, never dropped
                raise SubmissionError(f"{path}: cannot be read ({exc})") from None
            return None  # a sibling folder that vanished or cannot be read is nobody's submission
        return sub

    def detect_file(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        """A loose 2023 prompt file; a loose .txt among the submissions without ``<OBJECT>`` is reported."""
        if not collect.is_prompt_name(path):
            return None
        try:
            if not collect.prompt_file_allowed(path, list(roots)):
                return None
            sub = collect.detect_prompt_file(path, require_placeholder=evaluating)
        except OSError:
            return None
        if sub is None:
            raise SubmissionError(collect.not_a_prompt(path))
        return sub

    def submission_meta(self, sub: collect.Submission) -> dict[str, Any]:
        return {
            "name": sub.name,
            "format": sub.format,
            "team": sub.team,
            "prompt_length": sub.prompt_length,
            "files_hash": sub.files_hash,
        }

    def checks_collector(self, folder: bool) -> Any:
        """Rule checks and dry runs (``--pcg-rules``, ``--pcg-dry-run``: ``rules.plugin``)."""
        return RulesDir if folder else RulesFile

    # -- every process -----------------------------------------------------------------------------------------

    def start_process(
        self, config: pytest.Config, settings: Settings, run: Mapping[str, Any], workers: int, service: str | None
    ) -> None:
        config.stash[CONTEXT_KEY] = WorkerContext(
            settings,
            Path(run["run_dir"]),
            workers=workers,
            classify_service=service,
            environments=run.get("environments", {}),
        )

    def process_facts(self, config: pytest.Config) -> dict[str, Any]:
        ctx = config.stash.get(CONTEXT_KEY, None)
        return {"stats": ctx.stats, "facts": ctx.facts()} if ctx else {}

    def warm_up(self, config: pytest.Config) -> None:
        """The classifier (seconds to load) and the physics settings, while the first trials wait on their model."""
        ctx = worker_context(config)
        ctx.classifier()
        _ = ctx.physics

    def setup_trial(self, config: pytest.Config, sub: collect.Submission) -> None:
        """A submission whose requirements cannot be met errors here, before any model call."""
        if sub.format == "prompt-2023":
            return
        try:
            worker_context(config).site_dirs(sub)
            return
        except EnvironmentProblem as exc:
            problem = str(exc)
        pytest.fail(
            f"requirements of {sub.name} cannot be met, so its trials were not run (no model call): {problem}",
            pytrace=False,
        )

    def run_trial(
        self, config: pytest.Config, sub: collect.Submission, target: str, trial: int, nodeid: str, model: str | None
    ) -> Any:
        # the model only where there is a model level: a one-model item calls run_trial exactly as before
        extra = {"model": model} if model is not None else {}
        return item.run_trial(sub, target, trial, nodeid, worker_context(config), **extra)

    def describe(self, record: Any) -> str:
        return item.describe(record)

    def record_from_json(self, text: str) -> Any:
        return TrialRecord.from_json(text)

    def trial_score(self, record: Any) -> float | None:
        return item.trial_score(record)

    def trial_states(self, record: Any) -> list[dict[str, Any]]:
        return item.trial_states(record)

    # -- controller, after the run -----------------------------------------------------------------------------

    def finish_run(
        self, config: pytest.Config, run: Mapping[str, Any], collected: Any, worker_stats: WorkerStats
    ) -> Finished:
        return finish_run(config, dict(run), collected, worker_stats)

    def summary_lines(
        self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
    ) -> list[str]:
        return terminal.summary_lines(results, run_dir, report, error)

    # -- the run read back (core.results.runs) -------------------------------------------------------------------------

    def like_for_like(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """Beyond the harness's check (model, backend, base URL, temperature, seed policy, letters, trials): the
        edition's scoring switches, the profile's guards and the classifier's and physics' digests (a results.json
        or a baseline), from the table the gate reads too (``like_for_like.OWN``)."""
        from pcg_plugin.problems.science_birds.like_for_like import own_settings

        return own_settings(results)

    def trial_rows(self, results: Mapping[str, Any]) -> list[dict[str, Any]]:
        return rows.trial_rows(results)

    def scores(self, results: Mapping[str, Any], pick: Any) -> dict[str, float]:
        return rows.scores(results, pick)

    def caveats(self, results: Mapping[str, Any]) -> list[str]:
        """The report's warnings but the unofficial banner (``pcg card`` prints that one itself)."""
        from pcg_plugin.core.contract.banner import unofficial
        from pcg_plugin.problems.science_birds.report.html import warnings
        from pcg_plugin.problems.science_birds.results import coerce

        doc = coerce(results)
        said = unofficial(results.get("settings") or {}) is not None  # the banner says who answered
        offline = "The offline default LLM"
        return [w for w in warnings(doc) if not (said and w.startswith((offline, "UNOFFICIAL")))]

    def zero_cause(self, results: Mapping[str, Any], submission: str) -> str | None:
        """Why ``submission`` scores 0 though its trials did not all fail: diversity 0 (``pcg compare`` says it)."""
        from pcg_plugin.problems.science_birds.results import coerce

        doc = coerce(results)  # ``submission``: a row's key (``team @ model`` where rows are per model) or name
        sub = next((s for s in doc.submissions if submission in (doc.row_key(s), s.name)), None)
        if sub is None:
            return None
        return terminal.diversity_cause(sub, doc.per_model if doc.summed else None, list(doc.settings.letters or ()))

    def trial_zero_cause(self, row: Mapping[str, Any]) -> str | None:
        """Why a trial without an official reason scored 0 (its row from ``trial_rows``): stability or
        similarity 0 (the trial score is weight x stability x similarity)."""
        return rows.trial_zero_cause(row)

    def rank_intervals(
        self, results: Mapping[str, Any], *, reps: int = 100, seed: int = 0
    ) -> dict[str, tuple[int, int]]:
        """The official ranking of each draw (its tie-break included), as the report's rank column."""
        from pcg_plugin.problems.science_birds.report.html import rank_intervals

        return rank_intervals(results, reps=reps, seed=seed)
