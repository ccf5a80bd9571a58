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

from pcg_plugin.core.stats.intervals import model_ranks
from pcg_plugin.episode.finish import level_key
from pcg_plugin.episode.matchups import Game, summarise
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
    level: str | None = None  # the model level of a several-model run (a model, or a cross-play pair a--b)
    rank_in_model: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "rank_in_model": self.rank_in_model or self.rank,
            "submission": self.submission,
            "model": self.model,
            "key": level_key(self.submission, self.level),
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
    levels: Sequence[str] = (),
) -> list[Row]:
    """One row per submission (those with no episode at all included, from ``submissions``) and, in a
    several-model run, per model level of ``levels``; best clemscore first (NaN last); equal clemscore and % Played
    share a rank (1, 1, 3), listed by name; ``rank_in_model`` ranks one level's rows among themselves."""
    errors = errors or {}
    names = sorted({r.submission for r in results} | set(submissions) | ({n for n in errors if not levels}))
    keys = dict.fromkeys((n, level) for n in names for level in (levels or (None,)))
    keys.update(dict.fromkeys((r.submission, r.model) for r in results))
    out = []
    for name, level in keys:
        mine = [r for r in results if r.submission == name and r.model == level]
        model = level or ",".join(sorted({r.player_model for r in mine})) or "–"
        out.append(
            Row(
                name,
                model,
                Figures.of(mine),
                {e: Figures.of(r for r in mine if r.experiment == e) for e in experiments},
                aborted=sum(r.played is False for r in mine),
                not_scored=sum(r.played is None for r in mine),
                errors=errors.get(level_key(name, level), 0),
                level=level,
            )
        )
    ranked = sorted(out, key=_key)
    ranks, inner = model_ranks(range(len(ranked)), lambda i: _key(ranked[i])[:2], lambda i: ranked[i].level)
    return [Row(**{**r.__dict__, "rank": ranks[i], "rank_in_model": inner[i]}) for i, r in enumerate(ranked)]


def matchup(r: EpisodeResult) -> Game:
    """An episode as cross-play sees it (``episode.matchups``): its Main Score (clembench's quality of the pair;
    none for an aborted episode, which a comparison counts as 0)."""
    score = r.main_score
    return Game((r.submission, r.instance, r.trial), r.assignment, score=None if math.isnan(score) else score)


def cross_play(results: Sequence[EpisodeResult], roles: Sequence[str], models: Sequence[str]) -> dict[str, Any] | None:
    """results.json's ``cross_play`` over every episode with an assignment (None: none)."""
    games = [matchup(r) for r in results if r.assignment and r.played is not None]
    if not games:
        return None
    score = "Quality Score (mean Main Score of the played episodes, 0-100)"
    return summarise(games, roles, models, adversarial=False, score_name=score)
