"""clembench's picture game (imagegame) as a Problem: targets are instances (``compact_grids/3``), items are
submission x instance x trial, one trial is one two-player episode; the end of the run is clemeval's leaderboard."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import pytest

from pcg_plugin.episode.context import context
from pcg_plugin.episode.problem import EpisodeProblem
from pcg_plugin.problems.imagegame import item, report, rows
from pcg_plugin.problems.imagegame import settings as settings_mod
from pcg_plugin.problems.imagegame import submission as submission_mod
from pcg_plugin.problems.imagegame.instances import load_instances
from pcg_plugin.problems.imagegame.records import EpisodeResult
from pcg_plugin.problems.imagegame.settings import Settings
from pcg_plugin.problems.imagegame.worker import Context


@lru_cache(maxsize=1)
def v2_instances() -> dict[str, Any]:
    """id -> Instance of clembench's v2.0 set (59: compact_grids/0-29, random_grids/1-29), in its order."""
    return {item.instance_id(i): i for i in load_instances()}


class ImageGame(EpisodeProblem):
    """``--pcg-problem imagegame``."""

    name = "imagegame"
    target_label = "instance"
    score_name = "clemscore"
    places = 2  # clemeval rounds clemscore to 2 places
    submission_module = submission_mod
    context_class = Context
    settings_class = Settings
    record_class = EpisodeResult
    item_module, report_module, rows_module = item, report, rows
    play_roles = item.ROLES  # describer (Giver) x drawer (Follower), as clembench names a pair <A>--<B>
    typical_calls = 10.0  # a Giver and a Follower call a turn, about five turns

    def store_edition(self, settings: Settings) -> str:
        return item.store_edition(settings.variant)

    def configure(self, config: pytest.Config) -> Settings:
        return settings_mod.from_config(config, tuple(v2_instances()))

    def like_for_like(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """Beyond the harness's check (model, backend, targets, trials): the game's variant and answer length."""
        from pcg_plugin.core.results.like_for_like import recorded

        return recorded(results, {"variant": ("variant",), "max tokens": ("max_tokens",)})

    def markers(self) -> Sequence[str]:
        return (
            "imagegame_model: a picture-game episode of a model entry (standard prompts, self-play)",
            "imagegame_prompt: a picture-game episode with a participant's Giver prompt",
            "imagegame_program: a picture-game episode with a participant's Giver program",
        )

    def header_lines(self, config: pytest.Config, settings: Settings, run: Mapping[str, Any]) -> list[str]:
        return self.header(
            f"imagegame (clembench 2.0.0, variant {settings.variant}), {len(settings.instances)} "
            f"instance(s) x {settings.trials} trial(s)",
            settings,
            run,
        )

    def submission_meta(self, sub: Any) -> dict[str, Any]:
        return {"name": sub.name, "format": sub.format, "model": sub.model, "files_hash": sub.files_hash}

    def run_trial(
        self, config: pytest.Config, sub: Any, target: str, trial: int, nodeid: str, model: str | None
    ) -> Any:
        ctx = context(config)
        assignment = self.assignment(ctx.settings, sub, model)
        return item.run_trial(ctx, sub, v2_instances()[target], trial, nodeid, model, assignment)

    def trial_score(self, record: Any) -> float | None:
        """The episode's Main Score (the last turn's F1, 0-100); None where clembench gives none (aborted)."""
        score = record.main_score  # NaN for an aborted episode: clembench gives it no quality
        return None if math.isnan(score) else score
