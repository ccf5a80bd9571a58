"""The picture game's part of the harness's read-back (``core.results.runs``): its episodes as flat trial rows (score =
the episode's Main Score, NaN as null), and the run re-scored on resampled episodes by clemeval's figures
(``leaderboard.Figures``: clemscore ranks)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from pcg_plugin.core.records import trials
from pcg_plugin.episode.finish import level_key
from pcg_plugin.problems.imagegame.leaderboard import Figures
from pcg_plugin.problems.imagegame.records import NOT_SCORED


def _episode(e: Mapping[str, Any]) -> Any:
    """What ``Figures.of`` reads of an episode (``episode``, ``played``), from its results.json row."""
    ep = e.get("episode scores")
    if ep is not None:
        ep = {k: (math.nan if v is None else v) for k, v in ep.items()}
    played = None if e.get("reason") == NOT_SCORED else e.get("reason") is None
    return SimpleNamespace(episode=ep, played=played)


def _main(e: Mapping[str, Any]) -> float | None:
    v = (e.get("episode scores") or {}).get("Main Score")
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def trial_rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        trials.row(
            problem="imagegame",
            submission=e["submission"],
            model=e.get("level") or e.get("model") or None,
            target=e["instance"],
            trial=e["trial"],
            score=_main(e),
            reason=e.get("reason"),
            usage=e.get("usage"),
            own={
                "outcome": e.get("outcome"),
                "turns": e.get("turns"),
                "message": e.get("message"),
                "nodeid": e.get("nodeid"),
            },
        )
        for e in doc.get("episodes", [])
    ]


def scores(doc: Mapping[str, Any], pick: Any) -> dict[str, float]:
    """Each leaderboard row's clemscore (keyed as the row: ``finish.level_key``) on the picked episodes."""
    board = doc.get("leaderboard", [])
    groups: dict[str, dict[str, list[Mapping[str, Any]]]] = {r.get("key", r["submission"]): {} for r in board}
    for e in sorted(doc.get("episodes", []), key=lambda e: (e["submission"], e["instance"], e["trial"])):
        groups.setdefault(level_key(e["submission"], e.get("level")), {}).setdefault(e["instance"], []).append(e)
    out = {}
    for name, per in groups.items():
        chosen = [eps[i] for inst, eps in per.items() for i in pick((name, None, inst), len(eps))]
        fig = Figures.of(_episode(e) for e in chosen)
        out[name] = fig.clemscore if fig is not None and not math.isnan(fig.clemscore) else 0.0
    return out
