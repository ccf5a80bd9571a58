"""Terminal text: the run header and the end-of-run ranking table (pure functions returning lines)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pcg_plugin.errors import Reason
from pcg_plugin.problems.science_birds.settings import Settings


# What runs without --pcg-classifier (pcg_plugin.classify.hf._resolve), said so that nobody mistakes it for official.
EMBEDDED_NOTE = "pcg-letters (embedded approximation; official similarity needs --pcg-classifier " \
                "pittawat/vit-base-uppercase-english-characters)"


def header_lines(settings: Settings, run_dir: str | Path) -> list[str]:
    """Edition, backend (loudly when it is the offline default), model, record mode, seeds, classifier."""
    backend = settings.backend or "auto"
    if settings.offline_default:
        backend += " -> OFFLINE DEFAULT (SmolLM2-135M, no API key/base URL): scores are NOT comparable to the official"
    lines = [
        f"pcg: edition {settings.edition}, letters {','.join(settings.letters)}, {settings.trials} trials",
        f"pcg: backend {backend}",
        f"pcg: model {settings.model or ('SmolLM2-135M-Instruct' if settings.offline_default else '(edition default)')}"
        + (f" at {settings.base_url}" if settings.base_url else ""),
        f"pcg: record mode {settings.record}, store {settings.store}",
        "pcg: seeds: the edition's API seed policy; per-trial seeds derived from submission/letter/trial",
        f"pcg: classifier {settings.classifier or EMBEDDED_NOTE} on {settings.device} ({settings.classify_mode})",
        f"pcg: run folder {run_dir}",
    ]
    if settings.constrain != "off":
        lines.insert(4, f"pcg: constrained decoding: answers are generated under the {settings.constrain} grammar "
                        "(--pcg-constrain off for the model's own text)")  # fmt: skip
    lines.extend(f"pcg: {note}" for note in settings.notes)
    return lines


def preflight_line(settings: Settings, nodeids: Sequence[str]) -> str | None:
    """The estimated cost of the calls this run will pay for (None for local, offline, scripted, replay-only)."""
    from types import SimpleNamespace

    from pcg_plugin.llm.estimate import preflight_text
    from pcg_plugin.problems.science_birds.editions import profile_for

    evaluations = [n for n in nodeids if n.count("::") >= 2]
    if not evaluations or settings.backend not in (None, "auto", "openai", "openai-compatible"):
        return None
    if settings.offline_default:
        return None
    name = settings.backend if settings.backend in ("openai", "openai-compatible") else "openai"
    from pcg_plugin.llm.store import ResponseStore

    assert settings.store is not None
    store = ResponseStore(settings.store)
    # ids are sub::letter::trial, or sub::model::letter::trial with several models (one estimate per model)
    models = settings.models if settings.multi_model else (settings.model,)
    lines = []
    for model in models:
        ids = [n.split("::") for n in evaluations]
        if settings.multi_model:
            ids = [p for p in ids if len(p) > 3 and p[1] == model]
        if not ids:
            continue
        profile_model = profile_for(settings.edition, model=model, base_url=settings.base_url).model
        text = preflight_text(SimpleNamespace(name=name), store, edition=settings.edition, model=profile_model,
                              submissions=len({p[0] for p in ids}), letters=len({p[-2] for p in ids}),
                              trials=settings.trials, mode=settings.record)  # fmt: skip
        if text:
            lines.append(f"pcg: {text}")
    return "\n".join(lines) or None


def _fmt(value: Any, places: int = 4) -> str:
    if value is None:
        return "-"
    try:
        return f"{Decimal(str(value)):.{places}f}"
    except (InvalidOperation, ValueError):
        return str(value)


def trial_counts(sub: Mapping[str, Any], per_model: Mapping[str, Any] | None = None) -> tuple[int, int, int]:
    """(trials, zero-score official failures, errored items) of one submission (over every model's letters
    when ``per_model``, results.json's several-model part, is given)."""
    n = zero = err = 0
    parts = [sub.get("letters", {})]
    for doc in (per_model or {}).values():
        parts.append(doc.get("submissions", {}).get(sub["name"], {}).get("letters", {}))
    for letter in (data for part in parts for data in part.values()):
        for trial in letter.get("trials", []):
            n += 1
            if trial.get("reason") == Reason.ERROR:
                err += 1
            elif trial.get("reason"):
                zero += 1
    return n, zero, err


def ranking_table(submissions: Sequence[Mapping[str, Any]], per_model: Mapping[str, Any] | None = None) -> list[str]:
    rows = sorted(submissions, key=lambda s: (s.get("rank") is None, s.get("rank") or 0, s["name"]))
    width = max([len("submission")] + [len(s["name"]) for s in rows])
    lines = [f"{'rank':>4}  {'submission':<{width}}  {'normalized':>10}  {'prompt score':>12}  trials  zero  errors"]
    for sub in rows:
        n, zero, err = trial_counts(sub, per_model)
        lines.append(
            f"{sub.get('rank', '-')!s:>4}  {sub['name']:<{width}}  {_fmt(sub.get('normalized_score')):>10}  "
            f"{_fmt(sub.get('prompt_score'), 6):>12}  {n:>6}  {zero:>4}  {err:>6}"
        )
    return lines


def per_model_table(per_model: Mapping[str, Any], order: Sequence[str]) -> list[str]:
    """2025 with several models: each model's prompt score, its share of the normalized total (the shares of a
    submission add up to its total) and the rank that model alone would give."""
    names = [n for n in order if any(n in d.get("submissions", {}) for d in per_model.values())]
    mw = max([len("model")] + [len(m) for m in per_model])
    sw = max([len("submission")] + [len(n) for n in names])
    lines = ["per model (normalized: the model's share of the total, the shares add up to it):",
             f"{'model':<{mw}}  {'submission':<{sw}}  {'normalized':>10}  {'prompt score':>12}  model rank"]
    for model, doc in per_model.items():
        for name in names:
            v = doc.get("submissions", {}).get(name, {})
            lines.append(f"{model:<{mw}}  {name:<{sw}}  {_fmt(v.get('normalized_score')):>10}  "
                         f"{_fmt(v.get('prompt_score'), 6):>12}  {v.get('rank', '-')!s:>10}")  # fmt: skip
    return lines


def _letter_docs(submissions: Sequence[Mapping[str, Any]], per_model: Mapping[str, Any] | None) -> list[Any]:
    docs = [sub.get("letters", {}) for sub in submissions]
    docs += [s.get("letters", {}) for d in (per_model or {}).values() for s in d.get("submissions", {}).values()]
    return docs


def reason_counts(submissions: Sequence[Mapping[str, Any]], per_model: Mapping[str, Any] | None = None) -> dict[str, int]:
    counts: dict[str, int] = {}
    for letters in _letter_docs(submissions, per_model):
        for letter in letters.values():
            for trial in letter.get("trials", []):
                if trial.get("reason"):
                    counts[trial["reason"]] = counts.get(trial["reason"], 0) + 1
    return dict(sorted(counts.items()))


def summary_lines(
    results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None = None
) -> list[str]:
    if error is not None:
        return [f"scoring the run failed: {error}", f"run folder: {run_dir}"]
    assert results is not None
    subs = results.get("submissions", [])
    per_model = results.get("per_model") or None
    lines = ranking_table(subs, per_model)
    if per_model:
        lines += per_model_table(per_model, [s["name"] for s in subs])
    reasons = reason_counts(subs, per_model)
    if reasons:
        lines.append("trials scored 0 (reason: count): " + ", ".join(f"{k}: {v}" for k, v in reasons.items()))
    for nodeid, problem in (results.get("folder_errors") or {}).items():
        lines.append(f"NOT EVALUATED: {problem}")
    settings = results.get("settings", {})
    if settings.get("offline_default"):
        lines.append("NOTE: generated by the offline default LLM, not the edition's official model")
    if settings.get("constrained_decoding"):
        lines.append(f"NOTE: constrained decoding ({settings['constrained_decoding']})")
    lines.append(f"competition score {_fmt(results.get('competition_score'), 6)}")
    lines.append(f"results: {Path(run_dir) / 'results.json'}")
    lines.append(f"report:  {report}" if report else "report:  (no HTML report: pcg_plugin.problems.science_birds.report_html not available)")
    return lines
