"""The experiment's generators as leaderboard entries: per variant and generator x fitness, a submission folder
holding a TrialLoop program (the `pcgbench-program` form) that answers each trial with a run's elite, so the
harness scores Random, ES and GA on its instances beside any prompt, with the benchmark's own quality,
controllability and diversity.

Trial t (1-based) answers the elite of the t-th run (seed S + t - 1, wrapping past the last run): the chromosome
each run ranked first, the same level for every instance. The generators were never told an instance's control
(each chromosome carries a control of its own), so their controllability on an instance is what their levels
happen to meet, as in the paper, whose generators draw their controls.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.experiment.fitness import SHOWN
from pcg_plugin.problems.pcgbench.experiment.pictures import NAMES

PROGRAM = '''"""A PCG Benchmark baseline from `pcg pcgbench experiment`: trial t answers the elite of run t
(answers.json, one reply per run, in the order of their seeds; trials past the last run wrap around)."""

import json
from pathlib import Path

from llms4pcg.models.trial_context import TrialContext
from llms4pcg.models.trial_loop import TrialLoop

ANSWERS = json.loads((Path(__file__).parent / "answers.json").read_text())


class Baseline(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, task: str) -> str:
        return ANSWERS[(ctx.get_trial_number() - 1) % len(ANSWERS)]
'''


def team(generator: str, fitness: str) -> str:
    return f"{NAMES.get(generator, generator)} ({SHOWN.get(fitness, fitness)})"


def write_baseline(folder: Path, variant: str, runs: Sequence[Mapping[str, Any]]) -> Path:
    """One submission folder from the runs of one generator x fitness on `variant` (in seed order)."""
    problem = get_problem(variant)
    runs = sorted(runs, key=lambda r: r["seed"])
    elites = [{"seed": r["seed"], **r["final_population"][0]} for r in runs]
    first = runs[0]
    atomic_write(folder / "answers.json", json.dumps([problem.content.show(e["content"]) for e in elites]))
    atomic_write(folder / "elites.json", json.dumps(elites))
    atomic_write(folder / "baseline.py", PROGRAM)
    manifest = f'entry = "baseline.py"\nteam = "{team(first["generator"], first["fitness"])}"\n'
    atomic_write(folder / "submission.toml", manifest)
    return folder


def write_baselines(out: Path, records: Sequence[Mapping[str, Any]]) -> list[Path]:
    """`<out>/baselines/<variant>/<generator>-<fitness>/` for every pair run: name `<out>/baselines/<variant>`
    on a `pytest --pcg-problem pcgbench/<variant>` command line beside other submissions."""
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["variant"], r["generator"], r["fitness"])].append(r)
    return [
        write_baseline(out / "baselines" / variant / f"{generator}-{fitness}", variant, runs)
        for (variant, generator, fitness), runs in groups.items()
    ]
