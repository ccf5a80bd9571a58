"""Diversity of one (program, letter): mean cosine distance over pairs of trial vectors, as the official script."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def cosine_distance(u: Sequence[float], v: Sequence[float]) -> float:
    """``1 - u·v / sqrt(u·u · v·v)`` computed as scipy.spatial.distance.cosine does (numpy float64 dot products,
    then the same scalar steps and the clip to [0, 2]), so distances agree with the official diversity script to
    the last bit; an exactly rounded sum (``math.fsum``) differs from numpy's dot in the last digits. scipy itself
    is not a dependency.

    A zero vector has no direction: scipy returns nan there; we raise so a bad vector never scores silently.
    """
    if len(u) != len(v):
        raise ValueError(f"cosine distance of vectors of different lengths ({len(u)} and {len(v)})")
    a, b = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    uv, uu, vv = float(np.dot(a, b)), float(np.dot(a, a)), float(np.dot(b, b))
    if uu == 0.0 or vv == 0.0:
        raise ValueError("cosine distance of a zero vector is undefined")
    dist = 1.0 - uv / math.sqrt(uu * vv)
    return min(max(dist, 0.0), 2.0)  # scipy clips to [0, 2] (float noise around identical vectors)


def pair_distances(vectors: Sequence[Sequence[float]]) -> list[tuple[int, int, float]]:
    """Every unordered pair i<j of the available vectors (self-pairs excluded, duplicates kept)."""
    return [
        (i, j, cosine_distance(vectors[i], vectors[j])) for i in range(len(vectors)) for j in range(i + 1, len(vectors))
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
