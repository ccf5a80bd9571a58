"""Per-process resources of a GameEval run: the picture game's (one backend per model, the response store, the
rate limiter, a program's installed requirements), with GameEval's sampling profile."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pcg_plugin.devices import threads_per_worker
from pcg_plugin.problems.gameeval import REFERENCE
from pcg_plugin.problems.imagegame.worker import NO_LIMIT_TOKENS, TEMPERATURE, GameProfile
from pcg_plugin.problems.imagegame.worker import Context as EpisodeContext

CONTEXT_KEY = pytest.StashKey["Context"]()


class Context(EpisodeContext):
    """The reference's chat wrappers send no max_tokens and (in the published config) a temperature the repo
    leaves blank: temperature 0 here, max_tokens only when ``--pcg-gameeval-max-tokens`` asks."""

    def backend(self, model: str | None) -> Any:
        """The offline default answers with at most ``max_tokens`` new tokens (the settings cap it for it), so
        an episode of dozens of calls ends in minutes on a CPU; every other backend as the picture game's."""
        s = self.settings
        offline = s.backend == "offline" or (s.backend in (None, "auto") and s.offline_default)
        key = f"backend:{model}"
        if offline and not model and key not in self._cache and s.max_tokens:
            from pcg_plugin.llm.transformers_backend import offline_default

            self._cache[key] = offline_default(device=s.device, max_new_tokens=s.max_tokens,
                                               threads=threads_per_worker(self.workers))  # fmt: skip
        return super().backend(model)

    def profile(self, model: str | None) -> GameProfile:
        return GameProfile(edition=f"gameeval/{REFERENCE}", model=self.key_model(model), temperature=TEMPERATURE,
                           seed=None, client_timeout=None, max_time=math.inf, token_limit=NO_LIMIT_TOKENS,
                           base_url=self.settings.base_url, max_tokens=self.settings.max_tokens)  # fmt: skip


def context(config: pytest.Config) -> Any:
    return config.stash[CONTEXT_KEY]
