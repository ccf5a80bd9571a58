"""The PCG Benchmark problems' own exceptions (kept in one errors module, as the project's rule asks)."""

from __future__ import annotations


class GrammarLoop(ValueError):
    """The sequence keeps choosing a recursive rule: the reference recurses until Python's RecursionError."""


class BenchmarkFails(ValueError):
    """The benchmark's own evaluation raises on this content (its space accepts it): a named zero, not a crash."""


class NoEnemies(ValueError):
    """The level has no enemy, so the benchmark's floating-enemy share is 0/0 (it raises ZeroDivisionError)."""
