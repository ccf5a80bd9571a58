"""The tables of a cross-play run (``--pcg-cross-play``) and its ratings, from every episode's outcome: what
results.json keeps under ``cross_play`` and what the terminal and the report show.

A game hands each episode as a ``Game`` outcome: who played which role (``assignment``), and either the role
that won (adversarial games: SpyFall, TofuKingdom; None: no winner) or the game's main score (cooperative: the
picture game's quality, Ask-Guess's success). Adversarial: wins per model per assignment with a Total row (the
shape of GameEval's TofuKingdom table) and, for two roles, the role x role matrix of the first role's win rate;
cooperative: the role x role matrix of the main score with row and column means. Ratings: ``episode.ratings``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pcg_plugin.episode import ratings as rating_fit
from pcg_plugin.episode.crossplay import level_name

# results.json's ``cross_play`` (the games, with --pcg-cross-play), key by key: what
# scripts/figures/results_schema.py writes into docs/results-schema.md.
CROSS_PLAY_DOCS = {
    "kind": "`adversarial` (sides win against each other: SpyFall, TofuKingdom) or `cooperative` (one score the "
    "roles earn together: the picture game, Ask-Guess)",
    "roles": "the roles models were assigned to, in the order an assignment names them (`a--b`)",
    "models": "the models that played, in `--pcg-model`'s order",
    "score": "what `score` and the matrix's cells hold",
    "assignments[]": "each assignment played: `level` (its item level, `a--b`), `roles` (role -> model), "
    "`episodes`; adversarial: `wins` (model -> games won), `role_wins`, `decided` (games with a winner); "
    "cooperative: `score` (mean main score of its episodes), `scored`, and the game's own means (Ask-Guess `rounds`)",
    "totals": "model -> wins over every assignment (adversarial: games won, summing to `decided`; cooperative: "
    "comparisons won)",
    "decided": "adversarial: the games with a winner (the Total row's sum); null for a cooperative game",
    "matrix": "two roles: `rows` and `columns` (`role`, `models`), `cells[i][j]` (`value`, `episodes`, ...), "
    "`row_means`, `column_means`, `value` (what a cell holds: the first role's win % or the mean score); null "
    "for three camps",
    "ratings[]": "best first: `model`, `rating` (Elo scale), `low`, `high` (its 95 % bootstrap interval), `rank`, "
    "`rank_low`, `rank_high` (the rank's 95 % interval), `wins`, `games` (outcomes won, taken part in)",
    "rating_method": "the library, the fit, its prior (`alpha`), the scale and the bootstrap",
    "choices": "how many outcomes the ratings were fitted on",
}


@dataclass(frozen=True)
class Game:
    """One episode as cross-play sees it. ``group``: the episodes that compare with each other (submission,
    target, trial); ``winner``: the winning role (adversarial; None: no winner); ``score``: the main score
    (cooperative; None: none, an aborted episode); ``value``: what a cooperative comparison ranks by (higher
    better; default the score, none as 0); ``extra``: more figures averaged per cell (Ask-Guess's rounds)."""

    group: Hashable
    assignment: Mapping[str, str]
    winner: str | None = None
    forfeit: str | None = None  # adversarial, no winner: the role whose reply ended the game (it lost to the rest)
    score: float | None = None
    value: float | None = None
    extra: Mapping[str, float | None] = field(default_factory=dict)

    @property
    def compared(self) -> float:
        if self.value is not None:
            return self.value
        return 0.0 if self.score is None else self.score


def _mean(values: Sequence[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return round(sum(got) / len(got), 2) if got else None


def _order(found: Sequence[str], order: Sequence[str]) -> list[str]:
    """``found`` in ``order`` first, then the rest by first appearance."""
    seen = list(dict.fromkeys(found))
    return [x for x in order if x in seen] + [x for x in seen if x not in order]


def choices(games: Sequence[Game], roles: Sequence[str], adversarial: bool) -> dict[Hashable, list[rating_fit.Choice]]:
    """Every group's Luce choices: an adversarial episode's winning model over the other roles' models (a forfeit:
    each other role's model over the forfeiting one's); in a
    cooperative game, of two episodes of one group whose assignments differ in one role only, the model on that
    role in the better episode over the other (equal values tell nothing)."""
    out: dict[Hashable, list[rating_fit.Choice]] = {}
    if adversarial:
        for i, g in enumerate(games):
            if g.winner is not None:
                won = [rating_fit.won(g.assignment[g.winner], [g.assignment[r] for r in roles if r != g.winner])]
            elif g.forfeit is not None:  # each other side's model wins over the side that broke the game
                lost = g.assignment[g.forfeit]
                won = [rating_fit.won(g.assignment[r], [lost]) for r in roles if r != g.forfeit]
            else:
                continue
            kept = list(dict.fromkeys(c for c in won if c is not None))
            if kept:
                out[(g.group, i)] = kept
        return out
    by_group: dict[Hashable, list[Game]] = {}
    for g in games:
        by_group.setdefault(g.group, []).append(g)
    for key, members in by_group.items():
        found: list[rating_fit.Choice] = []
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                differ = [r for r in roles if a.assignment[r] != b.assignment[r]]
                if len(differ) != 1 or a.compared == b.compared:
                    continue
                better, worse = (a, b) if a.compared > b.compared else (b, a)
                found.append(rating_fit.Choice(better.assignment[differ[0]], (worse.assignment[differ[0]],)))
        if found:
            out[key] = found
    return out


def summarise(
    games: Sequence[Game],
    roles: Sequence[str],
    models: Sequence[str],
    *,
    adversarial: bool,
    score_name: str,
    reps: int = rating_fit.RESAMPLES,
) -> dict[str, Any]:
    """results.json's ``cross_play``: ``assignments`` (each: ``level``, ``roles``, ``episodes``, and ``wins`` per
    model or the cooperative ``score``), ``totals`` (model -> wins: episodes won, or in a cooperative game
    comparisons won), ``matrix`` (two roles), ``ratings`` and how they were fitted."""
    models = _order([m for g in games for m in g.assignment.values()], models)
    levels: dict[str, list[Game]] = {}
    for g in games:
        levels.setdefault(level_name(g.assignment, roles), []).append(g)
    assignments = [_assignment(name, eps, roles, adversarial) for name, eps in levels.items()]
    picked = choices(games, roles, adversarial)
    if adversarial:
        totals = {m: sum(a["wins"].get(m, 0) for a in assignments) for m in models}
    else:
        totals = {m: sum(c.winner == m for cs in picked.values() for c in cs) for m in models}
    doc: dict[str, Any] = {
        "kind": "adversarial" if adversarial else "cooperative",
        "roles": list(roles),
        "models": models,
        "score": score_name,
        "assignments": assignments,
        "totals": totals,
        "decided": sum(a.get("decided", 0) for a in assignments) if adversarial else None,
        "matrix": _matrix(levels, roles, models, adversarial) if len(roles) == 2 else None,
        "ratings": rating_fit.ratings(models, picked, reps=reps),
        "rating_method": rating_fit.METHOD,
        "choices": sum(len(cs) for cs in picked.values()),
    }
    return doc


def _assignment(name: str, eps: Sequence[Game], roles: Sequence[str], adversarial: bool) -> dict[str, Any]:
    roles_map = {r: eps[0].assignment[r] for r in roles}
    row: dict[str, Any] = {"level": name, "roles": roles_map, "episodes": len(eps)}
    if adversarial:
        role_wins = {r: sum(g.winner == r for g in eps) for r in roles}
        wins: dict[str, int] = {}
        for r, n in role_wins.items():
            wins[roles_map[r]] = wins.get(roles_map[r], 0) + n
        row.update(wins=wins, role_wins=role_wins, decided=sum(role_wins.values()))
    else:
        row.update(score=_mean([g.score for g in eps]), scored=sum(g.score is not None for g in eps))
        for key in dict.fromkeys(k for g in eps for k in g.extra):
            row[key] = _mean([g.extra.get(key) for g in eps])
    return row


def _cell(eps: Sequence[Game], roles: Sequence[str], adversarial: bool) -> dict[str, Any] | None:
    if not eps:
        return None
    if adversarial:
        decided = [g for g in eps if g.winner is not None]
        first = sum(g.winner == roles[0] for g in decided)
        rate = round(100 * first / len(decided), 2) if decided else None
        return {"value": rate, "episodes": len(eps), "decided": len(decided)}
    cell: dict[str, Any] = {"value": _mean([g.score for g in eps]), "episodes": len(eps)}
    for key in dict.fromkeys(k for g in eps for k in g.extra):
        cell[key] = _mean([g.extra.get(key) for g in eps])
    return cell


def _matrix(
    levels: Mapping[str, Sequence[Game]], roles: Sequence[str], models: Sequence[str], adversarial: bool
) -> dict[str, Any]:
    """Rows: the first role's model; columns: the second's; each cell the first role's win rate in % of the games
    with a winner (adversarial) or the mean main score (cooperative), with the rows' and columns' means."""
    by_pair: dict[tuple[str, str], list[Game]] = {}
    for eps in levels.values():
        for g in eps:
            by_pair.setdefault((g.assignment[roles[0]], g.assignment[roles[1]]), []).append(g)
    rows = _order([a for a, _ in by_pair], models)
    cols = _order([b for _, b in by_pair], models)
    cells = [[_cell(by_pair.get((a, b), []), roles, adversarial) for b in cols] for a in rows]
    return {
        "rows": {"role": roles[0], "models": rows},
        "columns": {"role": roles[1], "models": cols},
        "value": f"{roles[0]} win % (of the games with a winner)" if adversarial else "mean",
        "cells": cells,
        "row_means": [_mean([c["value"] for c in line if c]) for line in cells],
        "column_means": [_mean([c["value"] for line in cells if (c := line[j])]) for j in range(len(cols))],
    }


def lines(doc: Mapping[str, Any]) -> list[str]:
    """The terminal's cross-play tables and ratings."""
    out: list[str] = []
    roles, models = doc["roles"], doc["models"]
    if doc["kind"] == "adversarial":
        width = max([len(" / ".join(roles)), *(len(a["level"]) for a in doc["assignments"]), 5])
        out.append(f"cross-play: wins per model per assignment ({' / '.join(roles)})")
        out.append(f"  {'assignment':<{width}}  " + "  ".join(f"{m:>{max(5, len(m))}}" for m in models))
        for a in doc["assignments"]:
            cells = "  ".join(
                f"{a['wins'].get(m, 0) if m in a['roles'].values() else '-':>{max(5, len(m))}}" for m in models
            )
            out.append(f"  {a['level']:<{width}}  {cells}")
        total = "  ".join(f"{doc['totals'].get(m, 0):>{max(5, len(m))}}" for m in models)
        out.append(f"  {'Total':<{width}}  {total}   ({doc['decided']} games with a winner)")
    matrix = doc.get("matrix")
    if matrix:
        out.extend(matrix_lines(matrix))
    out.append(f"ratings ({doc['rating_method']['library']}, Elo scale, 95% bootstrap intervals over episodes):")
    for r in doc["ratings"]:
        rank = f"{r['rank_low']}" if r["rank_low"] == r["rank_high"] else f"{r['rank_low']}-{r['rank_high']}"
        out.append(
            f"  {r['rank']}. [95% rank {rank}] {r['model']}: {r['rating']:.0f} ({r['low']:.0f} to {r['high']:.0f}), "
            f"{r['wins']} of {r['games']} outcomes won"
        )
    return out


def _num(value: Any) -> str:
    return "-" if value is None else f"{value:g}"


def matrix_lines(matrix: Mapping[str, Any]) -> list[str]:
    rows, cols = matrix["rows"], matrix["columns"]
    width = max([len(rows["role"]), *(len(m) for m in rows["models"]), 4])
    col_w = [max(6, len(m)) for m in cols["models"]]
    out = [f"cross-play matrix: {rows['role']} (rows) x {cols['role']} (columns), {matrix['value']}"]
    out.append(
        f"  {'':<{width}}  " + "  ".join(f"{m:>{w}}" for m, w in zip(cols["models"], col_w, strict=True)) + "    mean"
    )
    for model, line, mean in zip(rows["models"], matrix["cells"], matrix["row_means"], strict=True):
        cells = "  ".join(f"{_num(c['value'] if c else None):>{w}}" for c, w in zip(line, col_w, strict=True))
        out.append(f"  {model:<{width}}  {cells}  {_num(mean):>6}")
    means = "  ".join(f"{_num(m):>{w}}" for m, w in zip(matrix["column_means"], col_w, strict=True))
    out.append(f"  {'mean':<{width}}  {means}")
    return out
