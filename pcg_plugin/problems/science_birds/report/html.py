"""The self-contained HTML leaderboard (report.html) rendered with Jinja2 from a results.json document."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.paths import template_source
from pcg_plugin.problems.science_birds.report.terminal import run_banner, tie_note, zero_score_reason
from pcg_plugin.problems.science_birds.results import Letter, Results, Submission, Trial, Weight, coerce

REPORT_FILE = "report.html"
TEMPLATE = "report.html.j2"
OFFICIAL_CLASSIFIER = "pittawat/vit-base-uppercase-english-characters"
WEIGHT_ROWS = (("weight", "weight"), ("w_sta", "w_sta"), ("w_sim", "w_sim"), ("w_div", "w_div"))
LETTER_ROWS = (("sta_mean", "sta"), ("sim_mean", "sim"), ("diversity", "div"), ("char_score", "char score"))


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


def warnings(results: Results) -> list[str]:
    """What a reader must not miss: an offline default model, a non-official classifier."""
    out = []
    settings = results.settings
    if settings.offline_default:
        out.append(
            f"The offline default LLM ({settings.model or 'SmolLM2'}) produced these responses, "
            "not a competition model: scores are not comparable with official results."
        )
    elif banner := run_banner(settings):
        out.append(banner)
    name = settings.classifier_name
    if name and name != OFFICIAL_CLASSIFIER:
        out.append(
            f"Similarity was measured with the classifier {name!r}, not the official {OFFICIAL_CLASSIFIER}: "
            "similarity and diversity differ from the official pipeline."
        )
    elif not name:
        out.append("The classifier is not recorded: similarity may not come from the official model.")
    if settings.disable_weights:
        out.append("Weights were disabled (all 1): not the official weighting.")
    if settings.constrained_decoding:
        out.append(
            f"Responses were generated with constrained decoding ({settings.constrained_decoding}): "
            "the model chose every token, but only text ending in one drop_block block was allowed."
        )
    return out


@dataclass(frozen=True)
class View:
    """A part of the results document as the template sees it: its own attributes, plus what the report adds
    (a trial's texts, a submission's sections and short numbers)."""

    part: Any
    more: dict[str, Any]  # a dict: render_report adds each submission's rank interval once it is known

    def __getattr__(self, name: str) -> Any:
        more = object.__getattribute__(self, "more")
        return more[name] if name in more else getattr(object.__getattribute__(self, "part"), name)


def _inside(run_dir: Path, rel: str | None) -> bool:
    """True for a relative path that stays inside the run folder (the report links nothing else)."""
    if not rel:
        return False
    try:
        (run_dir / rel).resolve().relative_to(run_dir.resolve())
    except (OSError, ValueError):
        return False
    return True


def _trial_view(trial: Trial, run_dir: Path, thumbs: bool) -> View:
    """The trial's texts as links (inlining them made a 2,600-trial report tens of MB; iframes, even lazy ones,
    are all fetched at once by Chromium inside closed <details>) and its thumbnail (``thumbs/``, written when
    missing)."""
    from pcg_plugin.problems.science_birds.report.thumbnails import ensure_thumbnail, thumbnail_rel

    texts = [
        (label, path)
        for label, path in (("response", trial.raw), ("code", trial.code), ("level XML", trial.level))
        if _inside(run_dir, path)
    ]
    thumb = None
    if trial.image and _inside(run_dir, trial.image):
        if thumbs:
            thumb = ensure_thumbnail(run_dir, trial.image)
        elif (run_dir / thumbnail_rel(trial.image)).is_file():
            thumb = thumbnail_rel(trial.image)
    from pcg_plugin.core.records.transcript import data_rel, page_rel
    from pcg_plugin.problems.science_birds.level.animate import animation_rel

    anim = animation_rel(trial.image) if trial.image else None
    nodeid = trial.nodeid
    page = page_rel(nodeid) if nodeid else None
    return View(
        trial,
        {
            "texts": texts,
            "thumb": thumb or trial.image,  # links only to files that are there
            "transcript": page if page and nodeid and (run_dir / data_rel(nodeid)).is_file() else None,
            "animation": anim if anim and (run_dir / anim).is_file() else None,
        },
    )


def _letters_view(letters: Mapping[str, Letter], run_dir: Path, thumbs: bool) -> dict[str, View]:
    return {
        c: View(data, {"trials": [_trial_view(t, run_dir, thumbs) for t in data.trials]}) for c, data in letters.items()
    }


def _submission_view(sub: Submission, run_dir: Path, results: Results, thumbs: bool) -> View:
    """One submission's rows; ``sections`` = (model, letters) pairs: one with model None for a one-model run,
    one per model when several models ran (their letters live in results.json ``per_model``)."""
    sections = [
        (model, _letters_view(letters, run_dir, thumbs)) for model, letters in results.model_letters(sub.name or "")
    ]
    if not results.summed:
        sections = [(None, _letters_view(sub.letters, run_dir, thumbs))]
    trials = [t for _, letters in sections for data in letters.values() for t in data.trials]
    cost = sub.usage.cost_usd
    return View(
        sub,
        {
            "sections": sections,
            "zero_trials": sum(1 for t in trials if t.reason and not t.errored),
            "error_trials": sum(1 for t in trials if t.errored),
            "total_trials": len(trials),
            "normalized_short": short(sub.normalized_score),
            "prompt_short": short(sub.prompt_score),
            "cost": f"{cost:.4f}" if isinstance(cost, (int, float)) else "–",
            "rank_interval": "",
            "zero_reason": zero_score_reason(sub, results.per_model or None, list(results.settings.letters or ())),
        },
    )


def _provenance_rows(results: Results) -> list[tuple[str, str]]:
    settings, prov, run = results.settings, results.provenance, results.run
    rows = [("run", f"{run.id} ({run.started} → {run.finished})")]
    for key in (
        "edition",
        "backend",
        "model",
        "base_url",
        "temperature",
        "seed_policy",
        "record_mode",
        "diversity_vector",
        "tie_break",
        "offline_default",
        "constrained_decoding",
    ):
        rows.append((key, str(getattr(settings, key))))
    for key in ("classifier", "physics"):
        value = getattr(settings, key)
        if isinstance(value, Mapping):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        rows.append((key, str(value)))
    rows.append(("git SHA", str(prov.git_sha)))
    for name, version in sorted((prov.versions or {}).items()):
        rows.append((name, str(version)))
    return rows


EACH_MODEL = (
    "one row per submission x model: each model scored alone by the official scorer (its own weights and "
    "competition score; normalized within the model), ranked across every row by prompt score"
)


def rank_intervals(
    results: Results | Mapping[str, Any], *, reps: int = 100, seed: int = 0
) -> dict[str, tuple[int, int]]:
    """95% rank intervals by bootstrap over trials: each (submission, letter) redraws its trials with
    replacement and the official scorer (``scoring.score``, weights included) re-ranks; diversity is held at its
    measured value (it is a per-letter number); with several models each model's trials are redrawn and the
    totals re-ranked (``scoring.score_models``), or (2023, 2024) each model's draw scored alone and the rows
    ranked across (``aggregate.ranks_across_models``), keyed ``team @ model``. Empty when there is nothing to
    resample. The resampling is
    ``pcg_plugin.problems.science_birds.scoring.bootstrap`` (shared with the noise-aware baseline gate)."""
    from pcg_plugin.core.stats.intervals import level_key
    from pcg_plugin.problems.science_birds.scoring.aggregate import ranks_across_models
    from pcg_plugin.problems.science_birds.scoring.bootstrap import (
        interval,
        resampled_each_model,
        resampled_model_scores,
        resampled_scores,
        setup_from_settings,
    )

    results = coerce(results)
    setup = setup_from_settings(results.settings)
    subs = [s for s in results.submissions if s.name is not None]
    if len(subs) < 2 or not setup.letters or reps < 1:
        return {}
    draws: Any
    if results.summed:  # 2025 with several models: every model's trials redrawn, ranked by the summed total
        letters = {m: {n: s.letters for n, s in d.submissions.items()} for m, d in (results.per_model or {}).items()}
        draws = resampled_model_scores(letters, setup, reps=reps, seed=seed)
    elif results.row_models:  # 2023, 2024 with several models: each model's draw scored alone, rows ranked across
        per = {m: {s.name: s.letters for s in subs if s.model == m and s.name} for m in results.row_models}
        across: dict[str, list[int]] = {results.row_key(s): [] for s in subs}
        for each in resampled_each_model(per, setup, reps=reps, seed=seed):
            for (name, model), (r, _) in ranks_across_models(each).items():
                across.setdefault(level_key(name, model), []).append(r)
        return {key: interval(rs, 0.95) for key, rs in across.items() if rs}
    else:
        draws = resampled_scores({s.name: s.letters for s in subs if s.name is not None}, setup, reps=reps, seed=seed)
    ranks: dict[str, list[int]] = {s.name: [] for s in subs if s.name is not None}
    for res in draws:
        for name, r in res.ranking:
            ranks.setdefault(name, []).append(r)
    return {name: interval(rs, 0.95) for name, rs in ranks.items() if rs}  # a model part may lack a submission


def render_report(
    results: Results | Mapping[str, Any], run_dir: Path, *, bootstrap: int = 100, thumbs: bool = False
) -> str:
    """The leaderboard HTML: ranking, weights, per-letter heat maps, every trial's thumbnail with its response,
    code, XML and numbers, provenance. Inline CSS, no script, no network; thumbnails, full images and texts are
    relative links into the run folder, loaded lazily (26×10×P data URIs or inline texts would make the page
    tens of MB). ``thumbs``: write the thumbnails a worker did not (``write_report`` does)."""
    from jinja2 import Environment, select_autoescape

    results = coerce(results)
    run_dir = Path(run_dir)
    env = Environment(autoescape=select_autoescape(default=True, default_for_string=True))  # missing keys render empty
    env.filters["short"] = short
    env.filters["heat"] = heat
    template = env.from_string(template_source(TEMPLATE))
    settings = results.settings
    per_model = results.per_model or {}
    subs = [_submission_view(s, run_dir, results, thumbs) for s in results.submissions]
    letters = list(settings.letters or ()) or sorted({c for s in subs for _, ls in s.sections for c in ls})

    def weights_of(weights: Mapping[str, Weight]) -> dict[str, dict[str, Any]]:
        return {c: {k: getattr(weights.get(c, Weight()), k) for k, _ in WEIGHT_ROWS} for c in letters}

    weight_sections: list[tuple[str | None, dict[str, dict[str, Any]]]] = [
        (m, weights_of(d.weights)) for m, d in per_model.items()
    ] or [(None, weights_of(results.weights))]
    intervals = rank_intervals(results, reps=bootstrap)
    for s in subs:
        lo_hi = intervals.get(results.row_key(s.part))
        s.more["rank_interval"] = f"{lo_hi[0]}–{lo_hi[1]}" if lo_hi else ""
    return template.render(
        run=results.run,
        settings=View(settings, {"letters": letters}),
        trials=max(
            [settings.trials or 0] + [len(d.trials) for s in subs for _, ls in s.sections for d in ls.values()] + [1]
        ),
        warnings=warnings(results),
        submissions=subs,
        tie=tie_note(results.submissions, results.settings.tie_break),
        letters=letters,
        weight_sections=weight_sections,
        weight_rows=WEIGHT_ROWS,
        letter_rows=LETTER_ROWS,
        competition_score=results.competition_score,
        any_lengths=any(s.prompt_length is not None for s in subs),
        provenance_rows=_provenance_rows(results),
        schema=results.schema,
        bootstrap=bootstrap if intervals else 0,
        per_model=per_model if results.summed else {},
        each_model=EACH_MODEL if per_model and not results.summed else "",
        folders=results.folders,
        folder_errors=results.folder_errors,
    )


def write_report(results: Results | Mapping[str, Any], run_dir: Path) -> Path:
    """Write ``run_dir/report.html`` (atomically) and return its path."""
    run_dir = Path(run_dir)
    return atomic_write(run_dir / REPORT_FILE, render_report(results, run_dir, thumbs=True))
