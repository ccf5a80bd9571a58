"""CI gating on scoring regressions: a baseline of a run's official scores, and a like-for-like comparison.

A baseline document (schema ``pytest-pcg/baseline/1``) is cut from a run's results.json: the settings that
must match for two runs to be comparable, versions for information, and every official score (per
submission, letter and trial) as the exact strings the scorer printed. ``compare`` gates a new run against it
with a plain threshold (drop > max_drop) or a noise-aware one (the drop must also leave the baseline's
bootstrap interval over trials, ``pcg_plugin.problems.science_birds.scoring.bootstrap``). Pure functions; only
save/load touch the disk.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Context, Decimal, localcontext
from pathlib import Path
from typing import Any

from pcg_plugin._util import jsontext
from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.core.results.like_for_like import setting_differences, settings_differences, shape_differences
from pcg_plugin.errors import BaselineError, ResultsError
from pcg_plugin.problems.science_birds import like_for_like as sb
from pcg_plugin.problems.science_birds.results import SCHEMA as RESULTS_SCHEMA
from pcg_plugin.problems.science_birds.results import (
    Letter,
    ModelResults,
    ModelSubmission,
    Results,
    Settings,
    Submission,
    coerce,
)

BASELINE_SCHEMA = "pytest-pcg/baseline/1"
METHODS = ("plain", "bootstrap")
METRICS = ("normalized_score", "prompt_score", "char_score")
STATUSES = ("regressed", "improved", "unchanged", "within_max_drop", "within_noise", "missing", "new")
FAILING = ("regressed", "missing")
SAVE_HINT = "save one with `pytest submissions/ --pcg-save-baseline FILE`"
# Official decimals have 20 places and a small integer part: this precision keeps every difference exact.
_EXACT = Context(prec=200)


# -- the document -----------------------------------------------------------------------------------------

_SETTING_KEYS = (
    "edition",
    "letters",
    "trials",
    "backend",
    "model",
    "base_url",
    "temperature",
    "seed_policy",
    "disable_weights",
    "tie_break",
    "diversity_vector",
    "max_time",
    "token_limit",
    "models",  # several models: each gated against the baseline's same model (like_for_like.model_differences)
)
TRIAL_KEYS = ("trial", "sta", "sim", "trial_score", "reason")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def baseline_settings(settings: Settings) -> dict[str, Any]:
    """The like-for-like subset of a results ``settings`` object (classifier/physics by name and digest)."""
    out: dict[str, Any] = {key: getattr(settings, key) for key in _SETTING_KEYS}
    if out["letters"] is not None:
        out["letters"] = list(out["letters"])
    out["classifier"] = {
        "name": settings.classifier_name if isinstance(settings.classifier, Mapping) else None,
        "digest": settings.classifier_digest,
    }
    out["physics"] = {"digest": settings.physics_digest, "damage": settings.physics_damage}
    return out


def baseline_letter(data: Letter) -> dict[str, Any]:
    """One letter: char score, diversity (what the bootstrap holds fixed) and each trial's scores."""
    trials = [{key: getattr(t, key) for key in TRIAL_KEYS} for t in data.trials]
    return {"char_score": data.char_score, "diversity": data.diversity, "trials": trials}


def baseline_submission(sub: Submission, per_model: Mapping[str, ModelResults] | None = None) -> dict[str, Any]:
    """One submission's scores; with several models (results.json ``per_model``) also each model's own
    (``models``: prompt score, normalized share, rank and letters), gated like the totals."""
    out: dict[str, Any] = {
        "normalized_score": sub.normalized_score,
        "prompt_score": sub.prompt_score,
        "rank": sub.rank,
        "files_hash": sub.files_hash,
        "letters": {c: baseline_letter(d) for c, d in sub.letters.items()},
    }
    if sub.rank_in_model is not None:  # 2023, 2024 with several models: a row of one model's own scores
        out.update(name=sub.name, model=sub.model, rank_in_model=sub.rank_in_model)
    if per_model:
        out["models"] = {}
        for model, doc in per_model.items():
            part = doc.submissions.get(sub.name or "", ModelSubmission())
            out["models"][model] = {
                "normalized_score": part.normalized_score,
                "prompt_score": part.prompt_score,
                "rank": part.rank,
                "letters": {c: baseline_letter(d) for c, d in part.letters.items()},
            }
    return out


def baseline_document(results: Results | Mapping[str, Any]) -> dict[str, Any]:
    """A baseline from a results.json document (exact decimal strings stay strings)."""
    try:
        doc = coerce(results)
    except ResultsError as exc:
        raise BaselineError(f"cannot make a baseline from this document: {exc}") from None
    subs = [s for s in doc.submissions if s.name is not None]
    return {
        "schema": BASELINE_SCHEMA,
        "created": _now(),
        "source": {"results_schema": doc.schema, "run_id": doc.run.id, "finished": doc.run.finished},
        "settings": baseline_settings(doc.settings),
        "versions": {"git_sha": doc.provenance.git_sha, **dict(doc.provenance.versions or {})},
        "scores": {
            "competition_score": doc.competition_score,
            "multi_model": doc.summed,
            # a row per submission (x model in 2023, 2024 with several: keyed ``team @ model``)
            "submissions": {
                doc.row_key(s): baseline_submission(s, doc.per_model if doc.summed else None) for s in subs
            },
        },
    }


def results_document(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A saved baseline read as the run it was cut from (a results.json document of what it kept: settings, every
    submission's scores and each trial's sta, sim, score and reason), so the harness's comparison of two runs
    (``core.results.compare``, the page a failing gate writes) takes a baseline file as well as a run folder."""
    base = check_document(dict(doc), "the baseline")
    source = _mapping(base.get("source"))
    subs = _mapping(_mapping(base.get("scores")).get("submissions"))

    def part(data: Any) -> dict[str, Any]:
        data = _mapping(data)
        keys = ("normalized_score", "prompt_score", "rank", "letters", "model", "rank_in_model")
        return {k: data[k] for k in keys if k in data}

    def row(key: str, sub: Any) -> dict[str, Any]:
        """A row of the baseline as results.json has it (2023, 2024 with several models: named apart from its key)."""
        name = _mapping(sub).get("name")
        return {"name": name or key, **({"key": key} if name else {}), **part(sub)}

    out: dict[str, Any] = {
        "schema": RESULTS_SCHEMA,
        "run": {"id": source.get("run_id"), "finished": source.get("finished")},
        "settings": dict(_mapping(base.get("settings"))),
        "submissions": [row(key, sub) for key, sub in subs.items()],
    }
    models = sorted({m for sub in subs.values() for m in _mapping(_mapping(sub).get("models"))})
    if models:
        out["per_model"] = {
            m: {
                "submissions": {
                    name: part(_mapping(_mapping(sub).get("models")).get(m))
                    for name, sub in subs.items()
                    if m in _mapping(_mapping(sub).get("models"))
                }
            }
            for m in models
        }
    return out


def save_baseline(path: Path, results: Results | Mapping[str, Any]) -> Path:
    """Write the run's baseline to ``path`` atomically (a killed CI job never leaves half a baseline)."""
    text = jsontext.dumps(baseline_document(results), sort_keys=True, indent=2) + "\n"
    return atomic_write(path, text)


def check_document(doc: Any, where: str) -> dict[str, Any]:
    """``doc`` if it is a usable baseline document, else BaselineError saying what it is and how to fix it."""
    if not isinstance(doc, dict):
        raise BaselineError(f"{where} is not a pytest-pcg baseline (a JSON {type(doc).__name__}); {SAVE_HINT}")
    schema = doc.get("schema")
    if schema == RESULTS_SCHEMA:
        raise BaselineError(f"{where} is a run's results.json, not a baseline; {SAVE_HINT}")
    if schema != BASELINE_SCHEMA:
        newer = isinstance(schema, str) and schema.startswith("pytest-pcg/baseline/")
        why = "written by another pytest-pcg version; upgrade pytest-pcg or" if newer else "not a pytest-pcg baseline;"
        raise BaselineError(f"{where} has schema {schema!r}, {why} {SAVE_HINT}")
    scores = doc.get("scores")
    if (
        not isinstance(doc.get("settings"), dict)
        or not isinstance(scores, dict)
        or not isinstance(scores.get("submissions"), dict)
    ):
        raise BaselineError(f"{where} is a damaged baseline (no settings or scores); {SAVE_HINT}")
    return doc


def load_baseline(path: Path) -> dict[str, Any]:
    """Read a baseline: a saved baseline file, a run's results.json or its run folder (the baseline cut from
    its results), with a BaselineError naming the file and the fix instead of a traceback."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BaselineError(f"baseline {path} does not exist; {SAVE_HINT}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc}; {SAVE_HINT}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(f"baseline {path} is not valid JSON ({exc}); {SAVE_HINT}") from None
    if isinstance(doc, dict) and doc.get("schema") == RESULTS_SCHEMA:
        return baseline_document(doc)
    return check_document(doc, f"baseline {path}")


def _as_baseline(doc: Results | Mapping[str, Any], where: str) -> dict[str, Any]:
    """Accept a results.json document where a baseline is expected (the current run, usually)."""
    if isinstance(doc, Results) or doc.get("schema") == RESULTS_SCHEMA:
        return baseline_document(doc)
    return check_document(dict(doc), where)


def _read(cls: Any, data: Any, where: str) -> Any:
    """A part of a baseline read with the results type it is a subset of (settings, letters)."""
    try:
        return cls.read(_mapping(data), where)
    except ResultsError as exc:
        raise BaselineError(f"{exc}; {SAVE_HINT}") from None


def _letters(data: Any, where: str) -> dict[str, Letter]:
    return {c: _read(Letter, d, f"{where} {c}") for c, d in _mapping(data).items()}


# -- like for like ----------------------------------------------------------------------------------------


def incompatibilities(
    base: Mapping[str, Any], current: Mapping[str, Any], keys: Sequence[str] | None = None
) -> list[str]:
    """One line per like-for-like difference between two baseline documents (empty = comparable): the harness's
    check (``core.results.like_for_like``: its lines, letters for targets) over Science Birds' settings
    (``problems.science_birds.like_for_like``), each line with its fix; ``keys`` limits the check to those labels
    (``like_for_like.PRE_RUN`` before the run)."""

    def kept(doc: Mapping[str, Any]) -> dict[str, Any]:
        return {label: v for label, v in sb.settings(doc).items() if keys is None or label in keys}

    (lb, nb), (lc, nc) = sb.shape(base), sb.shape(current)
    if keys is not None:  # a shape line left out: the baseline's on both sides
        lc, nc = (lc if "letters" in keys else lb), (nc if "trial counts" in keys else nb)
    out = shape_differences((lb, nb), (lc, nc), "letters", per="letter", hints=sb.HINTS)
    if keys is not None and "model" not in keys:  # before the run: the models are checked with the rest after it
        return out + setting_differences(kept(base), kept(current), hints=sb.HINTS)
    return out + settings_differences(base, current, kept(base), kept(current), hints=sb.HINTS)


# -- comparison -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One gated number: a submission's normalized/prompt score (``letter`` None) or a letter's char score."""

    submission: str
    letter: str | None
    metric: str
    baseline: Decimal | None
    current: Decimal | None
    allowed: Decimal
    status: str
    model: str | None = None  # a several-model (2025) run: the row of one model's own scores

    @property
    def delta(self) -> Decimal | None:
        """current - baseline (negative = a drop), exact; None when a side is missing."""
        if self.baseline is None or self.current is None:
            return None
        with localcontext(_EXACT):
            return self.current - self.baseline


@dataclass(frozen=True)
class Comparison:
    """Every gated row of a baseline comparison and how it was gated."""

    method: str
    max_drop: Decimal
    confidence: float | None
    changes: tuple[Change, ...]
    resamples: int | None = None

    @property
    def regressions(self) -> tuple[Change, ...]:
        """Drops beyond the threshold, and submissions (or letters) that vanished: both fail the run."""
        return tuple(ch for ch in self.changes if ch.status in FAILING)

    @property
    def improvements(self) -> tuple[Change, ...]:
        return tuple(ch for ch in self.changes if ch.status == "improved")

    @property
    def within_noise(self) -> tuple[Change, ...]:
        return tuple(ch for ch in self.changes if ch.status == "within_noise")

    @property
    def failed(self) -> bool:
        return bool(self.regressions)


def _decimal(value: Any, where: str) -> Decimal | None:
    from pcg_plugin.problems.science_birds.scoring.official import to_decimal

    if value is None:
        return None
    try:
        return to_decimal(value)
    except (TypeError, ValueError):
        raise BaselineError(f"{where}: {value!r} is not a number; {SAVE_HINT}") from None


def parse_max_drop(max_drop: Decimal | float | str) -> Decimal:
    """The threshold as an exact Decimal (a float through its shortest repr), never negative."""
    from pcg_plugin.problems.science_birds.scoring.official import to_decimal

    try:
        value = to_decimal(max_drop)
    except (TypeError, ValueError):
        raise ValueError(f"--pcg-max-drop: {max_drop!r} is not a number") from None
    if value < 0:
        raise ValueError(f"--pcg-max-drop: {max_drop!r} must be 0 or more (it is the drop allowed)")
    return value


Key = tuple[str, str | None, str, str | None]  # (submission, letter or None, metric, model or None)


def metric_values(doc: Mapping[str, Any], where: str) -> dict[str, dict[Key, Decimal | None]]:
    """submission -> {(submission, letter, metric): value} of a baseline document, in gating order."""
    subs = _mapping(_mapping(doc.get("scores")).get("submissions"))
    letters = list(_mapping(doc.get("settings")).get("letters") or [])
    out: dict[str, dict[Key, Decimal | None]] = {}
    for name, sub in subs.items():
        sub = _mapping(sub)
        rows: dict[Key, Decimal | None] = {}
        parts = [(None, sub)] + [(m, _mapping(d)) for m, d in _mapping(sub.get("models")).items()]
        for model, part in parts:  # the submission's own (total) scores, then each model's
            on = f" ({model})" if model is not None else ""
            for metric in ("normalized_score", "prompt_score"):
                rows[(name, None, metric, model)] = _decimal(part.get(metric), f"{where}: {name}{on} {metric}")
            per_letter = _mapping(part.get("letters"))
            for c in letters + sorted(set(per_letter) - set(letters)):
                if c in per_letter:
                    value = _mapping(per_letter[c]).get("char_score")
                    rows[(name, c, "char_score", model)] = _decimal(value, f"{where}: {name}{on} {c} char_score")
        out[name] = rows
    return out


def _order(doc: Mapping[str, Any]) -> list[str]:
    """Submissions by rank then name (the file's key order is alphabetical after a save)."""
    subs = _mapping(_mapping(doc.get("scores")).get("submissions"))

    def key(name: str) -> tuple[bool, int, str]:
        rank = _mapping(subs[name]).get("rank")
        return (not isinstance(rank, int), rank if isinstance(rank, int) else 0, name)

    return sorted(subs, key=key)


def lower_bounds(
    base: Mapping[str, Any], *, resamples: int, confidence: float, seed: int
) -> tuple[dict[Key, Decimal], int]:
    """The lower end of each metric's central ``confidence`` interval when the BASELINE's trials are
    resampled (``pcg_plugin.problems.science_birds.scoring.bootstrap``: each (submission, letter) redraws its
    trials, official scorer), and how many resamples were actually scored (the report says what was used, not
    what was asked for)."""
    from pcg_plugin.problems.science_birds.scoring.bootstrap import interval, resampled_scores, setup_from_settings

    scores = _mapping(base.get("scores"))
    setup = setup_from_settings(_read(Settings, base.get("settings"), "the baseline's settings"))
    subs = {name: _mapping(s) for name, s in _mapping(scores.get("submissions")).items()}
    if not subs or not setup.letters:
        return {}, 0
    samples: dict[Key, list[Decimal]]
    if scores.get("multi_model"):
        samples, scored = _model_samples(subs, setup, resamples, seed)
        return {key: interval(values, confidence)[0] for key, values in samples.items()}, scored
    samples = {}
    scored = 0
    # each model's rows scored alone (2023, 2024 with several models: rows carry their ``model``)
    groups: dict[Any, dict[str, Any]] = {}
    for name, sub in subs.items():
        groups.setdefault(sub.get("model"), {})[name] = _letters(sub.get("letters"), f"the baseline's {name}")
    for letters in groups.values():
        scored = 0  # the same number of draws for every model
        for res in resampled_scores(letters, setup, reps=resamples, seed=seed):
            scored += 1
            for name, prog in res.programs.items():
                samples.setdefault((name, None, "normalized_score", None), []).append(prog.normalized_score)
                samples.setdefault((name, None, "prompt_score", None), []).append(prog.prompt_score)
                for c, ch in prog.letters.items():
                    samples.setdefault((name, c, "char_score", None), []).append(ch.char_score)
    return {key: interval(values, confidence)[0] for key, values in samples.items()}, scored


def _model_samples(
    subs: Mapping[str, Mapping[str, Any]], setup: Any, resamples: int, seed: int
) -> tuple[dict[Key, list[Decimal]], int]:
    """Several models (2025): every gated row's bootstrap values, each model's trials redrawn apart and the
    draws scored by ``scoring.score_models`` (totals, and each model's share, prompt and char scores), and
    how many draws were scored."""
    from pcg_plugin.problems.science_birds.scoring.bootstrap import resampled_model_scores

    per_model: dict[str, dict[str, Mapping[str, Any]]] = {}
    for name, sub in subs.items():
        for model, part in _mapping(sub.get("models")).items():
            per_model.setdefault(model, {})[name] = _letters(
                _mapping(part).get("letters"), f"the baseline's {name} ({model})"
            )
    samples: dict[Key, list[Decimal]] = {}
    scored = 0
    for res in resampled_model_scores(per_model, setup, reps=resamples, seed=seed):
        scored += 1
        for name in res.totals:
            samples.setdefault((name, None, "normalized_score", None), []).append(res.normalized[name])
            samples.setdefault((name, None, "prompt_score", None), []).append(res.totals[name])
            for model, model_res in res.per_model.items():
                prog = model_res.programs[name]
                samples.setdefault((name, None, "normalized_score", model), []).append(
                    res.per_model_normalized[model][name]
                )
                samples.setdefault((name, None, "prompt_score", model), []).append(prog.prompt_score)
                for c, ch in prog.letters.items():
                    samples.setdefault((name, c, "char_score", model), []).append(ch.char_score)
    return samples, scored


def classify(
    baseline: Decimal | None, current: Decimal | None, max_drop: Decimal, lower: Decimal | None
) -> tuple[Decimal, str]:
    """(allowed drop, status) of one row. ``lower`` is the bootstrap lower end (None = plain threshold):
    regressed = drop > max_drop and (plain, or current below ``lower``); allowed = max(max_drop, baseline - lower);
    a smaller drop is ``within_max_drop`` (shown, not failed); no drop at all is ``unchanged``."""
    if current is None:
        return max_drop, "missing"
    if baseline is None:
        return max_drop, "new"
    with localcontext(_EXACT):
        drop = baseline - current
        allowed = max_drop if lower is None else max(max_drop, baseline - lower)
    if drop > max_drop:
        if lower is None or current < lower:
            return allowed, "regressed"
        return allowed, "within_noise"
    if current > baseline:
        return allowed, "improved"
    return allowed, "within_max_drop" if drop > 0 else "unchanged"


def _rows(
    base_vals: Mapping[str, Mapping[Key, Decimal | None]],
    cur_vals: Mapping[str, Mapping[Key, Decimal | None]],
    order: Iterable[str],
) -> Iterable[tuple[Key, Decimal | None, Decimal | None]]:
    """(key, baseline, current) for every gated row; a vanished submission is one ``normalized_score`` row."""
    for name in order:
        if name in base_vals and name not in cur_vals:
            key: Key = (name, None, "normalized_score", None)
            yield key, base_vals[name].get(key), None
            continue
        if name not in base_vals:
            for key, value in cur_vals[name].items():
                if key[2] == "normalized_score":
                    yield key, None, value
            continue
        b, c = base_vals[name], cur_vals[name]
        for key in list(b) + [k for k in c if k not in b]:
            bv, cv = b.get(key), c.get(key)
            if bv is not None or cv is not None:
                yield key, bv, cv


def compare(
    base: Mapping[str, Any],
    current: Mapping[str, Any],
    *,
    max_drop: Decimal | float | str,
    method: str = "plain",
    resamples: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> Comparison:
    """Gate ``current`` against ``base`` (baseline documents; a results.json document is accepted for either).

    plain: a row regresses when baseline - current > max_drop (exact). bootstrap: it must also fall below the
    lower end of the baseline's bootstrap interval (else ``within_noise``). Improvements never fail; a
    submission missing from the current run does. Raises BaselineError when the runs are not like for like.
    """
    if method not in METHODS:
        raise ValueError(f"--pcg-drop-test: {method!r} is not one of {', '.join(METHODS)}")
    bootstrap = method == "bootstrap"
    if bootstrap and resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    if bootstrap and not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    threshold = parse_max_drop(max_drop)
    base_doc, cur_doc = _as_baseline(base, "the baseline"), _as_baseline(current, "this run")
    problems = incompatibilities(base_doc, cur_doc)
    if problems:
        raise BaselineError("this run is not like for like with the baseline:\n  " + "\n  ".join(problems))
    base_vals, cur_vals = metric_values(base_doc, "the baseline"), metric_values(cur_doc, "this run")
    lower, scored = (
        lower_bounds(base_doc, resamples=resamples, confidence=confidence, seed=seed) if bootstrap else ({}, 0)
    )
    order = _order(base_doc) + [n for n in _order(cur_doc) if n not in base_vals]
    changes = []
    for key, bv, cv in _rows(base_vals, cur_vals, order):
        allowed, status = classify(bv, cv, threshold, lower.get(key))
        changes.append(Change(key[0], key[1], key[2], bv, cv, allowed, status, key[3]))
    return Comparison(
        method, threshold, confidence if bootstrap else None, tuple(changes), scored if bootstrap else None
    )


# -- terminal table ---------------------------------------------------------------------------------------


def _places(values: Iterable[Decimal | None]) -> int:
    """Decimals that show ~4 significant digits of the smallest nonzero number (trial-sized scores are
    ~1e-3, normalized scores ~10), between 4 and 12."""
    exponents = [v.adjusted() for v in values if v is not None and v != 0]
    return min(12, max(4, 3 - min(exponents))) if exponents else 4


def _num(value: Decimal | None, places: int, *, sign: bool = False) -> str:
    if value is None:
        return "-"
    if sign and value == 0:
        return "0"
    return f"{value:{'+' if sign else ''}.{places}f}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def describe(comparison: Comparison) -> str:
    """Which threshold gated the run, in one phrase (the report must say which was used)."""
    drop = format(comparison.max_drop, "f")
    if comparison.method == "bootstrap":
        pct = f"{(comparison.confidence or 0) * 100:g}"
        reps = comparison.resamples if comparison.resamples is not None else "?"
        return f"noise-aware: bootstrap over trials, {reps} resamples, {pct} % (max drop {drop})"
    return f"plain: max drop {drop}"


def verdict(comparison: Comparison) -> str:
    """'2 regressions, 1 improvement' (+ within noise / new when any) and whether the gate failed."""
    parts = [_plural(len(comparison.regressions), "regression"), _plural(len(comparison.improvements), "improvement")]
    if comparison.within_noise:
        parts.append(f"{len(comparison.within_noise)} within noise")
    new = sum(1 for ch in comparison.changes if ch.status == "new")
    if new:
        parts.append(f"{new} new")
    return ", ".join(parts) + (" -> FAILED" if comparison.failed else " -> ok")


def _table(rows: Sequence[Sequence[str]], right: Callable[[int], bool]) -> list[str]:
    """Columns padded to their widest cell; ``right(i)`` right-aligns column i (the numbers)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]

    def line(row: Sequence[str]) -> str:
        pairs = enumerate(zip(row, widths, strict=True))
        cells = (cell.rjust(w) if right(i) else cell.ljust(w) for i, (cell, w) in pairs)
        return "  ".join(cells).rstrip()

    return [line(r) for r in rows]


def format_comparison(comparison: Comparison, *, only_changes: bool = True) -> list[str]:
    """The terminal table: header (threshold used), one row per (changed) number, verdict line."""
    lines = [f"pytest-pcg baseline comparison ({describe(comparison)})"]
    shown = [
        ch
        for ch in comparison.changes
        if not only_changes or ch.status != "unchanged" or (ch.delta is not None and ch.delta != 0)
    ]
    if shown:
        numbers = {
            m: [v for ch in shown if ch.metric == m for v in (ch.baseline, ch.current, ch.delta, ch.allowed)]
            for m in {ch.metric for ch in shown}
        }
        places = {m: _places(values) for m, values in numbers.items()}  # one per metric: columns line up
        models = any(ch.model is not None for ch in comparison.changes)  # a several-model run: a model column
        head = ("submission", *(("model",) if models else ()), "letter", "metric")
        rows = [(*head, "baseline", "current", "delta", "allowed", "status")]
        for ch in shown:
            p = places[ch.metric]
            who = (ch.submission, *((ch.model or "all",) if models else ()), ch.letter or "-", ch.metric)
            rows.append(
                (
                    *who,
                    _num(ch.baseline, p),
                    _num(ch.current, p),
                    _num(ch.delta, p, sign=True),
                    _num(ch.allowed, p),
                    ch.status.replace("_", " "),
                )
            )
        lines += _table(rows, lambda i: len(head) <= i <= len(head) + 3)
    else:
        lines.append("no score changed")
    lines.append(verdict(comparison))
    return lines
