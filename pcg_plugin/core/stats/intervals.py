"""Bootstrap over trials, for every problem: rank intervals, paired differences between two runs, and the
drop test of the baseline gate (pure functions).

A problem re-scores a run with its own scorer through ``scores(results, pick)``: for each group of trials that is
resampled together (a submission's trials of one target, with several models one model's), it asks
``pick(key, n)`` which of its ``n`` trials to take, in order, and returns ``{submission: score}`` computed on the
picked trials exactly as the run was scored. ``observed`` picks every trial once (the run's own scores);
``drawn(seed, rep)`` draws ``n`` with replacement, the same indices for the same key in every run (so two runs
with the same submissions, targets and trial counts are resampled in pairs).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

Pick = Callable[[Hashable, int], Sequence[int]]
Scorer = Callable[[Pick], Mapping[str, float]]
K = TypeVar("K")

RESAMPLES = 200
CONFIDENCE = 0.95


def observed(key: Hashable, n: int) -> Sequence[int]:
    """Every trial once, in order: the run as it was scored."""
    return range(n)


def drawn(seed: int, rep: int) -> Pick:
    """Bootstrap draw ``rep``: for each key, ``n`` indices with replacement, from a generator seeded by (seed,
    rep, key) alone, so the draw of one group does not depend on which other groups a run holds."""

    def pick(key: Hashable, n: int) -> Sequence[int]:
        digest = hashlib.sha256(repr((seed, rep, key)).encode()).digest()
        rnd = random.Random(int.from_bytes(digest[:8], "big"))
        return [rnd.randrange(n) for _ in range(n)] if n else []

    return pick


def tied_ranks(ordered: Sequence[K], key: Callable[[K], Any]) -> dict[K, int]:
    """Ranks of an already ordered list: neighbours with the same ``key`` share the rank of the first of them
    (1, 1, 3), the way every problem ranks ties (an edition with an official tie-break breaks them first)."""
    out: dict[K, int] = {}
    for n, item in enumerate(ordered, 1):
        prev = ordered[n - 2] if n > 1 else None
        out[item] = out[prev] if prev is not None and key(prev) == key(item) else n
    return out


def model_ranks(
    ordered: Sequence[K], key: Callable[[K], Any], level: Callable[[K], Hashable]
) -> tuple[dict[K, int], dict[K, int]]:
    """The ranks of a several-model run's rows, already ordered best first: across every row (``rank``) and
    among the rows of each model level (``rank_in_model``), equal ``key`` sharing a rank as ``tied_ranks``. Every
    problem ranks its submission x model rows here, so that they all rank them alike."""
    within: dict[K, int] = {}
    for lv in dict.fromkeys(level(k) for k in ordered):
        within.update(tied_ranks([k for k in ordered if level(k) == lv], key))
    return tied_ranks(ordered, key), within


def level_key(name: str, level: str | None) -> str:
    """A row's name: the submission, and in a several-model run its model level (``team @ a--b``), which the
    rank intervals, the errors column and the trial rows key it by."""
    return name if level is None else f"{name} @ {level}"


def shared_ranks(scores: Mapping[K, float | None]) -> dict[K, int]:
    """Highest score first; equal scores share a rank (1, 1, 3); no score (None, NaN) ranks last."""

    def value(k: K) -> float:
        v = scores[k]
        return float("-inf") if v is None or v != v else float(v)

    return tied_ranks(sorted(scores, key=lambda k: -value(k)), value)


def interval(values: Sequence[Any], confidence: float = CONFIDENCE) -> tuple[Any, Any]:
    """The central ``confidence`` interval of a bootstrap sample by order statistics: lower index
    floor(a·(n-1)), upper round((1-a)·(n-1)), a = (1-confidence)/2."""
    if not values:
        raise ValueError("no values to take an interval of")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    ordered = sorted(values)
    alpha = round((1 - confidence) / 2, 12)  # 0.025, not 0.025000000000000022
    n = len(ordered) - 1
    return ordered[int(alpha * n)], ordered[round((1 - alpha) * n)]


def score_draws(scorer: Scorer, *, reps: int = RESAMPLES, seed: int = 0) -> Iterable[Mapping[str, float]]:
    for rep in range(reps):
        yield scorer(drawn(seed, rep))


def rank_intervals(
    scorer: Scorer, *, reps: int = RESAMPLES, seed: int = 0, confidence: float = CONFIDENCE
) -> dict[str, tuple[int, int]]:
    """Each submission's ``confidence`` interval of its rank over ``reps`` re-scored draws (shared ranks)."""
    ranks: dict[str, list[int]] = {}
    for scores in score_draws(scorer, reps=reps, seed=seed):
        for name, r in shared_ranks(scores).items():
            ranks.setdefault(name, []).append(r)
    return {name: interval(rs, confidence) for name, rs in ranks.items()}


def score_intervals(
    scorer: Scorer, *, reps: int = RESAMPLES, seed: int = 0, confidence: float = CONFIDENCE
) -> dict[str, tuple[float, float]]:
    """Each submission's ``confidence`` interval of its score over ``reps`` draws (the noise-aware gate)."""
    values: dict[str, list[float]] = {}
    for scores in score_draws(scorer, reps=reps, seed=seed):
        for name, v in scores.items():
            if v is not None and v == v:
                values.setdefault(name, []).append(float(v))
    return {name: interval(vs, confidence) for name, vs in values.items()}


def paired_differences(
    scorer_a: Scorer,
    scorer_b: Scorer,
    pairs: Mapping[str, str],
    *,
    reps: int = RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> dict[str, tuple[float, float]]:
    """For each ``{name in A: name in B}``, the ``confidence`` interval of B - A over draws that take the same
    trial indices in both runs (a paired bootstrap)."""
    diffs: dict[str, list[float]] = {a: [] for a in pairs}
    for rep in range(reps):
        pick = drawn(seed, rep)
        sa, sb = scorer_a(pick), scorer_b(pick)
        for a, b in pairs.items():
            va, vb = sa.get(a), sb.get(b)
            if va is not None and vb is not None and va == va and vb == vb:
                diffs[a].append(float(vb) - float(va))
    return {a: interval(d, confidence) for a, d in diffs.items() if d}


def rank_text(rank_interval: Sequence[int] | None) -> str:
    """How a table shows a submission's ``rank_interval``: ``1-2``, or ``-`` where none was computed."""
    if not rank_interval:
        return "-"
    lo, hi = rank_interval
    return f"{lo}" if lo == hi else f"{lo}-{hi}"
