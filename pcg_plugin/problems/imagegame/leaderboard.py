"""The run's leaderboard: clemeval's figures per submission, overall and per experiment (pure functions).

Every scored episode counts: an aborted one is Played 0 with NaN quality (never a silent 0); an episode
clembench's scorer cannot score (DONE before any turn) is left out of the figures, as a missing scores.json is
left out by clemeval, and counted in ``not_scored``; an item that errored has no episode and is listed apart.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pcg_plugin.core.stats.intervals import tied_ranks
from pcg_plugin.problems.imagegame import scoring
from pcg_plugin.problems.imagegame.records import EpisodeResult

_ABORTED_EPISODE = {"Aborted": 1, "Main Score": math.nan, "Success": 0}


def episode_scores(result: EpisodeResult) -> dict[str, Any] | None:
    """What clemeval reads of an episode; a Giver program that gave no prompt is an aborted episode."""
    if result.episode is not None:
        return result.episode
    return None if result.played is None else dict(_ABORTED_EPISODE)


@dataclass(frozen=True)
class Figures:
    """% Played, Quality Score (mean Main Score of the played episodes) and its std, clemscore, Success rate."""

    episodes: int
    played_pct: float
    quality: float
    quality_std: float
    clemscore: float
    success_pct: float

    @classmethod
    def of(cls, results: Iterable[EpisodeResult]) -> Figures | None:
        scores = [s for s in map(episode_scores, results) if s is not None]
        if not scores:
            return None
        agg = scoring.aggregate(scores)
        success = scoring.pandas_round(100 * sum(s["Success"] for s in scores) / len(scores), 2)
        return cls(
            len(scores), agg["% Played"], agg["Quality Score"], agg["Quality Score (std)"], agg["clemscore"], success
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "episodes": self.episodes,
            "% Played": _plain(self.played_pct),
            "Quality Score": _plain(self.quality),
            "Quality Score (std)": _plain(self.quality_std),
            "clemscore": _plain(self.clemscore),
            "Success (%)": _plain(self.success_pct),
        }


@dataclass(frozen=True)
class Row:
    submission: str
    model: str
    overall: Figures | None
    experiments: dict[str, Figures | None] = field(default_factory=dict)
    aborted: int = 0
    not_scored: int = 0
    errors: int = 0
    rank: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "submission": self.submission,
            "model": self.model,
            "overall": self.overall.to_dict() if self.overall else None,
            "experiments": {k: v.to_dict() if v else None for k, v in self.experiments.items()},
            "aborted": self.aborted,
            "not_scored": self.not_scored,
            "errors": self.errors,
        }


def _plain(x: float) -> float | None:
    """NaN as JSON null (results.json); the figure is undefined, not zero."""
    return None if isinstance(x, float) and math.isnan(x) else x


def _key(row: Row) -> tuple[Any, ...]:
    o = row.overall
    clem = -o.clemscore if o and not math.isnan(o.clemscore) else math.inf
    played = -o.played_pct if o else math.inf
    return (clem, played, row.submission)


def rows(
    results: Sequence[EpisodeResult],
    experiments: Sequence[str],
    errors: dict[str, int] | None = None,
    submissions: Sequence[str] = (),
) -> list[Row]:
    """One row per submission (those with no episode at all included, from ``submissions``), best clemscore
    first (NaN last); equal clemscore and % Played share a rank (1, 1, 3), listed by name."""
    errors = errors or {}
    names = sorted({r.submission for r in results} | set(submissions) | set(errors))
    out = []
    for name in names:
        mine = [r for r in results if r.submission == name]
        model = ",".join(sorted({r.player_model for r in mine})) or "–"
        out.append(
            Row(
                name,
                model,
                Figures.of(mine),
                {e: Figures.of(r for r in mine if r.experiment == e) for e in experiments},
                aborted=sum(r.played is False for r in mine),
                not_scored=sum(r.played is None for r in mine),
                errors=errors.get(name, 0),
            )
        )
    ranked = sorted(out, key=_key)
    ranks = tied_ranks(range(len(ranked)), lambda i: _key(ranked[i])[:2])
    return [Row(**{**r.__dict__, "rank": ranks[i]}) for i, r in enumerate(ranked)]
