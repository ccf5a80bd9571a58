"""GameEval's games as Problems: ``gameeval/askguess-easy``, ``gameeval/askguess-hard``, ``gameeval/spyfall``,
``gameeval/tofukingdom``. One class, ``GameEvalProblem``, parameterised by a ``games.Game``: targets are the
game's words, word pairs or seeded role draws; items are submission x target x trial; one trial is one
episode; the end of the run is the reference's table per submission."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.base import BaseProblem
from pcg_plugin.errors import SubmissionError
from pcg_plugin.problems.gameeval import REFERENCE
from pcg_plugin.problems.gameeval import settings as settings_mod
from pcg_plugin.problems.gameeval import submission as submission_mod
from pcg_plugin.problems.gameeval.games import GAMES, Game
from pcg_plugin.problems.gameeval.settings import Settings


class GameEvalProblem(BaseProblem):
    """``--pcg-problem gameeval/<game>``."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.name = f"gameeval/{game.name}"
        self.target_label = game.target_label

    def add_options(self, parser: pytest.Parser) -> None:
        settings_mod.add_options(parser)

    def configure(self, config: pytest.Config) -> Settings:
        return settings_mod.from_config(config, self.game)

    def settings_from_dict(self, data: Mapping[str, Any]) -> Settings:
        return Settings.from_dict(data)

    def markers(self) -> Sequence[str]:
        return ("gameeval_model: a GameEval episode of a model entry (the reference's prompts, self-play)",
                "gameeval_prompt: a GameEval episode with a participant's prompt for one role",
                "gameeval_program: a GameEval episode with a participant's program writing a role's prompt")  # fmt: skip

    def header_lines(self, config: pytest.Config, settings: Settings, run: Mapping[str, Any]) -> list[str]:
        backend = settings.backend or ("auto (offline default)" if settings.offline_default else "auto")
        lines = [f"pcg: problem {self.name} ({self.game.title}, {REFERENCE}), {len(settings.targets)} "
                 f"{self.game.target_label}(s) x {settings.trials} trial(s), seed {settings.seed}; backend {backend}, "
                 f"model {settings.model or 'default'}; run folder {run['run_dir']}"]  # fmt: skip
        envs = run.get("environments", {})
        return (lines + [f"pcg: {note}" for note in settings.notes]
                + [f"pcg: {name} requirements: {env['summary']}" for name, env in sorted(envs.items())])  # fmt: skip

    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        sub = submission_mod.detect(path, self.game)
        if sub is not None:
            return sub
        if any(_same(path, r) for r in roots) and not any(p.is_dir() and (p / submission_mod.MANIFEST).is_file()
                                                          for p in _children(path)):  # fmt: skip
            raise SubmissionError(submission_mod.not_a_submission(path))
        return None

    def submission_meta(self, sub: Any) -> dict[str, Any]:
        return {"name": sub.name, "format": sub.format, "model": sub.model, "models": dict(sub.models),
                "role": sub.role, "files_hash": sub.files_hash}  # fmt: skip

    def preflight(self, config: pytest.Config, settings: Settings, roots: Sequence[Path]) -> dict[str, Any]:
        """Before any model call: each program's requirements.txt installed and its imports checked, once."""
        from pcg_plugin import environments

        envs: dict[str, dict[str, Any]] = {}
        for sub in self._program_submissions(roots):
            env = environments.prepare(sub.path, sub.entry, mode="install")
            envs[sub.name] = {"site_dir": str(env.site_dir) if env.site_dir else None, "problems": env.problems,
                              "summary": env.summary(sub.path)}  # fmt: skip
        return {"environments": envs}

    def start_process(self, config: pytest.Config, settings: Settings, run: Mapping[str, Any], workers: int,
                      service: str | None) -> None:  # fmt: skip
        from pcg_plugin.problems.gameeval.worker import CONTEXT_KEY, Context

        config.stash[CONTEXT_KEY] = Context(settings, Path(run["run_dir"]), workers=workers,  # type: ignore[arg-type]
                                            environments=run.get("environments", {}))  # fmt: skip

    def setup_trial(self, config: pytest.Config, sub: Any) -> None:
        from pcg_plugin.errors import EnvironmentProblem
        from pcg_plugin.problems.gameeval.worker import context

        try:
            context(config).site_dirs(sub)
        except EnvironmentProblem as exc:
            pytest.fail(f"requirements of {sub.name} ({sub.path}) cannot be met, so its episodes were not played "
                        f"(no model call): {exc}", pytrace=False)  # fmt: skip

    def process_facts(self, config: pytest.Config) -> dict[str, Any]:
        from pcg_plugin.problems.gameeval.worker import CONTEXT_KEY

        ctx = config.stash.get(CONTEXT_KEY, None)
        return ctx.facts() if ctx else {}

    def run_trial(self, config: pytest.Config, sub: Any, target: str, trial: int, nodeid: str,
                  model: str | None) -> Any:  # fmt: skip
        from pcg_plugin.problems.gameeval import item
        from pcg_plugin.problems.gameeval.worker import context

        return item.run_trial(context(config), sub, self.game, target, trial, nodeid)

    def describe(self, record: Any) -> str:
        from pcg_plugin.problems.gameeval.item import describe

        return describe(record)

    def record_from_json(self, text: str) -> Any:
        from pcg_plugin.problems.gameeval.records import EpisodeRecord

        return EpisodeRecord.from_json(text)

    def finish_run(self, config: pytest.Config, run: Mapping[str, Any], collected: Any,
                   worker_stats: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, Any], Path | None]:  # fmt: skip
        from pcg_plugin.problems.gameeval.report import finish_run

        return finish_run(self.game, run, collected)

    def summary_lines(self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None,
                      error: str | None) -> list[str]:  # fmt: skip
        from pcg_plugin.problems.gameeval.report import summary_lines

        return summary_lines(self.game, results, run_dir, report, error)

    def _program_submissions(self, roots: Sequence[Path]) -> list[submission_mod.Submission]:
        found: dict[Path, submission_mod.Submission] = {}
        for root in roots:
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
                if submission_mod.MANIFEST not in files:
                    continue
                dirs.clear()
                try:
                    sub = submission_mod.detect(Path(folder), self.game)
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


def askguess_easy() -> GameEvalProblem:
    return GameEvalProblem(GAMES["askguess-easy"])


def askguess_hard() -> GameEvalProblem:
    return GameEvalProblem(GAMES["askguess-hard"])


def spyfall() -> GameEvalProblem:
    return GameEvalProblem(GAMES["spyfall"])


def tofukingdom() -> GameEvalProblem:
    return GameEvalProblem(GAMES["tofukingdom"])
