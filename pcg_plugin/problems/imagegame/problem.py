"""clembench's picture game (imagegame) as a Problem: targets are instances (``compact_grids/3``), items are
submission x instance x trial, one trial is one two-player episode; the end of the run is clemeval's leaderboard."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.episode.problem import EpisodeProblem
from pcg_plugin.problems.imagegame import settings as settings_mod
from pcg_plugin.problems.imagegame import submission as submission_mod
from pcg_plugin.problems.imagegame.settings import Settings


@lru_cache(maxsize=1)
def v2_instances() -> dict[str, Any]:
    """id -> Instance of clembench's v2.0 set (59: compact_grids/0-29, random_grids/1-29), in its order."""
    from pcg_plugin.problems.imagegame.instances import load_instances
    from pcg_plugin.problems.imagegame.item import instance_id

    return {instance_id(i): i for i in load_instances()}


class ImageGame(EpisodeProblem):
    """``--pcg-problem imagegame``."""

    name = "imagegame"
    target_label = "instance"
    submission_module = submission_mod
    worker_module = "pcg_plugin.problems.imagegame.worker"

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
                 f"instance(s) x {settings.trials} trial(s); backend {backend}, model {settings.model or 'default'}"]
        return lines + self.requirement_lines(settings, run)

    def submission_meta(self, sub: Any) -> dict[str, Any]:
        return {"name": sub.name, "format": sub.format, "model": sub.model, "files_hash": sub.files_hash}

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

