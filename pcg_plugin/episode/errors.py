"""The episode machinery's own exception (kept in one errors module, as the project's rule asks)."""

from __future__ import annotations


class Crash(Exception):
    """Where the reference raises: the episode ends with outcome ``crash``, its calls kept."""

    def __init__(self, exception: str, why: str) -> None:
        super().__init__(why)
        self.exception = exception
        self.why = why
