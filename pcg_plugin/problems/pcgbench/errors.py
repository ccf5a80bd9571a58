"""The PCG Benchmark problems' own exceptions (kept in one errors module, as the project's rule asks)."""

from __future__ import annotations


class GrammarLoop(ValueError):
    """The sequence keeps choosing a recursive rule: the reference recurses until Python's RecursionError."""


class NoEnemies(ValueError):
    """The level has no enemy, so the benchmark's floating-enemy share is 0/0 (it raises ZeroDivisionError)."""
