"""The paper's Random baseline (Fig. 2): best quality after g generations of 100 uniform samples each.

Random search keeps the best 100 of old and new, so its best quality after generation g is the maximum over
100·(g + 1) i.i.d. uniform contents — a pure sampling statistic; quality depends on content only, so the
controls and the batch diversity the benchmark also computes do not change it and are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem

POPULATION = 100
REPORT_GENERATIONS = (0, 50, 100, 200)


@dataclass(frozen=True)
class RunCurve:
    """One run: best quality after each reported generation, and how many samples had quality ≥ 1."""

    best: dict[int, float]
    feasible: int
    samples: int


def random_run(
    problem: BenchProblem, generations: int, seed: int | None, report: Sequence[int] = REPORT_GENERATIONS
) -> RunCurve:
    """Draw 100·(generations + 1) contents from one seeded RNG and track the running best quality."""
    rng = np.random.default_rng(seed)
    wanted = sorted(g for g in report if g <= generations)
    best, feasible, curve = 0.0, 0, {}
    for gen in range(generations + 1):
        for _ in range(POPULATION):
            q = problem.quality(problem.info(problem.content.sample(rng)))
            best = max(best, q)
            feasible += q >= 1
        if gen in wanted:
            curve[gen] = best
    return RunCurve(curve, feasible, POPULATION * (generations + 1))


def random_baseline(
    problem: BenchProblem, runs: int, generations: int, seed: int = 0, report: Sequence[int] = REPORT_GENERATIONS
) -> dict:
    """Mean (and per-run) best quality at the reported generations over `runs` runs seeded seed, seed+1, …"""
    curves = [random_run(problem, generations, seed + r, report) for r in range(runs)]
    gens = sorted(curves[0].best)
    return {
        "problem": problem.name,
        "runs": runs,
        "generations": generations,
        "seed": seed,
        "mean_best": {str(g): float(np.mean([c.best[g] for c in curves])) for g in gens},
        "per_run_best": {str(g): [c.best[g] for c in curves] for g in gens},
        "feasible_samples": sum(c.feasible for c in curves),
        "samples": sum(c.samples for c in curves),
    }
