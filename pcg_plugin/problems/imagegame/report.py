"""The end of a picture-game run: results.json, the terminal leaderboard and report.html (Jinja2)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pcg_plugin._util import provenance
from pcg_plugin._util.paths import REPO_ROOT, template_source
from pcg_plugin.core.contract.banner import unofficial
from pcg_plugin.core.stats.intervals import rank_text
from pcg_plugin.episode import crossplay
from pcg_plugin.episode.context import SAMPLING
from pcg_plugin.episode.finish import errors_by_submission, run_levels, write_run
from pcg_plugin.episode.matchups import lines as cross_play_lines
from pcg_plugin.episode.summary import summary_lines as episode_summary
from pcg_plugin.llm.options import split_models
from pcg_plugin.problems.imagegame import PINNED_COMMIT, PINNED_VERSION, grid, rules
from pcg_plugin.problems.imagegame.item import ROLES
from pcg_plugin.problems.imagegame.leaderboard import Row, cross_play, rows
from pcg_plugin.problems.imagegame.outputs import episode_rows
from pcg_plugin.problems.imagegame.records import CONSEQUENCE, EpisodeResult

TEMPLATE = "imagegame_report.html.j2"
SCHEMA = "pytest-pcg/imagegame-results/1"


def results_document(
    run: Mapping[str, Any], results: list[EpisodeResult], board: list[Row], collected: Any
) -> dict[str, Any]:
    settings = run.get("settings", {})
    models = list(split_models(settings.get("model")))
    return {
        "schema": SCHEMA,
        "problem": "imagegame",
        "clembench": {"version": PINNED_VERSION, "commit": PINNED_COMMIT},
        "run": {k: run[k] for k in ("id", "run_dir", "started") if k in run},
        "settings": {**settings, **SAMPLING},
        "models": models,
        "leaderboard": [r.to_dict() for r in board],
        "cross_play": cross_play(results, ROLES, models) if settings.get("cross_play") else None,
        "episodes": episode_rows(results),
        "errors": dict(sorted(collected.errors.items())),
        "folder_errors": dict(sorted(collected.folder_problems.items())),
        "provenance": provenance.collect(REPO_ROOT),
    }


def finish_run(run: Mapping[str, Any], collected: Any, problem: Any = None) -> tuple[dict[str, Any], Path]:
    results = list(collected.records.values())
    names = [m["name"] for m in collected.items.values()]
    settings = run.get("settings", {})
    models = split_models(settings.get("model"))
    order = crossplay.levels(ROLES, models, None, cross_play=bool(settings.get("cross_play")))
    board = rows(
        results, rules.EXPERIMENTS, errors_by_submission(collected), names, run_levels(collected, list(order), models)
    )
    return write_run(run, results_document(run, results, board, collected), problem, lambda doc: render(doc, results))


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:g}" if isinstance(value, float) else str(value)


MAX_ZERO_LINES = 20  # the terminal lists this many episodes that were not played; results.json has them all


def zero_line(episode: Mapping[str, Any]) -> str:
    """One episode that was not played, naming submission, instance and trial, why (the message's first line: a
    program's traceback is in results.json and report.html) and what that does to the figures."""
    first = (episode["message"] or "").split("\n", 1)[0]
    return (
        f"{episode['submission']}{' ' + episode['level'] if episode.get('level') else ''} instance "
        f"{episode['instance']} trial {episode['trial']}: {episode['reason']}: "
        f"{first} -> {CONSEQUENCE[episode['reason']]}"
    )


def summary_lines(
    doc: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
) -> list[str]:
    return episode_summary(doc, run_dir, report, error, _table)


def aligned(head: Sequence[str], rows: Sequence[Sequence[str]], left: Sequence[bool]) -> list[str]:
    """A table whose columns line up: each as wide as its widest cell, text to the left, numbers to the right."""
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def one(cells: Sequence[str]) -> str:
        return "  ".join(
            f"{c:<{w}}" if is_text else f"{c:>{w}}" for c, w, is_text in zip(cells, widths, left, strict=True)
        ).rstrip()

    return [one(head), *(one(r) for r in rows)]


def _table(doc: Mapping[str, Any]) -> list[str]:
    banner = unofficial(doc.get("settings", {}))
    head = ["rank", "95% rank", "submission", "model", "episodes", "%Played", "Quality", "clemscore", "Success%"]
    head += [f"{e.split('_')[0]} %P/Q" for e in rules.EXPERIMENTS] + [""]
    body = []
    for row in doc["leaderboard"]:
        o = row["overall"] or {}
        per = [row["experiments"].get(e) or {} for e in rules.EXPERIMENTS]
        extra = ", ".join(f"{row[k]} {k.replace('_', ' ')}" for k in ("aborted", "not_scored", "errors") if row[k])
        body.append(
            [
                f"{row['rank']}.",
                rank_text(row.get("rank_interval")),
                str(row["submission"]),
                str(row["model"]),
                str(o.get("episodes", 0)),
                _fmt(o.get("% Played")),
                _fmt(o.get("Quality Score")),
                _fmt(o.get("clemscore")),
                _fmt(o.get("Success (%)")),
                *(f"{_fmt(p.get('% Played'))}/{_fmt(p.get('Quality Score'))}" for p in per),
                extra,
            ]
        )
    left = [False, False, True, True] + [False] * (len(head) - 5) + [True]
    lines = ([banner] if banner else []) + aligned(head, body, left)
    if doc.get("cross_play"):
        lines.extend(cross_play_lines(doc["cross_play"]))
    zeros = [e for e in doc["episodes"] if e["reason"]]
    lines.extend(f"  {zero_line(e)}" for e in zeros[:MAX_ZERO_LINES])
    if len(zeros) > MAX_ZERO_LINES:
        lines.append(f"  ... and {len(zeros) - MAX_ZERO_LINES} more episode(s) with a reason, in results.json")
    return lines


def breakable(name: Any) -> Any:
    """A model name that may wrap only after its separators (``provider/model-name:tag``), never inside a word:
    the escaped text with ``<wbr>`` after each ``:``, ``/``, ``,`` and ``_`` (a hyphen breaks by itself)."""
    import re

    from markupsafe import Markup, escape

    return Markup(re.sub(r"([:/,_])", r"\1<wbr>", str(escape(str(name)))))


def _template() -> Any:
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["fmt"] = _fmt
    env.filters["breakable"] = breakable
    return env.from_string(template_source(TEMPLATE))


def _cells(text: str) -> list[list[str]]:
    return grid.rows(text) if text.strip() else []


def render(doc: Mapping[str, Any], results: list[EpisodeResult]) -> str:
    """Every episode: the target grid beside the grid drawn after each turn, with that turn's command and scores;
    with cross-play, its tables, heatmap and ratings after the leaderboard."""
    from markupsafe import Markup

    from pcg_plugin.episode import charts

    episodes = []
    for r in sorted(results, key=lambda r: (r.submission, r.experiment, r.game_id, r.trial)):
        turn_scores = (r.scores or {}).get("turn scores", {})
        scores = list(turn_scores.values())
        turns = [
            {
                "command": r.commands[i] if i < len(r.commands) else "",
                "cells": _cells(drawn),
                "scores": scores[i] if i < len(scores) else {},
            }
            for i, drawn in enumerate(r.drawn)
        ]
        episodes.append({"r": r, "target": _cells(r.target), "turns": turns, "episode": r.episode or {}})
    return str(
        _template().render(
            doc=doc,
            episodes=episodes,
            experiments=rules.EXPERIMENTS,
            consequence=CONSEQUENCE,
            banner=unofficial(doc.get("settings", {})),
            cross_play=Markup(charts.section(doc.get("cross_play"))),
        )
    )
