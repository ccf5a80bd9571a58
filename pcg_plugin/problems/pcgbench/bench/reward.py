"""The benchmark's trapezoid ("range") reward, the one shaping function every quality term uses."""

from __future__ import annotations

_EPS = 1e-8


def range_reward(
    value: float, lo: float, plat_low: float, plat_high: float | None = None, hi: float | None = None
) -> float:
    """1 on [plat_low, plat_high], 0 at or beyond lo / hi, linear in between.

    The benchmark's pitfall is kept on purpose: with three value arguments (no `plat_high`) the plateau is the
    single point `plat_low` and `hi = plat_low`, so anything above it scores 0. With four, `hi` defaults to
    `plat_high`. The +1e-8 in the denominators is the benchmark's and shifts values in the 9th decimal.
    """
    if plat_high is None:
        plat_high = hi = plat_low
    elif hi is None:
        hi = plat_high
    if plat_low <= value <= plat_high:
        return 1.0
    if value <= lo or value >= hi:
        return 0.0
    if value < plat_low:
        return min(max((value - lo) / (plat_low - lo + _EPS), 0.0), 1.0)
    return min(max((hi - value) / (hi - plat_high + _EPS), 0.0), 1.0)
