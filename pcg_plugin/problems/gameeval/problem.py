"""GameEval's games as Problems: ``gameeval/askguess-easy``, ``gameeval/askguess-hard``, ``gameeval/spyfall``,
``gameeval/tofukingdom``, the family ``gameeval/*`` (``FAMILY`` in the package's ``__init__``). One class,
``GameEvalProblem``, made per game (``games.GAMES``): targets are the game's words, word pairs or seeded role
draws; items are submission x target x trial; one trial is one episode; the end of the run is the reference's
table per submission."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.episode.context import context
from pcg_plugin.episode.problem import EpisodeProblem
from pcg_plugin.problems.gameeval import REFERENCE, item, report, rows
from pcg_plugin.problems.gameeval import settings as settings_mod
from pcg_plugin.problems.gameeval import submission as submission_mod
from pcg_plugin.problems.gameeval.games import GAMES
from pcg_plugin.problems.gameeval.records import EpisodeRecord
from pcg_plugin.problems.gameeval.settings import Settings
from pcg_plugin.problems.gameeval.worker import Context


class GameEvalProblem(EpisodeProblem):
    """``--pcg-problem gameeval/<game>``."""

    submission_module = submission_mod
    context_class = Context
    settings_class = Settings
    record_class = EpisodeRecord
    item_module, report_module, rows_module = item, report, rows
    score_name = "share of wins of the submission's side"

    def __init__(self, game: str) -> None:
        self.game = GAMES[game]
        self.name = f"gameeval/{game}"
        self.target_label = self.game.target_label
        self.game_args = (self.game,)  # what the game's report and rows take first
        self.play_roles = self.game.play_roles
        self.typical_calls = float(self.game.typical_calls)

    def configure(self, config: pytest.Config) -> Settings:
        return settings_mod.from_config(config, self.game)

    def like_for_like(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """Beyond the harness's check (model, backend, targets, trials): the seatings' and role draws' seed."""
        from pcg_plugin.core.results.like_for_like import recorded

        return recorded(results, {"seating seed": ("seed",)})

    def markers(self) -> Sequence[str]:
        return (
            "gameeval_model: a GameEval episode of a model entry (the reference's prompts, self-play)",
            "gameeval_prompt: a GameEval episode with a participant's prompt for one role",
            "gameeval_program: a GameEval episode with a participant's program writing a role's prompt",
        )

    def header_lines(self, config: pytest.Config, settings: Settings, run: Mapping[str, Any]) -> list[str]:
        return self.header(
            f"{self.name} ({self.game.title}, {REFERENCE}), {len(settings.targets)} "
            f"{self.game.target_label}(s) x {settings.trials} trial(s), seed {settings.seed}",
            settings,
            run,
        )

    def detect(self, path: Path) -> Any:
        return submission_mod.detect(path, self.game)

    def submission_meta(self, sub: Any) -> dict[str, Any]:
        return {
            "name": sub.name,
            "format": sub.format,
            "model": sub.model,
            "models": dict(sub.models),
            "role": sub.role,
            "files_hash": sub.files_hash,
        }

    def store_edition(self, settings: Settings) -> str:
        return f"gameeval/{self.game.name}/{REFERENCE}"

    def pinned(self, sub: Any) -> dict[str, str]:
        return dict(sub.models)

    def run_trial(
        self, config: pytest.Config, sub: Any, target: str, trial: int, nodeid: str, model: str | None
    ) -> Any:
        ctx = context(config)
        return item.run_trial(
            ctx, sub, self.game, target, trial, nodeid, model, self.assignment(ctx.settings, sub, model)
        )

    def trial_zero_cause(self, row: Mapping[str, Any]) -> str | None:
        """Why an episode the submission's side did not win scored 0: how it ended (``pcg compare`` says it)."""
        return rows.zero_cause(row)
