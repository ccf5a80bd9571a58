"""Milliseconds per content of the PCG Benchmark's simulation problems (talakat, arcade, smb): info + quality +
controllability on uniform random contents of each variant, on one core; with the random contents' quality
(mean, max, share feasible = quality 1, share invalid = refused by the kind's check), the random baseline's
one-sample statistics. Uniform Mario levels never pass the gate that plays them, so smb and smbtile also get
a "sparse" workload: empty levels (ground only) with a few random slices or tiles, most of which are played.

Usage: OMP_NUM_THREADS=1 taskset -c 1 python scripts/bench/bench_pcgbench_simulation.py [--contents 20] [--seed 0]
       [--problems talakat arcade smb] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from pcg_plugin.problems.pcgbench.bench.registry import REGISTRY, get_problem
from pcg_plugin.problems.pcgbench.games.arcade import problem as arcade
from pcg_plugin.problems.pcgbench.games.smb import problem as smb
from pcg_plugin.problems.pcgbench.games.talakat import problem as talakat

MODULES = {"talakat": talakat, "arcade": arcade, "smb": smb}
SPARSE = 4  # random slices (smb) or tiles (smbtile) put into an empty level


def makers(module) -> tuple:
    return (module.make, getattr(module, "make_tile", None))


def sparse(problem, rng: np.random.Generator):
    """Ground only, then SPARSE random slices or tiles at random places (what the gate tends to play)."""
    content = problem.content.sample(rng)
    if isinstance(content[0], list):  # smbtile: 14 sky rows over 2 ground rows
        rows, cols = len(content), len(content[0])
        content = [[0] * cols for _ in range(rows - 2)] + [[1] * cols for _ in range(2)]
        for _ in range(SPARSE):
            content[int(rng.integers(0, rows))][int(rng.integers(0, cols))] = int(rng.integers(0, 10))
        return content
    content = [0] * len(content)
    for _ in range(SPARSE):
        content[int(rng.integers(0, len(content)))] = int(rng.integers(0, problem.content.count))
    return content


def control_of(problem, rng: np.random.Generator):
    """A drawn control in the benchmark's own JSON (talakat's list, arcade's map)."""
    if problem.sample_control is not None:
        return problem.native_control(problem.sample_control(rng))
    return problem.native_control({k: int(rng.integers(lo, hi)) for k, (lo, hi) in problem.control_space.items()})


def timed(problem, contents, control) -> dict:
    times, qualities = [], []
    for content in contents:
        start = time.perf_counter()
        quality = 0.0
        if problem.content.check(content) is None:
            info = problem.info(content)
            quality = problem.quality(info)
            problem.controllability(info, control)
        times.append(1000 * (time.perf_counter() - start))
        qualities.append(quality)
    t, q = np.array(times), np.array(qualities)
    invalid = sum(problem.content.check(c) is not None for c in contents)
    return {
        "contents": len(times),
        "mean_ms": round(float(t.mean()), 2),
        "p95_ms": round(float(np.percentile(t, 95)), 2),
        "max_ms": round(float(t.max()), 2),
        "mean_quality": round(float(q.mean()), 4),
        "max_quality": round(float(q.max()), 4),
        "feasible": round(float((q >= 1).mean()), 4),
        "invalid": round(invalid / len(contents), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contents", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--problems", nargs="+", choices=sorted(MODULES), default=sorted(MODULES, reverse=True))
    args = parser.parse_args()
    rows = {}
    for module in (MODULES[name] for name in args.problems):
        for name in (n for n, (maker, _) in REGISTRY.items() if maker in makers(module)):
            problem = get_problem(name)
            rng = np.random.default_rng(args.seed)
            workloads = {name: [problem.content.sample(rng) for _ in range(args.contents)]}
            if module is smb:
                workloads[f"{name} sparse"] = [sparse(problem, rng) for _ in range(args.contents)]
            for label, contents in workloads.items():
                rows[label] = timed(problem, contents, control_of(problem, rng))
                if not args.json:
                    print(f"{label:29s} " + "  ".join(f"{k} {v}" for k, v in rows[label].items()), flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
