"""GameEval's part of the harness's read-back (``core.results.runs``): its episodes as flat trial rows, and the run
re-scored on resampled episodes by the leaderboard's own figures (``leaderboard.figures``: ``score`` ranks).

A trial's score is that one episode's ``score`` figure over 100: 1 when the submission's side won (Ask-Guess: the
word was guessed), 0 when it lost, null when the episode has no winner (a SpyFall exit)."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from pcg_plugin.core.records import trials
from pcg_plugin.episode.finish import level_key
from pcg_plugin.problems.gameeval.games import Game
from pcg_plugin.problems.gameeval.leaderboard import figures


def _record(e: Mapping[str, Any]) -> Any:
    """What ``leaderboard.figures`` reads of an episode, from its results.json row."""
    return SimpleNamespace(
        result=e.get("result"),
        outcome=e.get("outcome"),
        rounds=e.get("rounds"),
        target=e["target"],
        models=e.get("models") or {},
        role=e.get("role"),
        reason=e.get("reason"),
    )


def _score(game: Game, records: list[Any], trials_n: int, role: str | None) -> float | None:
    value = figures(game, records, trials_n, role).get("score")
    return None if value is None else value / 100


def _model(e: Mapping[str, Any]) -> str | None:
    """The episode's model: its level in a several-model run, else the models of its roles."""
    return e.get("model") or ",".join(sorted(set((e.get("models") or {}).values()))) or None


def zero_cause(row: Mapping[str, Any]) -> str | None:
    """Why an episode row scored 0 for the submission's side: how it ended (``RoundLimitError: no gameover after
    30 question(s)``); None where the row does not say."""
    outcome, why = row.get("outcome"), row.get("why")
    return ": ".join(str(x) for x in (outcome, why) if x) or None


def trial_rows(game: Game, doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        trials.row(
            problem=doc["problem"],
            submission=e["submission"],
            model=_model(e),
            target=e["target"],
            trial=e["trial"],
            score=_score(game, [_record(e)], 1, e.get("role")),
            reason=e.get("reason"),
            usage={**(e.get("usage") or {}), "calls": e.get("calls")},
            own={
                "outcome": e.get("outcome"),
                "rounds": e.get("rounds"),
                "role": e.get("role"),
                "why": e.get("why"),
                "message": e.get("message"),
            },
        )
        for e in doc.get("episodes", [])
    ]


def scores(game: Game, doc: Mapping[str, Any], pick: Any) -> dict[str, float]:
    """Each leaderboard row's score (keyed as the row: ``finish.level_key``) on the picked episodes."""
    trials_n = int(doc.get("settings", {}).get("trials", 1))
    board = doc.get("leaderboard", [])
    groups: dict[str, dict[str, list[Mapping[str, Any]]]] = {r.get("key", r["submission"]): {} for r in board}
    roles = {r.get("key", r["submission"]): r.get("role") for r in board}
    for e in sorted(doc.get("episodes", []), key=lambda e: (e["submission"], e["target"], e["trial"])):
        groups.setdefault(level_key(e["submission"], e.get("model")), {}).setdefault(e["target"], []).append(e)
    out = {}
    for name, per in groups.items():
        chosen = [_record(eps[i]) for target, eps in per.items() for i in pick((name, None, target), len(eps))]
        out[name] = _score(game, chosen, trials_n, roles.get(name)) or 0.0
    return out
