"""Options and the frozen settings of a PCG Benchmark harness run (shared LLM options plus the instance choice).

The targets of the harness are instances: control values drawn from the benchmark problem's control space
(`instances.py`). Defaults are small on purpose: 3 instances × 3 trials per submission (2 × 2 with the offline
default LLM, which writes a grid slowly and mostly wrong).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pytest

from pcg_plugin.llm import options as run_options
from pcg_plugin.llm.options import Option, parse_trials

DEFAULT_INSTANCES = 3
DEFAULT_TRIALS = 3
OFFLINE_INSTANCES = 2
OFFLINE_TRIALS = 2
DEFAULT_SEED = 0

OPTIONS: tuple[Option, ...] = (
    Option(
        "--pcg-grid-instances",
        "PCG Benchmark problems: how many control values (instances) to evaluate, drawn "
        "with a seeded RNG from the problem's control space (default 3; 2 with the offline default LLM)",
    ),
    Option("--pcg-grid-seed", "PCG Benchmark problems: seed of the instance draw (default 0)"),
    run_options.CONSTRAIN,
)


add_options = run_options.problem_options(OPTIONS)


@dataclass(frozen=True)
class BenchSettings(run_options.RunSettings):
    """What a run evaluates and how; identical on the controller and every worker (the shared fields:
    ``RunSettings``)."""

    problem: str  # the benchmark problem ("binary-v0")
    instance_ids: tuple[str, ...] = ()
    instance_count: int = DEFAULT_INSTANCES
    seed: int = DEFAULT_SEED
    trials: int = field(default=DEFAULT_TRIALS, kw_only=True)
    constrain: str = "off"  # "content": in-process answers under the variant's answer grammar

    @property
    def targets(self) -> tuple[str, ...]:
        return self.instance_ids


def resolve(
    problem: str,
    raw: Mapping[str, str | None],
    *,
    rootdir: Path,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> BenchSettings:
    """Raw option strings -> settings; raises ValueError naming the bad option."""
    from pcg_plugin.problems.pcgbench.bench.registry import get_problem
    from pcg_plugin.problems.pcgbench.instances import instances

    get = partial(run_options.given, raw)

    run = run_options.basics(raw, rootdir=rootdir, cwd=cwd, env=env)
    backend, offline = run.backend, run.offline
    count_raw = run_options.chosen(raw, "pcg_grid_instances", "give how many instances, at least 1")
    trials_raw, seed_raw = get("pcg_trials"), get("pcg_grid_seed")
    count = run_options.whole("pcg_grid_instances", count_raw, 1) if count_raw else DEFAULT_INSTANCES
    trials = parse_trials(trials_raw) if trials_raw else DEFAULT_TRIALS
    seed = run_options.whole("pcg_grid_seed", seed_raw, 0) if seed_raw else DEFAULT_SEED
    notes: list[str] = []
    if offline and backend in (None, "auto") and not (count_raw and trials_raw):
        count = count if count_raw else OFFLINE_INSTANCES
        trials = trials if trials_raw else OFFLINE_TRIALS
        notes.append(
            f"offline default LLM: evaluating {count} instances x {trials} trials "
            "(set --pcg-grid-instances/--pcg-trials for more)"
        )
    model = get("pcg_model")
    if len(run_options.parse_models(model, backend)) > 1 and offline:  # a model named twice is refused there too
        raise ValueError(
            f"--pcg-model: several models ({model}) need a backend that serves them (--pcg-base-url, "
            "--pcg-backend, or a BACKEND/ prefix on each: scripted/module:function), not the offline default"
        )
    if not offline and not model:
        raise ValueError(
            f"--pcg-model: the PCG Benchmark problems have no official model; name the one "
            f"--pcg-backend {backend or 'auto'} should ask"
        )
    from pcg_plugin.llm.constrain import resolve_mode

    constrain = resolve_mode(get("pcg_constrain"), backend=backend, offline=offline, model=model, on="content")
    if constrain == "content" and get_problem(problem).content.answer_regex() is None:
        if get("pcg_constrain"):
            raise ValueError(f"--pcg-constrain content: {problem} has no answer grammar")
        constrain = "off"
    if constrain == "content":
        notes.append(
            "answers of the in-process model are generated under the variant's answer grammar "
            "(--pcg-constrain content; off: --pcg-constrain off)"
        )
    ids = tuple(i.id for i in instances(get_problem(problem), count, seed))
    return BenchSettings(
        problem=problem,
        instance_ids=ids,
        instance_count=count,
        seed=seed,
        trials=trials,
        model=model,
        **run.settings(),
        constrain=constrain,
        notes=tuple(notes),
    )


def from_config(problem: str, config: pytest.Config) -> BenchSettings:
    """The run's settings; a bad value is a usage error naming the option, never a traceback."""
    return run_options.settings_from(config, OPTIONS, partial(resolve, problem))
