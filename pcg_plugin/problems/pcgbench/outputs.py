"""The end of a PCG Benchmark run: score, write `results.json` (schema `pytest-pcg/pcgbench-results/1`, described
in docs/pcgbench-results.md) and the HTML leaderboard, and the terminal summary lines.

Science Birds' typed document (`pcg_plugin/problems/science_birds/results.py`) is built around letters, official
weights and stage files; these problems have none of them, so they write their own, smaller document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.numbers import fixed
from pcg_plugin.core.contract.banner import unofficial
from pcg_plugin.core.contract.base import Finished, WorkerStats, merged_facts
from pcg_plugin.core.stats.intervals import level_key, rank_text
from pcg_plugin.problems.pcgbench import PINNED_COMMIT, PLACES
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.instances import instances
from pcg_plugin.problems.pcgbench.records import BenchRecord
from pcg_plugin.problems.pcgbench.scoring import InstanceScore, rank, score_submission
from pcg_plugin.problems.pcgbench.settings import BenchSettings
from pcg_plugin.problems.pcgbench.worker import SAMPLING

SCHEMA = "pytest-pcg/pcgbench-results/1"
FILE = "results.json"


def _trial(record: BenchRecord, unique: bool) -> dict[str, Any]:
    return {
        "trial": record.trial,
        "reason": record.reason,
        "message": record.message,
        "quality": record.quality,
        "controllability": record.controllability,
        "feasible": record.feasible,
        "controlled": record.controlled,
        "unique": unique,
        "content": record.content,
        "info": record.info,
        "response": record.response,
        "usage": record.usage,
        "timings": {k: round(v, 4) for k, v in record.timings.items()},
    }


def _instance(
    score: InstanceScore, control: Any, records: list[BenchRecord], errors: Mapping[int, str]
) -> dict[str, Any]:
    by_trial = {r.trial: r for r in records}
    trials = []
    for n in range(1, score.trials + 1):
        if n in by_trial:
            trials.append(_trial(by_trial[n], n in score.unique_trials))
        else:  # errored: no record, a zero
            trials.append({"trial": n, "reason": "error", "message": errors.get(n, "no record (the item did not run)")})
    return {
        "id": score.instance,
        "control": control,
        "score": score.score,
        "valid": score.valid,
        "feasible": score.feasible,
        "controlled": score.controlled,
        "unique": score.unique,
        "passed": score.passed,
        "diversity": score.diversity,
        "trials": trials,
    }


def results_document(
    settings: BenchSettings,
    run: Mapping[str, Any],
    collected: Any,
    facts: Mapping[str, Any],
    provenance: Mapping[str, Any],
) -> dict[str, Any]:
    """The whole document: what ran, each submission's scores down to every trial, what failed."""
    problem = get_problem(settings.problem)
    insts = instances(problem, settings.instance_count, settings.seed)
    records = [r for r in collected.records.values() if isinstance(r, BenchRecord)]
    metas = {m["name"]: m for m in collected.items.values()}
    names = sorted(metas)
    ids = [i.id for i in insts]
    levels: tuple[str | None, ...] = settings.models if settings.multi_model else (None,)
    ranked = rank(
        (score_submission(problem, n, records, ids, settings.trials, lv) for n in names for lv in levels), levels
    )
    errors: dict[tuple[str, str | None, str, int], str] = {}
    for nodeid, message in collected.errors.items():
        meta = collected.items.get(nodeid, {})
        if "instance" in meta:
            errors[(meta["name"], meta.get("model"), meta["instance"], int(meta["trial"]))] = message
    one_model = facts.get("model") or settings.model
    subs = []
    for s in ranked:
        per = []
        for score, inst in zip(s.instances, insts, strict=True):  # scored per instance id, in this order
            mine = [r for r in records if r.submission == s.name and r.model == s.model and r.instance == inst.id]
            errs = {t: m for (n, lv, i, t), m in errors.items() if (n, lv, i) == (s.name, s.model, inst.id)}
            per.append(_instance(score, inst.control, mine, errs))
        meta = metas[s.name]
        subs.append(
            {
                "rank": s.rank,
                "rank_in_model": s.rank_in_model,
                "name": s.name,
                "model": s.model or one_model,
                "key": level_key(s.name, s.model),
                "format": meta.get("format"),
                "path": meta.get("path"),
                "score": s.score,
                "feasible": s.fraction("feasible"),
                "controlled": s.fraction("controlled"),
                "unique": s.fraction("unique"),
                "diversity_all": s.diversity_all,
                "diversity_instance_mean": sum(i.diversity for i in s.instances) / len(s.instances),
                "zero_reasons": s.reasons,
                "errored_trials": sum(1 for k in errors if k[:2] == (s.name, s.model)),
                "instances": per,
            }
        )
    return {
        "schema": SCHEMA,
        "problem": f"pcgbench/{problem.name}",
        "benchmark": {
            "name": problem.name,
            "source": "amidos2006/pcg_benchmark",
            "commit": PINNED_COMMIT,
            **problem.content.facts(),
            "control_space": problem.control_ranges(),
        },
        "run": {
            "id": run["id"],
            "started": run["started"],
            "out_dir": run["run_dir"],
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        },
        "settings": {
            **settings.to_dict(),
            "backend_used": facts.get("backend"),
            "model_used": facts.get("model"),
            **SAMPLING,  # what every request sent: the gate compares it like for like (core/results/like_for_like.py)
        },
        "scoring": "score = mean over instances of (trials feasible AND controlled AND unique) / trials",
        "models": list(settings.models),
        "instances": [{"id": i.id, "control": i.control} for i in insts],
        "submissions": subs,
        "errors": dict(sorted(collected.errors.items())),
        "folder_errors": dict(sorted(collected.folder_problems.items())),
        "provenance": dict(provenance),
    }


def finish_run(config: Any, run: Mapping[str, Any], collected: Any, worker_stats: WorkerStats) -> Finished:
    from pcg_plugin._util import provenance
    from pcg_plugin._util.paths import REPO_ROOT
    from pcg_plugin.core.contract.problem import SETTINGS_KEY, problem_of
    from pcg_plugin.core.results import runs
    from pcg_plugin.problems.pcgbench.report import write_report
    from pcg_plugin.problems.pcgbench.worker import CONTEXT_KEY

    settings = config.stash[SETTINGS_KEY]
    ctx = config.stash.get(CONTEXT_KEY, None)
    facts = merged_facts(worker_stats, ctx.facts() if ctx else {})
    doc = results_document(settings, run, collected, facts, provenance.collect(REPO_ROOT))
    runs.annotate(problem_of(config), doc, doc["submissions"], name_key="key")
    run_dir = Path(run["run_dir"])
    atomic_write(run_dir / FILE, json.dumps(doc, indent=1) + "\n")
    return doc, write_report(doc, run_dir)


ZERO_LINES = 40  # zero trials listed one per line in the terminal; the rest are counted (all are in the report)


def zero_lines(results: Mapping[str, Any], limit: int = ZERO_LINES) -> list[str]:
    """One line per trial that scored 0, naming submission, instance, trial, reason and what was wrong."""
    zeros = [
        f"ZERO {s.get('key', s['name'])} instance {i['id']} trial {t['trial']}: {t['reason']} (scored 0): "
        f"{t['message']}"
        for s in results["submissions"]
        for i in s["instances"]
        for t in i["trials"]
        if t.get("reason") and t["reason"] != "error"
    ]
    if len(zeros) > limit:
        zeros = [
            *zeros[:limit],
            f"... and {len(zeros) - limit} more trials scored 0 (each in results.json and the report)",
        ]
    return zeros


def summary_lines(
    results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
) -> list[str]:
    """The leaderboard under `pytest-pcg leaderboard`: one line per submission, each trial that scored 0, what
    was not evaluated or errored (scored 0 too), then where the run lies."""
    if error is not None or results is None:
        return [f"scoring the run failed: {error}", f"run folder: {run_dir}"]
    banner = unofficial(results.get("settings", {}))
    lines = ([banner] if banner else []) + [
        f"{results['problem']}: score = mean over instances of feasible AND controlled AND unique trials"
    ]

    def n(value: Any) -> str:
        return fixed(value, PLACES)

    several = len(results.get("models") or ()) > 1
    for s in results["submissions"]:
        zeros = ", ".join(f"{k} {v}" for k, v in s["zero_reasons"].items())
        model = f" {s['model']} (#{s['rank_in_model']} of its model)" if several else ""
        lines.append(
            f"{s['rank']}. [95% rank {rank_text(s.get('rank_interval'))}] {s['name']}{model} score {n(s['score'])} "
            f"(feasible {n(s['feasible'])}, controlled {n(s['controlled'])}, unique {n(s['unique'])}; "
            f"diversity {n(s['diversity_all'])} over all trials){'; zeros: ' + zeros if zeros else ''}"
        )
    lines += zero_lines(results)
    lines += [f"ERRORED {node} (missing, scored 0): {why}" for node, why in results["errors"].items()]
    lines += [f"NOT EVALUATED {node}: {why}" for node, why in results["folder_errors"].items()]
    lines.append(f"run folder: {run_dir}")
    if report is not None:
        lines.append(f"report: {report}")
    return lines
