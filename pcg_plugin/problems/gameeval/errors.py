"""GameEval's own exceptions (kept in one errors module, as the project's rule asks)."""

from __future__ import annotations


class ScriptError(ValueError):
    """A script line that cannot be replayed (bad setup, too few or too many replies)."""


class NoFigure(ValueError):
    """Where the reference divides by zero: no figure, and the message says which group had nothing."""


class GaveUp(Exception):
    """Three calls without a JSON reply: the reference's ``None``."""
