"""Per-process resources of a GameEval run: the episode problems' context, with GameEval's name and its offline
default capped at ``max_tokens``."""

from __future__ import annotations

from typing import Any

from pcg_plugin._util.devices import threads_per_worker
from pcg_plugin.episode.context import CONTEXT_KEY, EpisodeContext, context
from pcg_plugin.problems.gameeval import REFERENCE


class Context(EpisodeContext):
    """The reference's chat wrappers send no max_tokens and (in the published config) a temperature the repo
    leaves blank: temperature 0 here, max_tokens only when ``--pcg-gameeval-max-tokens`` asks."""

    edition = f"gameeval/{REFERENCE}"

    def backend(self, model: str | None) -> Any:
        """The offline default answers with at most ``max_tokens`` new tokens (the settings cap it for it), so
        an episode of dozens of calls ends in minutes on a CPU; every other backend as the picture game's."""
        s = self.settings
        offline = s.backend == "offline" or (s.backend in (None, "auto") and s.offline_default)
        key = f"backend:{model}"
        with self._lock:
            if offline and not model and key not in self._cache and s.max_tokens:
                from pcg_plugin.llm.transformers_backend import offline_default

                self._cache[key] = offline_default(
                    device=s.device, max_new_tokens=s.max_tokens, threads=threads_per_worker(self.workers)
                )
            return super().backend(model)


__all__ = ["CONTEXT_KEY", "Context", "context"]
