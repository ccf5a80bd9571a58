"""The PCG Benchmark's part of the harness's read-back (``core.results.runs``): its trials as flat rows, and the run
re-scored on resampled trials.

A trial's score is 1 when it passed (feasible AND controlled AND unique), else 0; an instance scores the mean
of its trials, a submission the mean of its instances (``scoring.py``). Uniqueness is measured once, on the
run's own trials (a trial drawn twice by the bootstrap is not made a duplicate of itself), as Science Birds'
bootstrap holds diversity at its measured value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pcg_plugin.core.records import trials


def _passed(t: Mapping[str, Any]) -> float:
    return 1.0 if t.get("feasible") and t.get("controlled") and t.get("unique") else 0.0


def zero_cause(row: Mapping[str, Any]) -> str | None:
    """Why a trial row without an official reason scored 0: what it was not of feasible, controlled, unique."""
    missed = [f"not {key}" for key in ("feasible", "controlled", "unique") if row.get(key) is False]
    return ", ".join(missed) or None


def _model(doc: Mapping[str, Any]) -> str | None:
    s = doc.get("settings", {})
    return s.get("model_used") or s.get("model")


def trial_rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for sub in doc.get("submissions", []):
        for inst in sub.get("instances", []):
            for t in inst.get("trials", []):
                seconds = sum(float(v) for v in (t.get("timings") or {}).values()) if t.get("timings") else None
                out.append(
                    trials.row(
                        problem=doc["problem"],
                        submission=sub["name"],
                        model=sub.get("model") or _model(doc),
                        target=inst["id"],
                        trial=t["trial"],
                        score=_passed(t),
                        reason=t.get("reason"),
                        seconds=seconds,
                        usage=t.get("usage"),
                        own={
                            "quality": t.get("quality"),
                            "controllability": t.get("controllability"),
                            "feasible": t.get("feasible"),
                            "controlled": t.get("controlled"),
                            "unique": t.get("unique"),
                            "message": t.get("message"),
                        },
                    )
                )
    return out


def _level(doc: Mapping[str, Any], sub: Mapping[str, Any]) -> str | None:
    """A row's model level: its model in a several-model run, else None (a one-model run's rows have none)."""
    return sub.get("model") if len(doc.get("models") or ()) > 1 else None


def scores(doc: Mapping[str, Any], pick: Any) -> dict[str, float]:
    """Each row's score (keyed as the row: ``key``, the submission with its model in a several-model run) on the
    picked trials; each model's trials of an instance are resampled as a group of their own."""
    out = {}
    for sub in doc.get("submissions", []):
        per = []
        for inst in sub.get("instances", []):
            ts = inst.get("trials", [])
            chosen = [ts[i] for i in pick((sub["name"], _level(doc, sub), inst["id"]), len(ts))]
            per.append(sum(map(_passed, chosen)) / len(chosen) if chosen else 0.0)
        out[sub.get("key", sub["name"])] = sum(per) / len(per) if per else 0.0
    return out
