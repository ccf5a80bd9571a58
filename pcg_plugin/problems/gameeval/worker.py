"""Per-process resources of a GameEval run: the picture game's (one backend per model, the response store, the
rate limiter, a program's installed requirements), with GameEval's sampling profile."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pcg_plugin.problems.gameeval import REFERENCE
from pcg_plugin.problems.imagegame.worker import NO_LIMIT_TOKENS, TEMPERATURE, GameProfile
from pcg_plugin.problems.imagegame.worker import Context as EpisodeContext

CONTEXT_KEY = pytest.StashKey["Context"]()


class Context(EpisodeContext):
    """The reference's chat wrappers send no max_tokens and (in the published config) a temperature the repo
    leaves blank: temperature 0 here, max_tokens only when ``--pcg-gameeval-max-tokens`` asks."""

    def profile(self, model: str | None) -> GameProfile:
        return GameProfile(edition=f"gameeval/{REFERENCE}", model=self.key_model(model), temperature=TEMPERATURE,
                           seed=None, client_timeout=None, max_time=math.inf, token_limit=NO_LIMIT_TOKENS,
                           base_url=self.settings.base_url, max_tokens=self.settings.max_tokens)  # fmt: skip


def context(config: pytest.Config) -> Any:
    return config.stash[CONTEXT_KEY]
