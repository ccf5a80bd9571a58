"""`pcg pcgbench random`: the experiment's Random generator under Q, summarised at a few generations as the paper
quotes its Fig. 2 (generations 0, 50, 100, 200), with how many of all the contents it drew were feasible.

It draws uniform contents (`spaces` mode `uniform`, one stream per run seeded with its seed): the distribution of
the paper's own runs, which left the benchmark's spaces unseeded. Random keeps the best `population` of old and
new, so its best quality after generation g is the maximum over population x (g + 1) draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.experiment.run import RunSpec, search

POPULATION = 100
REPORT_GENERATIONS = (0, 50, 100, 200)


def random_run(
    variant: str, generations: int, seed: int, report: Sequence[int] = REPORT_GENERATIONS, population: int = POPULATION
) -> dict[str, Any]:
    """One run: {"best": {g: best quality after g}, "feasible": drawn contents with quality >= 1, "samples"}."""
    curve: list[float] = []
    spec = RunSpec(variant, "random", "q", seed, population, generations, "uniform")
    gen = search(spec, lambda g: curve.append(g.best()))
    wanted = [g for g in sorted(set(report)) if g <= generations]
    return {"best": {g: curve[g] for g in wanted}, "feasible": gen.evaluate.feasible, "samples": gen.evaluate.evaluated}


def random_baseline(
    variant: str, runs: int, generations: int, seed: int = 0, report: Sequence[int] = REPORT_GENERATIONS
) -> dict[str, Any]:
    """Mean (and per-run) best quality at the reported generations over `runs` runs seeded seed, seed+1, ..."""
    curves = [random_run(variant, generations, seed + r, report) for r in range(runs)]
    gens = list(curves[0]["best"])
    return {
        "problem": variant,
        "runs": runs,
        "generations": generations,
        "seed": seed,
        "mean_best": {str(g): float(np.mean([c["best"][g] for c in curves])) for g in gens},
        "per_run_best": {str(g): [c["best"][g] for c in curves] for g in gens},
        "feasible_samples": sum(c["feasible"] for c in curves),
        "samples": sum(c["samples"] for c in curves),
    }
