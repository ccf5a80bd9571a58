"""The run's leaderboard: the reference's tables per submission (pure functions over the episode records).

- Ask-Guess: Round, ST, EE, RLE, AME, CE (%) as ``askguess/compute.py`` computes them, N = the run's trials
  (so each rate is a share of the episodes each word was played).
- SpyFall: spy and villager win rates (of the games with a winner, exits left out as the reference does),
  mean rounds; with all 11 pairs played, also the reference's cross-pair average (its ``/ 10`` kept).
- TofuKingdom: wins per camp (Prince: Princess named; Queen: Queen named; Spy: anyone else) and per model.
``score`` ranks: the share of wins of the submission's side (its role's side; self-play: Ask-Guess ST, SpyFall
the villagers, TofuKingdom the Prince camp).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pcg_plugin.core.stats.intervals import model_ranks
from pcg_plugin.episode.finish import level_key
from pcg_plugin.episode.matchups import Game as Game_
from pcg_plugin.episode.matchups import summarise
from pcg_plugin.problems.gameeval import aggregate
from pcg_plugin.problems.gameeval.episode import CRASH
from pcg_plugin.problems.gameeval.games import Game
from pcg_plugin.problems.gameeval.records import EpisodeRecord
from pcg_plugin.problems.gameeval.tofukingdom import winning_camp

ASKGUESS_COLUMNS = (
    ("ST", "SuccessfulTrial"),
    ("EE", "EndingError"),
    ("RLE", "RoundLimitError"),
    ("AME", "AnswerMentionedError"),
    ("CE", "ChatError"),
)


def pct(part: float, whole: float) -> float | None:
    return round(100 * part / whole, 2) if whole else None


def askguess_figures(records: Sequence[EpisodeRecord], trials: int) -> dict[str, Any]:
    played = [r.result for r in records if r.result is not None]
    out: dict[str, Any] = {"episodes": len(records)}
    if not played:
        return out | {"Round": None} | {k: None for k, _ in ASKGUESS_COLUMNS}
    try:
        out["Round"] = round(aggregate.askguess(played, n=trials)["avg"]["round"], 2)
    except aggregate.NoFigure:
        out["Round"] = None  # every success at round 0: the reference divides by zero
    words = len({str(r["object"]) for r in played})
    for col, key in ASKGUESS_COLUMNS:
        out[col] = pct(sum(r["error_type"] == key for r in played), words * trials)
    out["score"] = out["ST"]
    return out


def spyfall_figures(records: Sequence[EpisodeRecord], side: str) -> dict[str, Any]:
    counts = {k: sum(r.outcome == k for r in records) for k in ("spy", "villager", "exit", CRASH)}
    won = counts["spy"] + counts["villager"]
    rounds = [r.rounds for r in records if r.outcome in ("spy", "villager") and r.rounds is not None]
    out: dict[str, Any] = {
        "episodes": len(records),
        **counts,
        "Spy win %": pct(counts["spy"], won),
        "Villager win %": pct(counts["villager"], won),
        "Rounds": round(sum(rounds) / len(rounds), 2) if rounds else None,
    }
    try:
        ref = aggregate.spyfall([(r.target.split("&"), r.result) for r in records if r.result is not None])
        out["reference avg"] = {"rate": ref["avg"]["rate"], "round_avg": ref["avg"]["round_avg"]}
    except aggregate.NoFigure:
        out["reference avg"] = None  # some pair has no winner: the reference divides by zero there
    out["score"] = out["Spy win %" if side == "spy" else "Villager win %"]
    return out


def tofukingdom_figures(records: Sequence[EpisodeRecord], side: str) -> dict[str, Any]:
    camps = {"Prince": 0, "Queen": 0, "Spy": 0}
    models: dict[str, int] = {}
    errors: dict[str, int] = {}
    for r in records:
        if r.result and "winner" in r.result:
            camp = winning_camp(r.result["winner"])
            camps[camp] += 1
            model = r.models.get(camp.lower(), "")
            models[model] = models.get(model, 0) + 1
        elif r.outcome is not None:
            errors[r.outcome] = errors.get(r.outcome, 0) + 1
    return {
        "episodes": len(records),
        "camps": camps,
        "wins per model": models,
        "errors": errors,
        "score": pct(camps[side], len(records)),
    }


def side_of(game: Game, role: str | None) -> str:
    if game.rules == "spyfall":
        return role or "villager"
    if game.rules == "tofukingdom":
        return {"prince": "Prince", "queen": "Queen", "spy": "Spy"}[game.prompt_owner(role)] if role else "Prince"
    return ""


def figures(game: Game, records: Sequence[EpisodeRecord], trials: int, role: str | None) -> dict[str, Any]:
    if game.rules == "askguess":
        return askguess_figures(records, trials)
    if game.rules == "spyfall":
        return spyfall_figures(records, side_of(game, role))
    return tofukingdom_figures(records, side_of(game, role))


def rows(
    game: Game,
    records: Iterable[EpisodeRecord],
    trials: int,
    errors: Mapping[str, int],
    submissions: Mapping[str, Mapping[str, Any]],
    levels: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """One row per submission (every collected one, even with no episode) and, in a several-model run, per model
    level of ``levels`` (a model, or a cross-play assignment ``a--b``), best score first. Its role and models
    are its own (``submissions``: name -> the item metadata, its manifest's ``role`` and ``models``), so an entry
    whose every episode errored still shows the role it plays, not self-play. Equal scores share a rank (1, 1, 3),
    listed by name; ``rank_in_model`` ranks the rows of one level among themselves."""
    by_row: dict[tuple[str, str | None], list[EpisodeRecord]] = {
        (n, level): [] for n in submissions for level in (levels or (None,))
    }
    for r in records:
        by_row.setdefault((r.submission, r.model), []).append(r)
    out: list[dict[str, Any]] = []
    for (name, level), recs in by_row.items():
        meta = submissions.get(name, {})
        role = next((r.role for r in recs), meta.get("role"))
        models = next((r.models for r in recs), meta.get("models") or {})
        fig = figures(game, recs, trials, role)
        failed = sum(r.reason is not None for r in recs)
        out.append(
            {
                "submission": name,
                "model": level if level is not None else row_model(models),
                "key": level_key(name, level),
                "role": role,
                "models": models,
                "assignment": next((r.assignment for r in recs if r.assignment), {}),
                "figures": fig,
                "program_failed": failed,
                "errors": errors.get(level_key(name, level), 0),
            }
        )
    rank_rows(out)
    return out


def row_model(models: Mapping[str, str]) -> str | None:
    """The model of a one-model run's row: the one that played, or its roles' models joined with ``,``."""
    return ",".join(dict.fromkeys(models.values())) or None


def rank_rows(out: list[dict[str, Any]]) -> None:
    """Sort ``out`` best first, then rank across every row (``rank``) and within each model (``rank_in_model``)."""
    out.sort(key=lambda row: (-(row["figures"].get("score") or 0), row["submission"], row["model"] or ""))
    ranks, inner = model_ranks(
        range(len(out)), lambda i: out[i]["figures"].get("score") or 0, lambda i: out[i]["model"]
    )
    for i, row in enumerate(out):
        row["rank"], row["rank_in_model"] = ranks[i], inner[i]


def matchup(game: Game, r: EpisodeRecord) -> Game_:
    """An episode as cross-play sees it (``episode.matchups``): SpyFall's and TofuKingdom's winning role (the
    winning camp), Ask-Guess's success (100 or 0, the ST column) and its rounds."""
    group = (r.submission, r.target, r.trial)
    if game.rules == "spyfall":
        winner = r.outcome if r.outcome in ("spy", "villager") else None
        return Game_(group, r.assignment, winner=winner, forfeit=r.forfeit)
    if game.rules == "tofukingdom":
        winner = winning_camp(r.result["winner"]).lower() if r.result and "winner" in r.result else None
        return Game_(group, r.assignment, winner=winner, forfeit=r.forfeit)
    if r.reason is not None or r.outcome is None:
        return Game_(group, r.assignment)
    success = r.outcome == "SuccessfulTrial"
    rounds = float(r.rounds) if success and r.rounds is not None else None
    return Game_(
        group,
        r.assignment,
        score=100.0 if success else 0.0,
        value=1000.0 - (rounds or 0.0) if success else 0.0,  # solved beats not, and fewer rounds beat more
        extra={"rounds": rounds},
    )


def cross_play(game: Game, records: Iterable[EpisodeRecord], models: Sequence[str]) -> dict[str, Any] | None:
    """results.json's ``cross_play`` over every episode with an assignment (None: none)."""
    games = [matchup(game, r) for r in records if r.assignment]
    if not games:
        return None
    score = "wins" if game.adversarial else "ST (% of episodes solved); rounds: mean rounds of the solved"
    return summarise(games, game.play_roles, models, adversarial=game.adversarial, score_name=score)
