"""A rating per model from the games models played against (or with) each other, with bootstrap intervals.

Every episode's outcome becomes Luce choices (``Choice``): the winning side's model chosen over the losing sides'
models (SpyFall's spy against the villagers: a Bradley-Terry comparison; TofuKingdom's three camps: the winning
camp's model chosen among the three, Plackett-Luce's first choice), or, in a cooperative game, the better of two
episodes on the same target that differ in one role's model only. The strengths are fitted by choix
(``choix.ilsr_top1``, the maximum-likelihood estimate of Luce's model, with a small prior ``ALPHA`` that keeps a model
that never won finite) and shown on the Elo scale Chatbot Arena uses (400 per factor 10 of odds, the mean at
1000). Intervals: ``RESAMPLES`` bootstrap draws over the outcome groups (an episode; in a cooperative game the
episodes of one target and trial, which compare only with each other), each refitted; a model's 95 % interval of
its rating and of its rank (shared ranks) over the draws.

choix because its fit is a batch maximum-likelihood estimate (the order of the games does not matter, unlike an
online update such as Elo or Weng-Lin) and the same one function covers two sides and several camps; it needs only
numpy and scipy.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pcg_plugin.core.stats import intervals

ALPHA = 0.01  # choix's regularisation: a weak prior; without it a model that never won has no finite rating
ELO_SCALE = 400 / math.log(10)  # Elo points per unit of log-strength (Chatbot Arena's scale, base 10, 400)
ELO_MEAN = 1000.0
RESAMPLES = intervals.RESAMPLES


@dataclass(frozen=True)
class Choice:
    """One Luce choice: ``winner`` chosen over ``losers`` (models; never itself among them)."""

    winner: str
    losers: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"winner": self.winner, "losers": list(self.losers)}


def won(winner: str, losers: Sequence[str]) -> Choice | None:
    """The choice of an episode's winner over the other sides' models; None when it tells nothing (every side
    played by the winner's model: a self-pair)."""
    others = tuple(dict.fromkeys(m for m in losers if m != winner))
    return Choice(winner, others) if others else None


def fit(models: Sequence[str], choices: Sequence[Choice]) -> dict[str, float]:
    """choix's fit of ``choices`` as Elo-scale ratings of ``models`` (every model present, a model without a game
    at the prior's centre)."""
    import choix

    if len(models) < 2:
        return dict.fromkeys(models, ELO_MEAN)
    index = {m: i for i, m in enumerate(models)}
    data = [(index[c.winner], tuple(index[m] for m in c.losers)) for c in choices]
    params = choix.ilsr_top1(len(models), data, alpha=ALPHA) if data else [0.0] * len(models)
    mean = sum(params) / len(params)
    return {m: ELO_MEAN + ELO_SCALE * (float(params[i]) - mean) for m, i in index.items()}


def ratings(
    models: Sequence[str],
    groups: Mapping[Hashable, Sequence[Choice]],
    *,
    reps: int = RESAMPLES,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Each model's rating (the fit of every choice), its 95 % bootstrap interval and rank interval over ``reps``
    draws of the ``groups`` (each group's choices travel together), best first: ``model``, ``rating``, ``low``,
    ``high``, ``rank``, ``rank_low``, ``rank_high``, ``wins`` (choices won), ``games`` (choices taken part in)."""
    keys = sorted(groups, key=repr)
    every = [c for k in keys for c in groups[k]]
    point = fit(models, every)
    values: dict[str, list[float]] = {m: [] for m in models}
    ranks: dict[str, list[int]] = {m: [] for m in models}
    for rep in range(reps if len(models) > 1 and every else 0):
        pick = intervals.drawn(seed, rep)
        drawn = [c for i in pick("groups", len(keys)) for c in groups[keys[i]]]
        got = fit(models, drawn)
        for m, r in intervals.shared_ranks(got).items():
            values[m].append(got[m])
            ranks[m].append(r)
    order = intervals.shared_ranks(point)
    out = []
    for m in sorted(models, key=lambda m: (order[m], models.index(m))):
        low, high = intervals.interval(values[m]) if values[m] else (point[m], point[m])
        rank_low, rank_high = intervals.interval(ranks[m]) if ranks[m] else (order[m], order[m])
        out.append(
            {
                "model": m,
                "rating": round(point[m], 1),
                "low": round(low, 1),
                "high": round(high, 1),
                "rank": order[m],
                "rank_low": int(rank_low),
                "rank_high": int(rank_high),
                "wins": sum(c.winner == m for c in every),
                "games": sum(c.winner == m or m in c.losers for c in every),
            }
        )
    return out


METHOD = {
    "library": "choix",
    "fit": "choix.ilsr_top1 (Luce's choice model: Bradley-Terry for two sides, Plackett-Luce's first choice for camps)",
    "alpha": ALPHA,
    "scale": "Elo: 400 points per factor 10 of odds, mean 1000",
    "intervals": f"95 % bootstrap over outcome groups, {RESAMPLES} draws",
}
