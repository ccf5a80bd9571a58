"""The self-contained HTML leaderboard (report.html) rendered with Jinja2 from a results.json document."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pcg_plugin.atomic import atomic_write
from pcg_plugin.paths import REPO_ROOT

REPORT_FILE = "report.html"
TEMPLATE = "report.html.j2"
OFFICIAL_CLASSIFIER = "pittawat/vit-base-uppercase-english-characters"
TEXT_LIMIT = 6000  # characters of a response/code/XML shown inline; the full file is in the run folder
WEIGHT_ROWS = (("weight", "weight"), ("w_sta", "w_sta"), ("w_sim", "w_sim"), ("w_div", "w_div"))
LETTER_ROWS = (("sta_mean", "sta"), ("sim_mean", "sim"), ("diversity", "div"), ("char_score", "char score"))


def _template_source() -> str:
    """The template from the installed package, else from the repo's top-level templates/."""
    try:
        from importlib.resources import files

        return (files("pcg_plugin.templates") / TEMPLATE).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return (REPO_ROOT / "templates" / TEMPLATE).read_text(encoding="utf-8")


def _num(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(Decimal(str(value)))
    except (InvalidOperation, ValueError):
        return None


def short(value: Any) -> str:
    """Four significant-ish digits for the tables; the exact string stays in the title attribute."""
    x = _num(value)
    if x is None:
        return "–"
    if x == 0:
        return "0"
    return f"{x:.4f}" if abs(x) >= 1e-3 else f"{x:.2e}"


def heat(value: Any, key: str | None = None) -> str:
    """Background colour for a score in [0, 1]: red (0) → yellow → green (1); char scores on a stretched scale."""
    x = _num(value)
    if x is None:
        return "#eee"
    if key == "char_score":
        x = min(1.0, x * 4)  # char scores are products of three numbers ≤ 1; stretch so they are readable
    x = min(max(x, 0.0), 1.0)
    return f"hsl({int(120 * x)}, 70%, 80%)"


def warnings(results: Mapping[str, Any]) -> list[str]:
    """What a reader must not miss: an offline default model, a non-official classifier."""
    out = []
    settings = results.get("settings", {}) or {}
    if settings.get("offline_default"):
        out.append(f"The offline default LLM ({settings.get('model') or 'SmolLM2'}) produced these responses, "
                   "not a competition model: scores are not comparable with official results.")  # fmt: skip
    classifier = settings.get("classifier") or {}
    name = classifier.get("name") if isinstance(classifier, Mapping) else str(classifier)
    if name and name != OFFICIAL_CLASSIFIER:
        out.append(f"Similarity was measured with the classifier {name!r}, not the official {OFFICIAL_CLASSIFIER}: "
                   "similarity and diversity differ from the official pipeline.")  # fmt: skip
    elif not name:
        out.append("The classifier is not recorded: similarity may not come from the official model.")
    if settings.get("disable_weights"):
        out.append("Weights were disabled (all 1): not the official weighting.")
    if settings.get("constrained_decoding"):
        out.append(f"Responses were generated with constrained decoding ({settings['constrained_decoding']}): "
                   "the model chose every token, but only text ending in one drop_block block was allowed.")  # fmt: skip
    return out


def _read_text(run_dir: Path, rel: str | None) -> str | None:
    if not rel:
        return None
    path = (run_dir / rel).resolve()
    try:
        path.relative_to(run_dir.resolve())
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except (OSError, ValueError):
        return None
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + f"\n… ({len(text) - TEXT_LIMIT} more characters in {rel})"


def _trial_view(trial: Mapping[str, Any], run_dir: Path) -> dict[str, Any]:
    view = dict(trial)
    texts = []
    for label, key in (("response", "raw"), ("code", "code"), ("level XML", "level")):
        text = _read_text(run_dir, trial.get(key))
        if text is not None:
            texts.append((f"{label} ({trial.get(key)})", text))
    view["texts"] = texts
    return view


def _letters_view(letters_doc: Mapping[str, Any], run_dir: Path) -> dict[str, Any]:
    return {c: {**data, "trials": [_trial_view(t, run_dir) for t in data.get("trials", [])]}
            for c, data in letters_doc.items()}  # fmt: skip


def _submission_view(sub: Mapping[str, Any], run_dir: Path, per_model: Mapping[str, Any]) -> dict[str, Any]:
    """One submission's rows; ``sections`` = (model, letters) pairs: one with model None for a one-model run,
    one per model when several models ran (their letters live in results.json ``per_model``)."""
    view = dict(sub)
    view["letters"] = _letters_view(sub.get("letters") or {}, run_dir)
    view["sections"] = [(None, view["letters"])] if not per_model else [
        (model, _letters_view(((doc.get("submissions") or {}).get(sub["name"]) or {}).get("letters") or {}, run_dir))
        for model, doc in per_model.items()
    ]  # fmt: skip
    trials = [t for _, letters in view["sections"] for data in letters.values() for t in data["trials"]]
    view["zero_trials"], view["total_trials"] = sum(1 for t in trials if t.get("reason")), len(trials)
    view["normalized_short"] = short(sub.get("normalized_score"))
    view["prompt_short"] = short(sub.get("prompt_score"))
    cost = (sub.get("usage") or {}).get("cost_usd")
    view["cost"] = f"{cost:.4f}" if isinstance(cost, (int, float)) else "–"
    view.setdefault("usage", {"calls": 0})
    return view


def _provenance_rows(results: Mapping[str, Any]) -> list[tuple[str, str]]:
    settings = results.get("settings", {}) or {}
    prov = results.get("provenance", {}) or {}
    rows = [("run", f"{results.get('run', {}).get('id')} ({results.get('run', {}).get('started')} → "
                    f"{results.get('run', {}).get('finished')})")]  # fmt: skip
    for key in ("edition", "backend", "model", "base_url", "temperature", "seed_policy", "record_mode",
                "diversity_vector", "tie_break", "offline_default", "constrained_decoding"):  # fmt: skip
        rows.append((key, str(settings.get(key))))
    for key in ("classifier", "physics"):
        value = settings.get(key)
        if isinstance(value, Mapping):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        rows.append((key, str(value)))
    rows.append(("git SHA", str(prov.get("git_sha"))))
    for name, version in sorted((prov.get("versions") or {}).items()):
        rows.append((name, str(version)))
    return rows


def rank_intervals(results: Mapping[str, Any], *, reps: int = 100, seed: int = 0) -> dict[str, tuple[int, int]]:
    """95% rank intervals by bootstrap over trials: each (submission, letter) redraws its trials with
    replacement and the official scorer (``scoring.score``, weights included) re-ranks; diversity is held at its
    measured value (it is a per-letter number); with several models each model's trials are redrawn and the
    totals re-ranked (``scoring.score_models``). Empty when there is nothing to resample. The resampling is
    ``pcg_plugin.problems.science_birds.bootstrap`` (shared with the noise-aware baseline gate)."""
    from pcg_plugin.problems.science_birds.bootstrap import interval, resampled_model_scores, resampled_scores, setup_from_settings

    setup = setup_from_settings(results.get("settings") or {})
    subs = results.get("submissions") or []
    if len(subs) < 2 or not setup.letters or reps < 1:
        return {}
    per_model = results.get("per_model") or {}
    draws: Any
    if per_model:  # 2025 with several models: every model's trials redrawn, ranked by the summed total
        letters = {m: {n: s.get("letters") or {} for n, s in (d.get("submissions") or {}).items()}
                   for m, d in per_model.items()}  # fmt: skip
        draws = resampled_model_scores(letters, setup, reps=reps, seed=seed)
    else:
        draws = resampled_scores({s["name"]: s.get("letters") or {} for s in subs}, setup, reps=reps, seed=seed)
    ranks: dict[str, list[int]] = {s["name"]: [] for s in subs}
    for res in draws:
        for name, r in res.ranking:
            ranks.setdefault(name, []).append(r)
    return {name: interval(rs, 0.95) for name, rs in ranks.items() if rs}  # a model part may lack a submission


def _sequence(value: Any) -> Sequence[str]:
    return list(value) if isinstance(value, (list, tuple)) else []


def render_report(results: dict, run_dir: Path, *, bootstrap: int = 100) -> str:
    """The leaderboard HTML: ranking, weights, per-letter heat maps, every trial's thumbnail with its response,
    code, XML and numbers, provenance. Inline CSS, no script, no network; images are relative links into the run
    folder (26×10×P data URIs would make the page tens of MB)."""
    from jinja2 import Environment, select_autoescape

    run_dir = Path(run_dir)
    env = Environment(autoescape=select_autoescape(default=True, default_for_string=True))  # missing keys render empty
    env.filters["short"] = short
    env.filters["heat"] = heat
    template = env.from_string(_template_source())
    settings = dict(results.get("settings") or {})
    per_model = results.get("per_model") or {}
    subs = [_submission_view(s, run_dir, per_model) for s in results.get("submissions") or []]
    letters = _sequence(settings.get("letters")) or sorted({c for s in subs for _, ls in s["sections"] for c in ls})

    def weights_of(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        return {c: {k: ((doc.get("weights") or {}).get(c) or {}).get(k) for k, _ in WEIGHT_ROWS} for c in letters}

    weight_sections = [(m, weights_of(d)) for m, d in per_model.items()] or [(None, weights_of(results))]
    intervals = rank_intervals(results, reps=bootstrap)
    for s in subs:
        lo_hi = intervals.get(s["name"])
        s["rank_interval"] = f"{lo_hi[0]}–{lo_hi[1]}" if lo_hi else ""
    return template.render(
        run=results.get("run") or {}, settings={**settings, "letters": letters},
        trials=max([settings.get("trials") or 0] + [len(d["trials"]) for s in subs for _, ls in s["sections"]
                                                    for d in ls.values()] + [1]),
        warnings=warnings(results), submissions=subs, letters=letters, weight_sections=weight_sections,
        weight_rows=WEIGHT_ROWS, letter_rows=LETTER_ROWS, competition_score=results.get("competition_score"),
        any_lengths=any(s.get("prompt_length") is not None for s in subs),
        provenance_rows=_provenance_rows(results), schema=results.get("schema"), bootstrap=bootstrap if intervals else 0,
        per_model=per_model, folders=results.get("folders") or [],
        folder_errors=results.get("folder_errors") or {},
    )  # fmt: skip


def write_report(results: dict, run_dir: Path) -> Path:
    """Write ``run_dir/report.html`` (atomically) and return its path."""
    run_dir = Path(run_dir)
    return atomic_write(run_dir / REPORT_FILE, render_report(results, run_dir))
