"""clembench's picture game (imagegame) as a Problem: targets are instances (``compact_grids/3``), items are
submission x instance x trial, one trial is one two-player episode; the end of the run is clemeval's leaderboard."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.base import BaseProblem
from pcg_plugin.errors import SubmissionError
from pcg_plugin.problems.imagegame import settings as settings_mod
from pcg_plugin.problems.imagegame import submission as submission_mod
from pcg_plugin.problems.imagegame.settings import Settings


@lru_cache(maxsize=1)
def v2_instances() -> dict[str, Any]:
    """id -> Instance of clembench's v2.0 set (59: compact_grids/0-29, random_grids/1-29), in its order."""
    from pcg_plugin.problems.imagegame.instances import load_instances
    from pcg_plugin.problems.imagegame.item import instance_id

    return {instance_id(i): i for i in load_instances()}


class ImageGame(BaseProblem):
    """``--pcg-problem imagegame``."""

    name = "imagegame"
    target_label = "instance"

    def add_options(self, parser: pytest.Parser) -> None:
        settings_mod.add_options(parser)

    def configure(self, config: pytest.Config) -> Settings:
        return settings_mod.from_config(config, tuple(v2_instances()))

    def settings_from_dict(self, data: Mapping[str, Any]) -> Settings:
        return Settings.from_dict(data)

    def markers(self) -> Sequence[str]:
        return ("imagegame_model: a picture-game episode of a model entry (standard prompts, self-play)",
                "imagegame_prompt: a picture-game episode with a participant's Giver prompt",
                "imagegame_program: a picture-game episode with a participant's Giver program")  # fmt: skip

    def header_lines(self, config: pytest.Config, settings: Settings, run: Mapping[str, Any]) -> list[str]:
        backend = settings.backend or ("auto (offline default)" if settings.offline_default else "auto")
        lines = [f"pcg: problem imagegame (clembench 2.0.0, variant {settings.variant}), {len(settings.instances)} "
                 f"instance(s) x {settings.trials} trial(s); backend {backend}, model {settings.model or 'default'}; "
                 f"run folder {run['run_dir']}"]  # fmt: skip
        envs = run.get("environments", {})
        return (lines + [f"pcg: {note}" for note in settings.notes]
                + [f"pcg: {name} requirements: {env['summary']}" for name, env in sorted(envs.items())])  # fmt: skip

    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        sub = submission_mod.detect(path)
        if sub is not None:
            return sub
        if any(_same(path, r) for r in roots) and not any(p.is_dir() and (p / submission_mod.MANIFEST).is_file()
                                                          for p in _children(path)):  # fmt: skip
            raise SubmissionError(submission_mod.not_a_submission(path))
        return None

    def submission_meta(self, sub: Any) -> dict[str, Any]:
        return {"name": sub.name, "format": sub.format, "model": sub.model, "files_hash": sub.files_hash}

    def preflight(self, config: pytest.Config, settings: Settings, roots: Sequence[Path]) -> dict[str, Any]:
        """Before any model call: each Giver program's requirements.txt installed into its cached environment
        (as Science Birds does; ``pcg_plugin.environments``) and its imports checked, once for all workers."""
        from pcg_plugin import environments

        envs: dict[str, dict[str, Any]] = {}
        for sub in _program_submissions(roots):
            env = environments.prepare(sub.path, sub.entry, mode="install")
            envs[sub.name] = {"site_dir": str(env.site_dir) if env.site_dir else None, "problems": env.problems,
                              "summary": env.summary(sub.path)}  # fmt: skip
        return {"environments": envs}

    def start_process(self, config: pytest.Config, settings: Settings, run: Mapping[str, Any], workers: int,
                      service: str | None) -> None:  # fmt: skip
        from pcg_plugin.problems.imagegame.worker import CONTEXT_KEY, Context

        config.stash[CONTEXT_KEY] = Context(settings, Path(run["run_dir"]), workers=workers,
                                            environments=run.get("environments", {}))  # fmt: skip

    def setup_trial(self, config: pytest.Config, sub: Any) -> None:
        """A Giver program whose requirements cannot be met errors here, before any model call."""
        from pcg_plugin.errors import EnvironmentProblem
        from pcg_plugin.problems.imagegame.worker import context

        try:
            context(config).site_dirs(sub)
        except EnvironmentProblem as exc:
            pytest.fail(f"requirements of {sub.name} ({sub.path}) cannot be met, so its episodes were not played "
                        f"(no model call): {exc}", pytrace=False)  # fmt: skip

    def process_facts(self, config: pytest.Config) -> dict[str, Any]:
        from pcg_plugin.problems.imagegame.worker import CONTEXT_KEY

        ctx = config.stash.get(CONTEXT_KEY, None)
        return ctx.facts() if ctx else {}

    def run_trial(self, config: pytest.Config, sub: Any, target: str, trial: int, nodeid: str,
                  model: str | None) -> Any:  # fmt: skip
        from pcg_plugin.problems.imagegame import item
        from pcg_plugin.problems.imagegame.worker import context

        return item.run_trial(context(config), sub, v2_instances()[target], trial, nodeid)

    def describe(self, record: Any) -> str:
        from pcg_plugin.problems.imagegame.item import describe

        return describe(record)

    def record_from_json(self, text: str) -> Any:
        from pcg_plugin.problems.imagegame.records import EpisodeResult

        return EpisodeResult.from_json(text)

    def finish_run(self, config: pytest.Config, run: Mapping[str, Any], collected: Any,
                   worker_stats: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, Any], Path | None]:  # fmt: skip
        from pcg_plugin.problems.imagegame.report import finish_run

        return finish_run(run, collected)

    def summary_lines(self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None,
                      error: str | None) -> list[str]:  # fmt: skip
        from pcg_plugin.problems.imagegame.report import summary_lines

        return summary_lines(results, run_dir, report, error)


def _program_submissions(roots: Sequence[Path]) -> list[submission_mod.Submission]:
    """The Giver-program submissions under the run's folders (a broken manifest is its folder's error item)."""
    found: dict[Path, submission_mod.Submission] = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))  # as pytest skips them
            if submission_mod.MANIFEST not in files:
                continue
            dirs.clear()  # a submission's own subfolders are its files, not more submissions
            try:
                sub = submission_mod.detect(Path(folder))
            except SubmissionError:
                continue
            if sub is not None and sub.program is not None:
                found.setdefault(sub.path.resolve(), sub)
    return list(found.values())


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _children(path: Path) -> list[Path]:
    try:
        return list(path.iterdir())
    except OSError:
        return []
