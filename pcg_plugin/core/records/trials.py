"""The one trial record every problem fills, and the flat file of them in the run folder (``trials.jsonl``).

A row is the twelve columns of ``COLUMNS`` (named and ordered as ``pcg export`` writes them) and then the
problem's own values. A problem says what its trials are through its hook ``trial_rows(results)`` (read from its
results document, so a run folder of any age can be exported); the core fills the cost from the price table
where the problem did not, and writes and reads the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.prices import Prices

FILE = "trials.jsonl"
# name -> what it holds (docs/results-schema.md is generated from this: scripts/figures/results_schema.py)
COLUMN_DOCS = dict(  # noqa: C406 - pairs, not a dict literal: a "reason" key here names a column, not a zero reason
    [
        ("problem", "the problem's name (`science-birds`, `pcgbench/binary-v0`, `imagegame`, `gameeval/spyfall`)"),
        ("submission", "the submission's name"),
        ("model", "the model that answered (several joined by `,`; empty when not recorded)"),
        ("target", "what the trial was asked for: a letter, an instance, a word, a word pair, a role draw"),
        ("trial", "the trial's number, from 1"),
        (
            "score",
            "the problem's own per-trial score, full precision (Science Birds: the official trial score, the letter's "
            "weight x stability x similarity; empty: the trial has none, e.g. an aborted episode's quality); the "
            "report's trial table and `pcg show` (its `--json`) give the same number under the same name",
        ),
        ("reason", "why the trial scored 0 (empty: it did not; `error`: the item errored)"),
        ("seconds", "the trial's measured time where the problem records it"),
        ("calls", "model calls the trial made"),
        ("prompt_tokens", "prompt tokens of those calls"),
        ("completion_tokens", "completion tokens of those calls"),
        ("cost_usd", "their cost at the price table (empty: unknown price)"),
    ]
)
COLUMNS = tuple(COLUMN_DOCS)


def row(
    *,
    problem: str,
    submission: str,
    model: str | None,
    target: str,
    trial: int,
    score: float | None,
    reason: str | None,
    seconds: float | None = None,
    usage: Mapping[str, Any] | None = None,
    own: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One trial: the twelve columns in order (``usage``: calls, prompt/completion tokens, cost_usd as the
    problem recorded them), then ``own`` (a name that clashes with a column is prefixed ``own_``)."""
    usage = usage or {}
    out: dict[str, Any] = {
        "problem": problem,
        "submission": submission,
        "model": model,
        "target": str(target),
        "trial": int(trial),
        "score": None if score is None else float(score),
        "reason": reason,
        "seconds": None if seconds is None else round(float(seconds), 4),
        "calls": usage.get("calls"),
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "cost_usd": usage.get("cost_usd"),
    }
    for key, value in (own or {}).items():
        out[f"own_{key}" if key in COLUMNS else key] = value
    return out


def priced(rows: Iterable[Mapping[str, Any]], prices: Prices) -> list[dict[str, Any]]:
    """The rows with ``cost_usd`` filled from the price table where the problem gave none (None: unknown price)."""
    out = []
    for r in rows:
        r = dict(r)
        if r.get("cost_usd") is None and r.get("model"):
            r["cost_usd"] = prices.cost(r["model"], r.get("prompt_tokens") or 0, r.get("completion_tokens") or 0)
        out.append(r)
    return out


def write(run_dir: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    return atomic_write(Path(run_dir) / FILE, text)


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The twelve columns, then every other key in the order first seen."""
    out = list(COLUMNS)
    for r in rows:
        out += [k for k in r if k not in out]
    return out
