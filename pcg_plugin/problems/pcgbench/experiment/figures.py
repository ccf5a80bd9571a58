"""The paper's figures as numbers, from the run records (its `data_processing.py` computes them this way).

Fig. 2: per generator x fitness, the mean over runs of the best fitness after each generation and its 95 %
interval, Student's t with runs - 1 degrees of freedom around the mean (scipy's `t.interval` with the standard
error; one run, or runs that all agree, give the mean itself). Fig. 3: the runs' elites (each run's best
chromosome) taken as one set: how many are successful (quality >= 1), controlled (controllability >= 1 for
their own control) and unique (diversity >= 1 in the benchmark's greedy over the elites). Beside them, `final`:
the same three counts in each run's final population (`run.final_counts`), averaged over the runs. `cost`: the
CPU time per evaluation, and the paper's protocol projected from it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from pcg_plugin.problems.pcgbench.bench.evaluate import set_diversity
from pcg_plugin.problems.pcgbench.bench.registry import get_problem

Record = dict[str, Any]
CONFIDENCE = 0.95
# The paper's protocol per variant: 3 generators x 3 fitnesses x 10 runs, each (200 + 1) x 100 evaluations.
PAPER_EVALUATIONS = 9 * 10 * 201 * 100


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for 0 <= x <= 1."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1 - front * _beta_fraction(b, a, 1 - x) / b


def t_cdf(t: float, df: int) -> float:
    tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t >= 0 else tail


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (bisection on the CDF, to 1e-12)."""
    lo, hi = -1e6, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(mean, low, high): the t interval of the mean."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    sem = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
    half = t_quantile(0.5 + confidence / 2, n - 1) * sem
    return mean, mean - half, mean + half


def curve(bests: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Fig. 2's line for one generator x fitness: mean, low, high per generation over the runs."""
    cols = [mean_interval([run[g] for run in bests]) for g in range(min(len(run) for run in bests))]
    return {"runs": len(bests), **{k: [round(c[i], 6) for c in cols] for i, k in enumerate(("mean", "low", "high"))}}


def elite_counts(variant: str, elites: Sequence[Record]) -> dict[str, int]:
    """Fig. 3: the elites as one set."""
    problem = get_problem(variant)
    _, per_item = set_diversity(problem, [problem.info(e["content"]) for e in elites])
    return {
        "successful": sum(1 for e in elites if e["quality"] >= 1),
        "controlled": sum(1 for e in elites if e["controllability"] >= 1),
        "unique": sum(1 for v in per_item if v >= 1),
        "runs": len(elites),
    }


def pair_key(record: Record) -> str:
    return f"{record['generator']}-{record['fitness']}"


def summarize(records: Sequence[Record]) -> dict[str, dict[str, Any]]:
    """Per variant: `fig2` curves, `fig3` elite counts, `final` mean counts and the `seconds` spent, per pair."""
    groups: dict[str, dict[str, list[Record]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        groups[r["variant"]][pair_key(r)].append(r)
    out: dict[str, dict[str, Any]] = {}
    for variant, pairs in groups.items():
        out[variant] = {
            "fig2": {k: curve([r["best"] for r in rs]) for k, rs in pairs.items()},
            "fig3": {k: elite_counts(variant, [r["final_population"][0] for r in rs]) for k, rs in pairs.items()},
            "final": {
                k: {c: round(sum(r["final"][c] for r in rs) / len(rs), 3) for c in ("feasible", "controlled", "unique")}
                for k, rs in pairs.items()
            },
            "seconds": {k: round(sum(r["seconds"] for r in rs), 1) for k, rs in pairs.items()},
            "cost": cost([r for rs in pairs.values() for r in rs]),
        }
    return out


def cost(records: Sequence[Record]) -> dict[str, float]:
    """CPU time per evaluated chromosome over `records` (batch diversity included where QTD computed it), and the
    paper's whole protocol on this variant at that rate, in CPU hours on one core."""
    evaluations: int = sum(int(r["evaluated"]) for r in records)
    cpu: float = sum(float(r["cpu_seconds"] if "cpu_seconds" in r else r["seconds"]) for r in records)
    per = cpu / evaluations if evaluations else 0.0
    return {
        "evaluations": evaluations,
        "cpu_seconds": round(cpu, 1),
        "ms_per_evaluation": round(1000 * per, 3),
        "paper_protocol_cpu_hours": round(per * PAPER_EVALUATIONS / 3600, 2),
    }
