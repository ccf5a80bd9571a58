"""Diversity of one (program, letter): mean cosine distance over pairs of trial vectors, as the official script."""

from __future__ import annotations

import math
from collections.abc import Sequence


def cosine_distance(u: Sequence[float], v: Sequence[float]) -> float:
    """``1 - u·v / (‖u‖‖v‖)``, scipy.spatial.distance.cosine's definition (scipy is not a dependency).

    A zero vector has no direction: scipy returns nan there; we raise so a bad vector never scores silently.
    """
    if len(u) != len(v):
        raise ValueError(f"cosine distance of vectors of different lengths ({len(u)} and {len(v)})")
    dot = math.fsum(a * b for a, b in zip(u, v))
    uu = math.fsum(a * a for a in u)
    vv = math.fsum(b * b for b in v)
    if uu == 0.0 or vv == 0.0:
        raise ValueError("cosine distance of a zero vector is undefined")
    dist = 1.0 - dot / math.sqrt(uu * vv)
    # scipy clips to [0, 2] (float noise around identical vectors)
    return min(max(dist, 0.0), 2.0)


def pair_distances(vectors: Sequence[Sequence[float]]) -> list[tuple[int, int, float]]:
    """Every unordered pair i<j of the available vectors (self-pairs excluded, duplicates kept)."""
    return [
        (i, j, cosine_distance(vectors[i], vectors[j]))
        for i in range(len(vectors))
        for j in range(i + 1, len(vectors))
    ]


def denominator(trials: int) -> float:
    """``T(T+1)/2 - T``: fixed by the configured trial count T (10 officially), not by the vectors available."""
    return trials * (trials + 1) / 2 - trials


def diversity(vectors: Sequence[Sequence[float]], trials: int) -> float:
    """Sum of pair distances / (T(T+1)/2 - T); ≤1 vector (or T<2) gives 0, as the official script."""
    if len(vectors) <= 1 or trials < 2:
        return 0.0
    total = 0.0
    for _, _, d in pair_distances(vectors):
        total += d  # the script's plain running sum, in pair order
    return total / denominator(trials)
