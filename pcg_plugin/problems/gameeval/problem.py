"""GameEval's games as Problems: ``gameeval/askguess-easy``, ``gameeval/askguess-hard``, ``gameeval/spyfall``,
``gameeval/tofukingdom``. One class, ``GameEvalProblem``, parameterised by a ``games.Game``: targets are the
game's words, word pairs or seeded role draws; items are submission x target x trial; one trial is one
episode; the end of the run is the reference's table per submission."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.episode.problem import EpisodeProblem
from pcg_plugin.problems.gameeval import REFERENCE
from pcg_plugin.problems.gameeval import settings as settings_mod
from pcg_plugin.problems.gameeval import submission as submission_mod
from pcg_plugin.problems.gameeval.games import GAMES, Game
from pcg_plugin.problems.gameeval.settings import Settings


class GameEvalProblem(EpisodeProblem):
    """``--pcg-problem gameeval/<game>``."""

    submission_module = submission_mod
    worker_module = "pcg_plugin.problems.gameeval.worker"

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
                 f"model {settings.model or 'default'}"]  # fmt: skip
        return lines + self.requirement_lines(settings, run)

    def detect(self, path: Path) -> Any:
        return submission_mod.detect(path, self.game)

    def submission_meta(self, sub: Any) -> dict[str, Any]:
        return {"name": sub.name, "format": sub.format, "model": sub.model, "models": dict(sub.models),
                "role": sub.role, "files_hash": sub.files_hash}  # fmt: skip

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


def askguess_easy() -> GameEvalProblem:
    return GameEvalProblem(GAMES["askguess-easy"])


def askguess_hard() -> GameEvalProblem:
    return GameEvalProblem(GAMES["askguess-hard"])


def spyfall() -> GameEvalProblem:
    return GameEvalProblem(GAMES["spyfall"])


def tofukingdom() -> GameEvalProblem:
    return GameEvalProblem(GAMES["tofukingdom"])
