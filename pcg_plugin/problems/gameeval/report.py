"""The end of a GameEval run: results.json, the terminal leaderboard and report.html (each episode as a chat)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
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
from pcg_plugin.problems.gameeval import REFERENCE
from pcg_plugin.problems.gameeval.games import Game
from pcg_plugin.problems.gameeval.leaderboard import cross_play, rows
from pcg_plugin.problems.gameeval.records import EpisodeRecord

TEMPLATE = "gameeval_report.html.j2"
SCHEMA = "pytest-pcg/gameeval-results/1"
COLUMNS = {
    "askguess": ("episodes", "Round", "ST", "EE", "RLE", "AME", "CE"),
    "spyfall": ("episodes", "Spy win %", "Villager win %", "Rounds", "spy", "villager", "exit", "crash"),
    "tofukingdom": ("episodes", "camps", "wins per model", "errors", "score"),
}
LEGEND = {
    "askguess": "Round = mean rounds to success per word (never-solved words count as 30), ST/EE/RLE/AME/CE = "
    "SuccessfulTrial, EndingError, RoundLimitError, AnswerMentionedError, ChatError in % of words x "
    "trials, as askguess/compute.py computes them.",
    "spyfall": "Win rates over the games with a winner (exits, where the vote named no living player, are left out "
    "as compute_adversarial.py does); crash = the reference raises on that reply.",
    "tofukingdom": "Wins per camp: Prince (the Princess named), Queen (the Queen named), Spy (anyone else, the Chef "
    "included); errors = the reference's error strings and crashes.",
}


def episode_row(r: EpisodeRecord) -> dict[str, Any]:
    """What results.json keeps per episode (the whole transcript stays in the record and report.html)."""
    return {
        "submission": r.submission,
        "target": r.target,
        "trial": r.trial,
        "outcome": r.outcome,
        "rounds": r.rounds,
        "result": r.result,
        "why": r.why,
        "exception": r.exception,
        "role": r.role,
        "model": r.model,
        "assignment": r.assignment,
        "forfeit": r.forfeit,
        "models": r.models,
        "setup": r.setup,
        "reason": r.reason,
        "message": r.message,
        "usage": r.usage,
        "calls": sum(e["kind"] == "call" for e in r.events),
    }


def finish_run(game: Game, run: Mapping[str, Any], collected: Any, problem: Any = None) -> tuple[dict[str, Any], Path]:
    results: list[EpisodeRecord] = list(collected.records.values())
    settings = run.get("settings", {})
    trials = int(settings.get("trials", 1))
    models = list(split_models(settings.get("model")))
    order = list(
        crossplay.levels(
            game.play_roles,
            models,
            None,
            cross_play=bool(settings.get("cross_play")),
            distinct=len(game.play_roles) > 2,
        )
    )
    levels = run_levels(collected, order, models)
    board = rows(
        game,
        results,
        trials,
        errors_by_submission(collected),
        {m["name"]: m for m in collected.items.values()},
        levels,
    )
    rank = {level: i for i, level in enumerate(levels)}
    ordered = sorted(results, key=lambda r: (r.submission, rank.get(r.model or "", -1), r.target, r.trial))
    doc = {
        "schema": SCHEMA,
        "problem": f"gameeval/{game.name}",
        "reference": REFERENCE,
        "game": {"name": game.name, "title": game.title},
        "run": {k: run[k] for k in ("id", "run_dir", "started") if k in run},
        "settings": {**settings, **SAMPLING},
        "models": models,
        "leaderboard": board,
        "cross_play": cross_play(game, ordered, models) if settings.get("cross_play") else None,
        "episodes": [episode_row(r) for r in ordered],
        "errors": dict(sorted(collected.errors.items())),
        "folder_errors": dict(sorted(collected.folder_problems.items())),
        "provenance": provenance.collect(REPO_ROOT),
    }
    return write_run(run, doc, problem, lambda doc: render(game, doc, ordered))


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items()) or "–"
    return f"{value:g}" if isinstance(value, float) else str(value)


def chat_lines(r: EpisodeRecord) -> list[dict[str, Any]]:
    """The episode as a chat: host and public lines as said, each model call as its reply."""
    out = []
    for e in r.events:
        if e["kind"] == "said":
            out.append({**e, "to": ", ".join(e["to"])})
        elif e["kind"] == "call":
            out.append({"kind": "call", "role": e["role"], "stage": e["stage"], "reply": e["reply"]})
    return out


def render(game: Game, doc: Mapping[str, Any], results: list[EpisodeRecord]) -> str:
    import jinja2
    from markupsafe import Markup

    from pcg_plugin.episode import charts

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["fmt"] = _fmt
    episodes = [{"r": r, "chat": chat_lines(r)} for r in results]
    template = env.from_string(template_source(TEMPLATE))
    return str(
        template.render(
            doc=doc,
            episodes=episodes,
            columns=COLUMNS[game.rules],
            legend=LEGEND[game.rules],
            banner=unofficial(doc.get("settings", {})),
            several=len(doc.get("models") or ()) > 1,
            cross_play=Markup(charts.section(doc.get("cross_play"))),
        )
    )


def summary_lines(
    game: Game, doc: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
) -> list[str]:
    return episode_summary(doc, run_dir, report, error, partial(_table, game))


def _table(game: Game, doc: Mapping[str, Any]) -> list[str]:
    columns = COLUMNS[game.rules]
    banner = unofficial(doc.get("settings", {}))
    several = len(doc.get("models") or ()) > 1
    head = "rank submission model role" if several else "rank submission role"
    lines = ([banner] if banner else []) + [f"GameEval {game.title}: {head} | " + "  ".join(columns)]
    for row in doc["leaderboard"]:
        figs = "  ".join(_fmt(row["figures"].get(c)) for c in columns)
        extra = "".join(f", {row[k]} {k.replace('_', ' ')}" for k in ("program_failed", "errors") if row[k])
        model = f" {row['model']} (#{row['rank_in_model']} of its model)" if several else ""
        lines.append(
            f"{row['rank']}. [95% rank {rank_text(row.get('rank_interval'))}] {row['submission']}{model} "
            f"{row['role'] or 'self-play'} | {figs}{extra}"
        )
    if doc.get("cross_play"):
        lines.extend(cross_play_lines(doc["cross_play"]))
    crashes = [e for e in doc["episodes"] if e["outcome"] == "crash" or e["reason"]]
    for e in crashes[:10]:
        lines.append(
            f"  {e['submission']} {e['target']} trial {e['trial']}: {e['outcome'] or e['reason']}: "
            f"{e['why'] or e['message']}"
        )
    return lines
