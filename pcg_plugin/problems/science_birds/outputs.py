"""The run folder: official per-team layout, per-trial artefact paths, results.json and the HTML report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_save, atomic_write
from pcg_plugin._util.paths import stem as file_stem
from pcg_plugin.core.contract.base import Finished, WorkerStats, merged_facts
from pcg_plugin.problems.science_birds import results
from pcg_plugin.problems.science_birds.editions import edition
from pcg_plugin.problems.science_birds.level.animate import animation_rel as animation_rel  # the trial's path
from pcg_plugin.problems.science_birds.records import TrialRecord
from pcg_plugin.problems.science_birds.report.official_layout import model_folder
from pcg_plugin.problems.science_birds.results import Results, Run
from pcg_plugin.problems.science_birds.results import Settings as ResultsSettings


def trial_paths(submission: str, letter: str, trial: int, model: str | None = None) -> dict[str, str]:
    """Official relative paths of one trial's artefacts (``<team>/raw/<C>/<team>_<C>_<n>.txt`` ...); with
    several models, under that model's own tree (``<model folder>/<team>/raw/...``)."""
    stem = file_stem(submission, letter, trial)
    root = f"{model_folder(model)}/{submission}" if model is not None else submission
    return {
        "raw": f"{root}/raw/{letter}/{stem}.txt",
        "code": f"{root}/intermediate/{letter}/{stem}.txt",
        "level": f"{root}/levels/{letter}/{stem}.xml",
        "image": f"{root}/images/{letter}/{stem}.png",
    }


def write_animation(run_dir: Path, rel: str, level: Any, frames: Sequence[Any], physics: Any) -> Path | None:
    """The level through the simulated seconds, from the poses the scoring simulation recorded."""
    from pcg_plugin.problems.science_birds.level.animate import write_animation as write_gif

    return write_gif(run_dir / rel, level, frames, physics)


def write_text(run_dir: Path, rel: str, text: str) -> Path:
    """Write one artefact atomically (a reader never sees half a file); each item owns its own paths."""
    return atomic_write(run_dir / rel, text, newline="")


def write_image(run_dir: Path, rel: str, image: Any) -> Path:
    """The trial's image and, beside report.html, its thumbnail (made here, in the worker, from the image in
    memory: the end of the run then has nothing left to shrink)."""
    from pcg_plugin.problems.science_birds.report.thumbnails import write_thumbnail

    # optimize: the same pixels in about 25% fewer bytes (14 ms), the largest file a trial keeps
    path = atomic_save(run_dir / rel, lambda tmp: image.save(tmp, format="PNG", optimize=True))
    write_thumbnail(run_dir, rel, image)
    return path


def write_stage_files(run_dir: Path, grouped: Mapping[str, Mapping[str, Sequence[TrialRecord]]], trials: int) -> None:
    """stability/, similarity/ and diversity/ JSONs per team and letter, in the official schemas, so the official
    diversity and scoring scripts can re-check the run from disk."""
    from pcg_plugin.problems.science_birds.report import official_layout

    for name, letters in grouped.items():
        for letter, records in letters.items():
            official_layout.write_stage_files(run_dir / name, name, letter, records, trials)


def write_report(results: Results, run_dir: Path) -> Path | None:
    """The HTML leaderboard, once ``report_html`` is on main; its absence is not an error."""
    try:
        from pcg_plugin.problems.science_birds.report import html as report_html
    except ImportError:
        return None
    return report_html.write_report(results, run_dir)


def settings_document(settings: Any, facts: Mapping[str, Any]) -> ResultsSettings:
    """The ``settings`` object of results.json: what was asked for, completed by what the workers loaded."""
    profile = facts.get("profile", {})
    backend = facts.get("backend", {})
    seed_policy = None
    if backend.get("per_trial_seed"):
        seed_policy = "per-trial"  # local models sample with a seed derived from the trial's identity
    elif "seed" in profile:
        seed_policy = f"fixed:{profile['seed']}" if profile["seed"] is not None else "none"
    return ResultsSettings(
        edition=settings.edition,
        letters=tuple(settings.letters),
        trials=settings.trials,
        backend=backend.get("name") or settings.backend or "auto",
        offline_default=bool(backend.get("offline_default", settings.offline_default)),
        model=facts.get("model") or profile.get("model") or settings.model,
        base_url=profile.get("base_url") or settings.base_url,
        temperature=profile.get("temperature"),
        seed_policy=seed_policy,
        max_time=profile.get("max_time"),
        token_limit=profile.get("token_limit"),
        record_mode=settings.record,
        classifier=facts.get("classifier"),
        physics=facts.get("physics"),
        diversity_vector=edition(settings.edition).diversity_vector or "probs",
        disable_weights=settings.disable_weights,
        tie_break=settings.tie_break,
        constrained_decoding=constrained_decoding(backend.get("constrain", settings.constrain)),
        unmodified_response=settings.unmodified_response,
        notes=tuple(settings.notes),
    )


def constrained_decoding(mode: str | None) -> str | None:
    """results.json's record of the grammar the answers were generated under (None: the model's own text)."""
    if not mode or mode == "off":
        return None
    return f"{mode} grammar (llguidance, pcg_plugin/llm/constrain.py)"


def with_rank_intervals(doc: Results, reps: int = 100) -> Results:
    """Every submission with ``rank_interval: [low, high]`` (the report's bootstrap; null with nothing to
    resample, e.g. one submission)."""
    from pcg_plugin.problems.science_birds.report.html import rank_intervals

    found = rank_intervals(doc, reps=reps)
    subs = tuple(
        replace(s, extra={**s.extra, "rank_interval": list(found[k]) if (k := doc.row_key(s)) in found else None})
        for s in doc.submissions
    )
    return replace(doc, submissions=subs)


def finish_run(config: Any, run: dict[str, Any], collected: Any, worker_stats: WorkerStats) -> Finished:
    """Controller, once: score, write the official stage files, result/, results.json and the HTML report."""

    from pcg_plugin._util import provenance
    from pcg_plugin._util.paths import REPO_ROOT
    from pcg_plugin.core.contract.problem import SETTINGS_KEY
    from pcg_plugin.problems.science_birds.report import official_layout
    from pcg_plugin.problems.science_birds.scoring import aggregate
    from pcg_plugin.problems.science_birds.worker import CONTEXT_KEY

    settings = config.stash[SETTINGS_KEY]
    run_dir = Path(run["run_dir"])
    run_dir.mkdir(parents=True, exist_ok=True)
    facts = merged_facts(worker_stats, config.stash[CONTEXT_KEY].facts())
    several = settings.multi_model
    summed = edition(settings.edition).several_models  # 2025 sums its models; 2023, 2024 score each alone
    score = (aggregate.score_models if summed else aggregate.score_each) if several else aggregate.score
    result: Any
    result, _numbers, letters = score(collected, settings)
    run_doc = Run(
        id=run["id"],
        started=run["started"],
        finished=datetime.now(UTC).isoformat(timespec="seconds"),
        out_dir=str(run_dir),
    )
    settings_doc = settings_document(settings, facts)
    if several:
        settings_doc = replace(settings_doc, models=tuple(result.per_model))
    doc = aggregate.results_document(
        collected,
        settings,
        run=run_doc,
        settings_doc=settings_doc,
        provenance=provenance.collect(REPO_ROOT),
        result=result,
        letters=letters,
        workers=worker_stats,
        folders=run.get("folders", ()),
    )
    if several:  # the official layout once per model: <model folder>/<team>/..., <model folder>/result/
        for model, model_result in result.per_model.items():
            model_dir = run_dir / model_folder(model)
            write_stage_files(model_dir, aggregate.group(collected.for_model(model).records.values()), settings.trials)
            official_layout.write_results(model_dir / "result", model_result)
    else:
        write_stage_files(run_dir, aggregate.group(collected.records.values()), settings.trials)
        official_layout.write_results(run_dir / "result", result)
    doc = with_rank_intervals(doc)
    results.write(run_dir / results.FILE, doc)
    return doc.to_dict(), write_report(doc, run_dir)
