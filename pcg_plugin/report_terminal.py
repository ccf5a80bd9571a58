"""Terminal text: the run header and the end-of-run ranking table (pure functions returning lines)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pcg_plugin.settings import Settings


# What runs without --pcg-classifier (pcg_plugin.classify._resolve), said so that nobody mistakes it for official.
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
    lines.extend(f"pcg: {note}" for note in settings.notes)
    return lines


def preflight_line(settings: Settings, nodeids: Sequence[str]) -> str | None:
    """The estimated cost of the calls this run will pay for (None for local, offline, scripted, replay-only)."""
    from types import SimpleNamespace

    from pcg_plugin.llm.estimate import preflight_text
    from pcg_plugin.llm.profiles import profile_for

    evaluations = [n for n in nodeids if n.count("::") >= 2]
    if not evaluations or settings.backend not in (None, "auto", "openai", "openai-compatible"):
        return None
    if settings.offline_default:
        return None
    name = settings.backend if settings.backend in ("openai", "openai-compatible") else "openai"
    subs = {n.split("::")[0] for n in evaluations}
    model = profile_for(settings.edition, model=settings.model, base_url=settings.base_url).model
    from pcg_plugin.llm.store import ResponseStore

    assert settings.store is not None
    text = preflight_text(SimpleNamespace(name=name), ResponseStore(settings.store), edition=settings.edition,
                          model=model, submissions=len(subs), letters=len({n.split("::")[1] for n in evaluations}),
                          trials=settings.trials,
                          mode=settings.record)  # fmt: skip
    return f"pcg: {text}" if text else None


def _fmt(value: Any, places: int = 4) -> str:
    if value is None:
        return "-"
    try:
        return f"{Decimal(str(value)):.{places}f}"
    except (InvalidOperation, ValueError):
        return str(value)


def trial_counts(sub: Mapping[str, Any]) -> tuple[int, int, int]:
    """(trials, zero-score official failures, errored items) of one submission."""
    n = zero = err = 0
    for letter in sub.get("letters", {}).values():
        for trial in letter.get("trials", []):
            n += 1
            if trial.get("reason") == "error":
                err += 1
            elif trial.get("reason"):
                zero += 1
    return n, zero, err


def ranking_table(submissions: Sequence[Mapping[str, Any]]) -> list[str]:
    rows = sorted(submissions, key=lambda s: (s.get("rank") is None, s.get("rank") or 0, s["name"]))
    width = max([len("submission")] + [len(s["name"]) for s in rows])
    lines = [f"{'rank':>4}  {'submission':<{width}}  {'normalized':>10}  {'prompt score':>12}  trials  zero  errors"]
    for sub in rows:
        n, zero, err = trial_counts(sub)
        lines.append(
            f"{sub.get('rank', '-')!s:>4}  {sub['name']:<{width}}  {_fmt(sub.get('normalized_score')):>10}  "
            f"{_fmt(sub.get('prompt_score'), 6):>12}  {n:>6}  {zero:>4}  {err:>6}"
        )
    return lines


def reason_counts(submissions: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for sub in submissions:
        for letter in sub.get("letters", {}).values():
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
    lines = ranking_table(subs)
    reasons = reason_counts(subs)
    if reasons:
        lines.append("trials scored 0 (reason: count): " + ", ".join(f"{k}: {v}" for k, v in reasons.items()))
    for nodeid, problem in (results.get("folder_errors") or {}).items():
        lines.append(f"NOT EVALUATED: {problem}")
    settings = results.get("settings", {})
    if settings.get("offline_default"):
        lines.append("NOTE: generated by the offline default LLM, not the edition's official model")
    lines.append(f"competition score {_fmt(results.get('competition_score'), 6)}")
    lines.append(f"results: {Path(run_dir) / 'results.json'}")
    lines.append(f"report:  {report}" if report else "report:  (no HTML report: pcg_plugin.report_html not available)")
    return lines
