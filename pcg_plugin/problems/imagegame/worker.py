"""Per-process resources of a picture-game run: the episode problems' context under the picture game's name."""

from __future__ import annotations

from pcg_plugin.episode.context import CONTEXT_KEY, NO_LIMIT_TOKENS, TEMPERATURE, EpisodeContext, GameProfile, context


class Context(EpisodeContext):
    edition = "imagegame"


__all__ = ["CONTEXT_KEY", "NO_LIMIT_TOKENS", "TEMPERATURE", "Context", "GameProfile", "context"]
