"""Comparing two finished runs of one problem: submissions paired by name and model (never by position), each
pair's scores, their difference B - A and its paired-bootstrap interval (the same trial indices drawn in both
runs, ``core.intervals.paired_differences``), a flag where the interval leaves out 0."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pcg_plugin.core import intervals
from pcg_plugin.core.runs import FinishedRun
from pcg_plugin.errors import ResultsError


@dataclass(frozen=True)
class Pair:
    submission: str
    model: str | None
    a: float
    b: float
    low: float | None
    high: float | None

    @property
    def difference(self) -> float:
        return self.b - self.a

    @property
    def flagged(self) -> bool:
        """The interval leaves out 0: a change beyond the trials' noise."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "submission": self.submission,
            "model": self.model,
            "a": self.a,
            "b": self.b,
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
        }


@dataclass(frozen=True)
class Comparison:
    problem: str
    pairs: tuple[Pair, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    resamples: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "pairs": [p.to_dict() for p in self.pairs],
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
        }


def models(rows: Sequence[Mapping[str, Any]]) -> dict[str, str | None]:
    """Each submission's model as its trial rows name it (several joined with ``,``; None: not recorded)."""
    seen: dict[str, set[str]] = {}
    for r in rows:
        seen.setdefault(r["submission"], set()).update([r["model"]] if r.get("model") else [])
    return {name: ",".join(sorted(ms)) or None for name, ms in seen.items()}


def shape(rows: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, ...], int]:
    """(targets, trials per target) of a run, from its trial rows."""
    targets = tuple(sorted({str(r["target"]) for r in rows}))
    trials = max((int(r["trial"]) for r in rows), default=0)
    return targets, trials


def refusals(
    a: FinishedRun, b: FinishedRun, rows_a: Sequence[Mapping[str, Any]], rows_b: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Why two runs' scores are not comparable (empty: they are)."""
    if a.name != b.name:
        return [f"different problems: A is {a.name}, B is {b.name}"]
    (ta, na), (tb, nb) = shape(rows_a), shape(rows_b)
    out = []
    if ta != tb:
        out.append(
            f"different targets: only in A {sorted(set(ta) - set(tb)) or '-'}, only in B "
            f"{sorted(set(tb) - set(ta)) or '-'}"
        )
    if na != nb:
        out.append(f"different trial counts: A ran {na} trials per target, B {nb}")
    return out


def compare(
    a: FinishedRun,
    b: FinishedRun,
    *,
    reps: int = intervals.RESAMPLES,
    seed: int = 0,
    confidence: float = intervals.CONFIDENCE,
) -> Comparison:
    """The comparison of B against A; a ResultsError saying which setting differs when they are not comparable."""
    rows_a, rows_b = a.rows(), b.rows()
    why = refusals(a, b, rows_a, rows_b)
    if why:
        raise ResultsError("the runs are not comparable: " + "; ".join(why))
    ma, mb = models(rows_a), models(rows_b)
    sa = a.problem.scores(a.doc, intervals.observed)
    sb = b.problem.scores(b.doc, intervals.observed)
    keys_a = {(n, ma.get(n)) for n in sa}
    keys_b = {(n, mb.get(n)) for n in sb}
    both = sorted(keys_a & keys_b, key=lambda k: (k[0], k[1] or ""))
    found = intervals.paired_differences(
        a.scorer(), b.scorer(), {n: n for n, _ in both}, reps=reps, seed=seed, confidence=confidence
    )
    pairs = tuple(Pair(n, m, float(sa[n]), float(sb[n]), *(found.get(n) or (None, None))) for n, m in both)

    def label(k: tuple[str, str | None]) -> str:
        return k[0] if k[1] is None else f"{k[0]} ({k[1]})"

    return Comparison(
        a.name, pairs, tuple(sorted(map(label, keys_a - keys_b))), tuple(sorted(map(label, keys_b - keys_a))), reps
    )


def table(c: Comparison, places: int = 4) -> list[str]:
    """The terminal table: one line per pair, DROP/RISE where the interval leaves out 0; then the unpaired."""
    rows = [("submission", "model", "A", "B", "B-A", "95% interval", "")]
    for p in c.pairs:
        lo_hi = "-" if p.low is None else f"[{p.low:+.{places}f}, {p.high:+.{places}f}]"
        flag = ("DROP" if p.difference < 0 else "RISE") if p.flagged else ""
        rows.append(
            (
                p.submission,
                p.model or "-",
                f"{p.a:.{places}f}",
                f"{p.b:.{places}f}",
                f"{p.difference:+.{places}f}",
                lo_hi,
                flag,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        f"pcg compare: {c.problem}, B - A per submission and model, paired bootstrap over trials "
        f"({c.resamples} resamples)"
    ]
    lines += [
        "  ".join(
            cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]
    lines += [f"only in A: {name}" for name in c.only_a] + [f"only in B: {name}" for name in c.only_b]
    return lines
