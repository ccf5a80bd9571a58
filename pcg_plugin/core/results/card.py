"""A model card: one model across every problem it was run on (a finished run folder per problem, or a suite's,
read problem by problem), side by side:
per submission its score with a 95 % bootstrap interval, rank and rank interval, the reasons its trials scored
0, tokens, cost (or "unknown price"), and each run's provenance. Markdown or one self-contained HTML page."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pcg_plugin._util.numbers import PLACES, fixed, places_of
from pcg_plugin._util.prices import cost_text
from pcg_plugin.core.contract.banner import unofficial
from pcg_plugin.core.results.runs import FinishedRun, summary_rows
from pcg_plugin.core.stats import intervals


@dataclass(frozen=True)
class Line:
    """One submission of one run."""

    problem: str
    submission: str
    model: str
    score: float | None
    low: float | None
    high: float | None
    rank: int | None
    rank_interval: tuple[int, int] | None
    trials: int  # the trials this submission ran (every target, every trial of it)
    zeros: dict[str, int]
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    run: str
    folder: str = ""  # the run folder as it was given (``pcg card a b``: ``a``), the card's run column
    places: int = PLACES  # the decimals its problem shows scores with


@dataclass(frozen=True)
class Card:
    models: tuple[str, ...]
    lines: tuple[Line, ...]
    provenance: tuple[dict[str, Any], ...]
    banners: tuple[str, ...]


def _submissions(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Each row's summary as its results document lists it (name, rank, rank_interval; ``key`` and ``model``:
    one row per submission x model in a several-model run, keyed ``team @ model``)."""
    listed = doc["leaderboard"] if "leaderboard" in doc else doc.get("submissions", [])
    return [
        {"key": key, "name": name, "model": model if key != name else None, **_ranks(row)}
        for (key, name, model), row in zip(summary_rows(doc), listed, strict=True)
    ]


def _ranks(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"rank": row.get("rank"), "rank_interval": row.get("rank_interval")}


def _cost(rows: Sequence[Mapping[str, Any]]) -> float | None:
    """The sum of the trials' costs; None (unknown) when any paid trial has no known price."""
    total = 0.0
    for r in rows:
        if r.get("cost_usd") is None:
            if (r.get("prompt_tokens") or 0) + (r.get("completion_tokens") or 0) > 0:
                return None
        else:
            total += float(r["cost_usd"])
    return total


def _provenance(run: FinishedRun) -> dict[str, Any]:
    doc = run.doc
    settings = doc.get("settings", {})
    prov = doc.get("provenance", {}) or {}
    return {
        "problem": run.name,
        "run": (doc.get("run") or {}).get("id"),
        "folder": str(run.path.parent),
        "started": (doc.get("run") or {}).get("started"),
        "backend": settings.get("backend"),
        "trials": settings.get("trials"),
        "git_sha": prov.get("git_sha"),
        "schema": doc.get("schema"),
    }


def runs_in(paths: Sequence[Path | str]) -> list[FinishedRun]:
    """Every problem's run in these run folders: a suite's problem by problem (``core.results.suite.members``), a single
    run as itself."""
    from pcg_plugin.core.results import runs, suite

    return [runs.load(member) for path in paths for _, member in suite.members(path)]


def card(runs: Sequence[FinishedRun], *, reps: int = intervals.RESAMPLES, seed: int = 0) -> Card:
    lines, models = [], []
    caveats: list[str] = []
    for run in runs:
        rows = run.rows()
        scores = run.problem.scores(run.doc, intervals.observed)
        found = intervals.score_intervals(run.scorer(), reps=reps, seed=seed) if scores else {}
        subs = _submissions(run.doc)
        caveats += [f"{run.name}: {w}" for w in run.problem.caveats(run.doc)]
        for sub in subs:
            name, key, level = sub["name"], sub["key"], sub["model"]
            mine = [r for r in rows if r["submission"] == name and (level is None or r.get("model") == level)]
            model = level or ",".join(sorted({r["model"] for r in mine if r.get("model")})) or "-"
            models += [m for m in model.split(",") if m not in models and m != "-"]
            lo, hi = found.get(key, (None, None))
            ri = sub.get("rank_interval")
            if not ri and len(subs) == 1 and sub.get("rank") is not None:
                ri = ALONE  # one submission: its rank cannot move, and "-" read as a missing number
            lines.append(
                Line(
                    run.name,
                    name,
                    model,
                    scores.get(key),
                    lo,
                    hi,
                    sub.get("rank"),
                    tuple(ri) if ri else None,
                    len(mine),
                    dict(Counter(r["reason"] for r in mine if r.get("reason"))),
                    sum(r.get("prompt_tokens") or 0 for r in mine),
                    sum(r.get("completion_tokens") or 0 for r in mine),
                    _cost(mine),
                    str((run.doc.get("run") or {}).get("id")),
                    str(run.path.parent),
                    places_of(run.problem),
                )
            )
    banners = tuple(dict.fromkeys([*(b for r in runs if (b := unofficial(r.doc.get("settings", {})))), *caveats]))
    return Card(tuple(models), tuple(lines), tuple(_provenance(r) for r in runs), banners)


ALONE = (0, 0)  # the rank interval of a run's only submission
HEAD = (
    "problem",
    "run",
    "submission",
    "model",
    "score",
    "95% interval",
    "rank",
    "95% rank",
    "trials run",
    "zero reasons",
    "tokens (prompt + completion)",
    "cost",
)


def _cells(line: Line) -> tuple[str, ...]:
    def num(v: float | None) -> str:
        return fixed(v, line.places)

    return (
        line.problem,
        line.folder or line.run,
        line.submission,
        line.model,
        num(line.score),
        "-" if line.low is None else f"[{num(line.low)}, {num(line.high)}]",
        "-" if line.rank is None else str(line.rank),
        "only submission" if line.rank_interval == ALONE else intervals.rank_text(line.rank_interval),
        str(line.trials),
        ", ".join(f"{k} {v}" for k, v in sorted(line.zeros.items())) or "none",
        f"{line.prompt_tokens} + {line.completion_tokens}",
        cost_text(line.cost_usd),
    )


def title(c: Card) -> str:
    return f"Model card: {', '.join(c.models) or 'unnamed model'}"


def markdown(c: Card) -> str:
    out = [f"# {title(c)}", ""]
    out += [f"> **{b}**" for b in c.banners] + ([""] if c.banners else [])
    out += ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    out += ["| " + " | ".join(_cells(line)) + " |" for line in c.lines]
    out += [
        "",
        "Score: each problem's own (Science Birds: normalized score; PCG Benchmark: mean over instances of "
        "feasible, controlled and unique trials; picture game: clemscore; GameEval: the submission side's wins). "
        "Intervals: 95 % bootstrap over trials within each target, re-scored by the problem's scorer. "
        "Trials run: the submission's trials over every target; trials per target: the run's setting. "
        "Run: the run folder the line comes from (its id in the provenance).",
        "",
        "## Provenance",
        "",
        "| problem | run | started | backend | trials per target | git SHA | folder |",
        "|---|---|---|---|---|---|---|",
    ]
    out += [
        f"| {p['problem']} | {p['run']} | {p['started']} | {p['backend']} | {p['trials']} | {p['git_sha']} | "
        f"{p['folder']} |"
        for p in c.provenance
    ]
    return "\n".join(out) + "\n"


STYLE = (
    "body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:16px 24px;color:#1b1f24}"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}"
    "th,td{border:1px solid #d0d7de;padding:4px 6px;text-align:left}td.n,td.nw{white-space:nowrap}"
    "th{background:#f6f8fa}td.n{text-align:right}.warn{background:#fff4ce;border:1px solid #d4a72c;"
    "border-radius:6px;padding:8px 12px;margin:10px 0;font-weight:600}.meta{color:#57606a}"
)


# the cells' classes by column: the run's folder on one line, numbers to the right on one line
CLASS = {1: " class=nw", **dict.fromkeys((4, 5, 6, 7, 8, 10, 11), " class=n")}


def html_page(c: Card) -> str:
    e = html.escape
    rows = "".join(
        "<tr>" + "".join(f"<td{CLASS.get(i, '')}>{e(v)}</td>" for i, v in enumerate(_cells(line))) + "</tr>\n"
        for line in c.lines
    )
    prov = "".join(
        "<tr>"
        + "".join(
            f"<td>{e(str(p[k]))}</td>" for k in ("problem", "run", "started", "backend", "trials", "git_sha", "folder")
        )
        + "</tr>\n"
        for p in c.provenance
    )
    banners = "".join(f'<div class="warn">⚠ {e(b)}</div>' for b in c.banners)
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{e(title(c))}</title>"
        f"<style>{STYLE}</style></head><body><h1>{e(title(c))}</h1>{banners}"
        f"<table><tr>{''.join(f'<th>{e(h)}</th>' for h in HEAD)}</tr>\n{rows}</table>"
        "<p class=meta>Score: each problem's own (Science Birds: normalized score; PCG Benchmark: mean over "
        "instances of feasible, controlled and unique trials; picture game: clemscore; GameEval: the submission "
        "side's wins). Intervals: 95 % bootstrap over trials within each target, re-scored by the problem's "
        "scorer. Trials run: the submission's trials over every target; trials per target: the run's setting. "
        "Run: the run folder the line comes from (its id in the provenance).</p>"
        "<h2>Provenance</h2><table><tr><th>problem</th><th>run</th><th>started</th><th>backend</th>"
        f"<th>trials per target</th><th>git SHA</th><th>folder</th></tr>\n{prov}</table></body></html>\n"
    )
