"""Comparing two finished runs of one problem (A, the reference, and B): submissions paired by name and model
(or by name alone, or by model alone: ``PAIRINGS``; never by position), each pair's scores, their difference
B - A and its paired-bootstrap interval (the same trial indices drawn in both runs,
``core.stats.intervals.paired_differences``), a flag where the interval leaves out 0; the same per target on the mean
trial score; and the trials whose outcome changed (``change``). A suite run is compared problem by problem
(``compare_paths``)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pcg_plugin._util.numbers import fixed, interval, places_of
from pcg_plugin.core.results.like_for_like import settings_differences, settings_of, shape
from pcg_plugin.core.results.runs import FinishedRun, summary_rows
from pcg_plugin.core.stats import intervals
from pcg_plugin.errors import ResultsError

PAIRINGS = ("submission+model", "submission", "model")
SCORE = "score"  # what the comparison compares where the problem names no ``score_name``


@dataclass(frozen=True)
class Pair:
    submission: str
    model: str | None
    a: float
    b: float
    low: float | None
    high: float | None
    submission_b: str | None = None  # B's submission where the pairing matched another name (pairing by model)
    model_b: str | None = None  # B's model where it differs (pairing by submission)
    targets: tuple[TargetPair, ...] = ()
    why_a: str | None = None  # why the submission scores 0 in A (None: it does not, or nothing says why)
    why_b: str | None = None

    @property
    def difference(self) -> float:
        return self.b - self.a

    @property
    def flagged(self) -> bool:
        """The interval leaves out 0: a change beyond the trials' noise."""
        return flag(self.difference, self.low, self.high) != ""

    @property
    def label(self) -> str:
        """How the pair is named: ``sub (model)``, with B's name or model after ``->`` where they differ."""
        a = self.submission if self.model is None else f"{self.submission} ({self.model})"
        if self.submission_b is None and self.model_b is None:
            return a
        b_sub = self.submission_b or self.submission
        b_model = self.model_b if self.model_b is not None else self.model
        return f"{a} -> {b_sub if b_model is None else f'{b_sub} ({b_model})'}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "submission": self.submission,
            "model": self.model,
            "submission_b": self.submission_b or self.submission,
            "model_b": self.model_b if self.model_b is not None else self.model,
            "a": self.a,
            "b": self.b,
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
            "flag": flag(self.difference, self.low, self.high) or None,
            "why_a": self.why_a,
            "why_b": self.why_b,
            "targets": [t.to_dict() for t in self.targets],
        }

    def why(self) -> list[str]:
        """Why the pair scores 0, run by run: ``A: diversity 0 in every letter (...)``."""
        return [f"{run}: {why}" for run, why in (("A", self.why_a), ("B", self.why_b)) if why]


@dataclass(frozen=True)
class TargetPair:
    """One target of a pair: the mean trial score in A and in B, B - A with its paired-bootstrap interval."""

    target: str
    a: float | None
    b: float | None
    low: float | None
    high: float | None

    @property
    def difference(self) -> float | None:
        return None if self.a is None or self.b is None else self.b - self.a

    def to_dict(self) -> dict[str, Any]:
        d = self.difference
        return {
            "target": self.target,
            "a": self.a,
            "b": self.b,
            "difference": d,
            "low": self.low,
            "high": self.high,
            "flag": (flag(d, self.low, self.high) or None) if d is not None else None,
        }


@dataclass(frozen=True)
class TrialChange:
    """A trial whose outcome changed between A and B: its two rows (None: the trial is in one run only)."""

    pair: str
    target: str
    trial: int
    kind: str
    a: Mapping[str, Any] | None
    b: Mapping[str, Any] | None
    noise: float

    def to_dict(self) -> dict[str, Any]:
        def brief(r: Mapping[str, Any] | None) -> dict[str, Any] | None:
            return None if r is None else {"score": r.get("score"), "reason": r.get("reason")}

        return {
            "pair": self.pair,
            "target": self.target,
            "trial": self.trial,
            "change": self.kind,
            "a": brief(self.a),
            "b": brief(self.b),
            "noise": self.noise,
        }


@dataclass(frozen=True)
class Comparison:
    problem: str
    pairs: tuple[Pair, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    resamples: int
    score: str = SCORE
    run_a: str = "A"
    run_b: str = "B"
    pair_by: str = PAIRINGS[0]
    changes: tuple[TrialChange, ...] = ()
    target_label: str = "target"
    unlike: tuple[str, ...] = ()  # the like-for-like settings A and B differ in (the gate would refuse them)
    places: int = 4  # the decimals the problem publishes its scores with
    runs: tuple[FinishedRun | None, FinishedRun | None] = field(default=(None, None), compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "score": self.score,
            "a": self.run_a,
            "b": self.run_b,
            "pair_by": self.pair_by,
            "pairs": [p.to_dict() for p in self.pairs],
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "changed_trials": [c.to_dict() for c in self.changes],
            "unlike": list(self.unlike),
        }


def flag(difference: float, low: float | None, high: float | None) -> str:
    """``DROP`` or ``RISE`` where the interval leaves out 0, else empty (its bounds are shown with
    ``_util.numbers.fixed``, which never writes a value that is not 0 as 0, so a flagged interval never reads as
    one that holds 0)."""
    if low is None or high is None or not (low > 0 or high < 0):
        return ""
    return "DROP" if difference < 0 else "RISE"


def models(rows: Sequence[Mapping[str, Any]]) -> dict[str, str | None]:
    """Each submission's model as its trial rows name it (several joined with ``,``; None: not recorded)."""
    seen: dict[str, set[str]] = {}
    for r in rows:
        seen.setdefault(r["submission"], set()).update([r["model"]] if r.get("model") else [])
    return {name: ",".join(sorted(ms)) or None for name, ms in seen.items()}


def refusals(
    a: FinishedRun, b: FinishedRun, rows_a: Sequence[Mapping[str, Any]], rows_b: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Why two runs' scores are not comparable (empty: they are). Another model is no reason: comparing two
    models is what ``--pair submission`` is for (the gate, which must compare like with like, refuses it)."""
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


def identities(
    doc: Mapping[str, Any], scores: Mapping[str, float], rows: Sequence[Mapping[str, Any]]
) -> dict[str, tuple[str, str | None]]:
    """Each scored row (``scores``' key) as (submission, model): a several-model run's row (its ``key``,
    ``team @ model``) by the submission and model it names, so that rows of different models stay apart; any
    other by its name and the model its trial rows name (``models``)."""
    named = {row_key: (name, model) for row_key, name, model in summary_rows(doc) if row_key != name}
    by_rows = models(rows)
    return {k: named.get(k) or (k, by_rows.get(k)) for k in scores}


def pair_key(pair_by: str, name: str, model: str | None) -> Hashable:
    """What pairs a submission of A with one of B under ``pair_by`` (one of ``PAIRINGS``)."""
    if pair_by == "submission":
        return name
    if pair_by == "model":
        return model
    return (name, model)


def _keyed(
    pair_by: str, subs: Mapping[str, tuple[str, str | None]], run: str
) -> dict[Hashable, tuple[str, str | None, str]]:
    """Each row by what pairs it: (submission, model, the row's score key)."""
    out: dict[Hashable, tuple[str, str | None, str]] = {}
    for row_key, (name, model) in sorted(subs.items(), key=lambda kv: (kv[1][0], kv[1][1] or "")):
        key = pair_key(pair_by, name, model)
        if key in out:
            why = (
                f"two submissions answered by {model or 'an unrecorded model'} ({out[key][0]}, {name}); "
                "pair by submission+model"
                if pair_by == "model"
                else f"{name} answered by several models; pair by submission+model"
            )
            raise ResultsError(f"--pair {pair_by}: run {run} has {why}")
        out[key] = (name, model, row_key)
    return out


def _label(name: str, model: str | None) -> str:
    return name if model is None else f"{name} ({model})"


def noise(values: Sequence[float]) -> float:
    """The spread of one submission's trial scores at one target: their population standard deviation."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def why_zero(run: FinishedRun, name: str, rows: Sequence[Mapping[str, Any]], key: str | None = None) -> str | None:
    """Why submission ``name`` (its row ``key`` in a several-model run) scores 0 in ``run``: the problem's own
    word where it has one (``zero_cause(results, key)``: Science Birds names diversity), else what its trials
    scored 0 for (every trial with its reason counted, or the trials' own causes, ``trial_zero_cause(row)``:
    stability, similarity)."""
    own = getattr(run.problem, "zero_cause", None)
    said = own(run.doc, key or name) if own is not None else None
    if said:
        return str(said)
    mine = [r for r in rows if r["submission"] == name]
    causes = Counter(c for r in mine if (c := trial_cause(run.problem, r)))
    if not mine or sum(causes.values()) < len(mine):
        return None
    return "every trial scored 0: " + "; ".join(f"{k} ({n})" for k, n in sorted(causes.items()))


def trial_cause(problem: Any, row: Mapping[str, Any] | None) -> str | None:
    """Why a trial scored 0: its official reason, or, for a trial that scored exactly 0 without one, the
    problem's word for it (``trial_zero_cause(row)``, e.g. Science Birds' ``stability 0``); None otherwise."""
    if row is None:
        return None
    if _zero(row.get("reason")):
        return str(row["reason"])
    own = getattr(problem, "trial_zero_cause", None)
    if row.get("score") == 0 and own is not None:
        return own(row)
    return None


def _zero(reason: Any) -> bool:
    return reason not in (None, "")


def change(
    a_score: float | None, a_reason: str | None, b_score: float | None, b_reason: str | None, noise: float
) -> str | None:
    """How a trial's outcome changed from A to B (None: it did not, or its score moved within ``noise``):
    ``scored -> zero``, ``zero -> scored``, ``other zero reason``, ``score fell`` or ``score rose`` (pure)."""
    za, zb = _zero(a_reason), _zero(b_reason)
    if za != zb:
        return "scored -> zero" if zb else "zero -> scored"
    if za:
        return "other zero reason" if a_reason != b_reason else None
    if a_score is None or b_score is None:
        return None if (a_score is None) == (b_score is None) else ("score fell" if b_score is None else "score rose")
    moved = b_score - a_score
    if abs(moved) <= noise + 1e-12:
        return None
    return "score fell" if moved < 0 else "score rose"


def _trials(
    rows: Sequence[Mapping[str, Any]], name: str, model: str | None = None
) -> dict[tuple[str, int, str | None], Mapping[str, Any]]:
    """One row's trials: its submission's (``model``: of that model only, a several-model run's row)."""
    return {
        (str(r["target"]), int(r["trial"]), r.get("model")): r
        for r in rows
        if r["submission"] == name and (model is None or r.get("model") == model)
    }


def _score(r: Mapping[str, Any] | None) -> float | None:
    v = None if r is None else r.get("score")
    return None if v is None else float(v)


def trial_changes(
    label: str,
    rows_a: Mapping[tuple[str, int, str | None], Mapping[str, Any]],
    rows_b: Mapping[tuple[str, int, str | None], Mapping[str, Any]],
) -> list[TrialChange]:
    """The changed trials of one pair (rows keyed by target, trial and model, B's model already A's)."""
    spread: dict[str, float] = {}
    for rows in (rows_a, rows_b):
        by_target: dict[str, list[float]] = {}
        for (target, _, _), r in rows.items():
            s = _score(r)
            if s is not None and not _zero(r.get("reason")):
                by_target.setdefault(target, []).append(s)
        for target, values in by_target.items():
            spread[target] = max(spread.get(target, 0.0), noise(values))
    out = []
    for key in sorted(set(rows_a) | set(rows_b), key=lambda k: (k[0], k[1], k[2] or "")):
        ra, rb = rows_a.get(key), rows_b.get(key)
        target, trial, _ = key
        n = spread.get(target, 0.0)
        if ra is None or rb is None:
            kind: str | None = "only in B" if ra is None else "only in A"
        else:
            kind = change(_score(ra), ra.get("reason"), _score(rb), rb.get("reason"), n)
        if kind is not None:
            out.append(TrialChange(label, target, trial, kind, ra, rb, n))
    return out


def target_pairs(
    rows_a: Mapping[tuple[str, int, str | None], Mapping[str, Any]],
    rows_b: Mapping[tuple[str, int, str | None], Mapping[str, Any]],
    name: str,
    *,
    reps: int,
    seed: int,
    confidence: float,
) -> tuple[TargetPair, ...]:
    """Per target, the mean trial score of A and B and the paired bootstrap of B - A (trial indices drawn by
    ``intervals.drawn`` under the key ``(name, "target", target)``, the same in both runs)."""

    def per_target(rows: Mapping[tuple[str, int, str | None], Mapping[str, Any]]) -> dict[str, list[float]]:
        out: dict[str, list[tuple[int, str, float]]] = {}
        for (target, trial, model), r in rows.items():
            s = _score(r)
            out.setdefault(target, []).append((trial, model or "", 0.0 if s is None else s))
        return {t: [v for _, _, v in sorted(vs)] for t, vs in out.items()}

    pa, pb = per_target(rows_a), per_target(rows_b)
    out = []
    for target in sorted(set(pa) | set(pb)):
        va, vb = pa.get(target, []), pb.get(target, [])
        ma = sum(va) / len(va) if va else None
        mb = sum(vb) / len(vb) if vb else None
        low = high = None
        if va and len(va) == len(vb):
            diffs = []
            for rep in range(reps):
                idx = intervals.drawn(seed, rep)((name, "target", target), len(va))
                diffs.append(sum(vb[i] - va[i] for i in idx) / len(idx))
            low, high = intervals.interval(diffs, confidence)
        out.append(TargetPair(target, ma, mb, low, high))
    return tuple(out)


def compare(
    a: FinishedRun,
    b: FinishedRun,
    *,
    reps: int = intervals.RESAMPLES,
    seed: int = 0,
    confidence: float = intervals.CONFIDENCE,
    pair_by: str = PAIRINGS[0],
) -> Comparison:
    """The comparison of B against A; a ResultsError saying which setting differs when they are not comparable
    (or, pairing by model, when a model answered two submissions of one run)."""
    if pair_by not in PAIRINGS:
        raise ResultsError(f"--pair: {pair_by!r} is not one of {', '.join(PAIRINGS)}")
    rows_a, rows_b = a.rows(), b.rows()
    why = refusals(a, b, rows_a, rows_b)
    if why:
        raise ResultsError("the runs are not comparable: " + "; ".join(why))
    sa = a.problem.scores(a.doc, intervals.observed)
    sb = b.problem.scores(b.doc, intervals.observed)
    ida, idb = identities(a.doc, sa, rows_a), identities(b.doc, sb, rows_b)
    several_a = {k for k, (n, _) in ida.items() if k != n}  # rows of a several-model run (``team @ model``)
    several_b = {k for k, (n, _) in idb.items() if k != n}
    keyed_a, keyed_b = _keyed(pair_by, ida, "A"), _keyed(pair_by, idb, "B")
    both = sorted(set(keyed_a) & set(keyed_b), key=lambda k: (keyed_a[k][0], keyed_a[k][1] or ""))
    # B's groups are drawn under A's keys, so that each pair takes the same trial indices in both runs
    rename = {keyed_b[k][0]: keyed_a[k][0] for k in both} | {keyed_b[k][2]: keyed_a[k][2] for k in both}
    remodel = {keyed_b[k][1]: keyed_a[k][1] for k in both if keyed_b[k][1] != keyed_a[k][1]}

    def scorer_b(pick: intervals.Pick) -> Mapping[str, float]:
        def as_a(key: Hashable, n: int) -> Sequence[int]:
            if isinstance(key, tuple) and len(key) == 3:
                name, model, target = key
                key = (rename.get(name, name), remodel.get(model, model) if model is not None else None, target)
            return pick(key, n)

        return b.problem.scores(b.doc, as_a)

    found = intervals.paired_differences(
        a.scorer(), scorer_b, {keyed_a[k][2]: keyed_b[k][2] for k in both}, reps=reps, seed=seed, confidence=confidence
    )
    pairs, changes = [], []
    for k in both:
        (na, mda, ka), (nb, mdb, kb) = keyed_a[k], keyed_b[k]
        label = _label(na, mda) if (na, mda) == (nb, mdb) else f"{_label(na, mda)} -> {_label(nb, mdb)}"
        ta = _trials(rows_a, na, mda if ka in several_a else None)
        tb = {
            (t, n, remodel.get(m, m) if m is not None else None): r
            for (t, n, m), r in _trials(rows_b, nb, mdb if kb in several_b else None).items()
        }
        if pair_by == "submission" and mda != mdb:  # one model per side: trial by trial whatever the models
            ta = {(t, n, None): r for (t, n, _), r in ta.items()}
            tb = {(t, n, None): r for (t, n, _), r in tb.items()}
        targets = target_pairs(ta, tb, na, reps=reps, seed=seed, confidence=confidence)
        low, high = found.get(ka) or (None, None)
        pairs.append(
            Pair(
                na,
                mda,
                float(sa[ka]),
                float(sb[kb]),
                low,
                high,
                submission_b=nb if nb != na else None,
                model_b=mdb if mdb != mda else None,
                targets=targets,
                why_a=why_zero(a, na, list(ta.values()), ka) if sa[ka] == 0 else None,
                why_b=why_zero(b, nb, list(tb.values()), kb) if sb[kb] == 0 else None,
            )
        )
        changes += trial_changes(label, ta, tb)
    return Comparison(
        a.name,
        tuple(pairs),
        tuple(sorted(_label(*keyed_a[k][:2]) for k in set(keyed_a) - set(keyed_b))),
        tuple(sorted(_label(*keyed_b[k][:2]) for k in set(keyed_b) - set(keyed_a))),
        reps,
        score=str(getattr(a.problem, "score_name", SCORE)),
        run_a=str(a.path.parent),
        run_b=str(b.path.parent),
        pair_by=pair_by,
        changes=tuple(changes),
        target_label=str(getattr(a.problem, "target_label", "target")),
        unlike=tuple(
            settings_differences(
                a.doc, b.doc, settings_of(a.problem, a.doc), settings_of(b.problem, b.doc), ("run A", "run B")
            )
        ),
        places=places_of(a.problem),
        runs=(a, b),
    )


def compare_paths(
    path_a: Path | str,
    path_b: Path | str,
    *,
    reps: int = intervals.RESAMPLES,
    seed: int = 0,
    pair_by: str = PAIRINGS[0],
) -> tuple[list[Comparison], list[str], list[str]]:
    """Two runs (each a single run or a suite) compared problem by problem, paired by problem name:
    (the comparisons, problems only in A, problems only in B)."""
    from pcg_plugin.core.results import runs, suite

    ma, mb = dict(suite.members(path_a)), dict(suite.members(path_b))
    if len(ma) == 1 and len(mb) == 1:  # two single runs: another problem is a refusal that says so
        (a,), (b,) = ma.values(), mb.values()
        return [compare(runs.load(a), runs.load(b), reps=reps, seed=seed, pair_by=pair_by)], [], []
    found = [compare(runs.load(ma[p]), runs.load(mb[p]), reps=reps, seed=seed, pair_by=pair_by) for p in ma if p in mb]
    return found, [p for p in ma if p not in mb], [p for p in mb if p not in ma]


def table(c: Comparison) -> list[str]:
    """The terminal table: one line per pair, DROP/RISE where the interval leaves out 0 (numbers at the problem's
    places, none that is not 0 written as 0); why a pair scores 0; then the unpaired."""
    places = c.places
    rows = [("submission", "model", "A", "B", "B-A", "95% interval", "")]
    for p in c.pairs:
        sub = p.submission if p.submission_b is None else f"{p.submission} -> {p.submission_b}"
        model = p.model or "-"
        if p.model_b is not None:
            model = f"{model} -> {p.model_b}"
        rows.append(
            (
                sub,
                model,
                fixed(p.a, places),
                fixed(p.b, places),
                fixed(p.difference, places, sign=True),
                interval(p.low, p.high, places) or "-",
                flag(p.difference, p.low, p.high),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        f"pcg compare: {c.problem}, {c.score}: B - A per pair (paired by {c.pair_by}), paired bootstrap over "
        f"trials ({c.resamples} resamples)",
        f"  A: {c.run_a}",
        f"  B: {c.run_b}",
    ]
    if c.unlike:
        lines.append(f"  not like for like (the gate would refuse them): {'; '.join(c.unlike)}")
    lines += [
        "  ".join(
            cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]
    lines += [f"{p.submission} scores 0 in {why}" for p in c.pairs for why in p.why()]
    lines += [f"only in A: {name}" for name in c.only_a] + [f"only in B: {name}" for name in c.only_b]
    if c.changes:
        lines.append(f"{len(c.changes)} trial(s) changed outcome (-o compare.html lists them)")
    return lines
