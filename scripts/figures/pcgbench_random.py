"""The PCG Benchmark paper's Random baseline (Fig. 2) for any registered variant, next to the paper where it plots one.

Best quality after generation g = max over 100·(g + 1) uniform samples (the experiment's Random generator under Q,
`pcg pcgbench random`); prints the mean over R runs at generations 0, 50, 100, 200, the paper's values (spec
other-problems.md §1.8), and the feasible-sample count. Every generator and fitness: `pcg pcgbench experiment`.
Usage: OMP_NUM_THREADS=1 taskset -c 1 python scripts/figures/pcgbench_random.py [--runs 5] [--generations 200]
       [--seed 0] [--problems binary-v0,sokoban-v0,zelda-v0,building-v0] [--json] (default: every variant)
"""

from __future__ import annotations

import argparse
import json
import time

from pcg_plugin.problems.pcgbench.bench.registry import names
from pcg_plugin.problems.pcgbench.experiment.random_summary import random_baseline

# Fig. 2, Random, mean of 10 runs at generations 0 / 50 / 100 / 200 (decoded from the paper's vector PDF).
PAPER = {
    "binary-v0": {"0": 0.807, "50": 0.911, "100": 0.922, "200": 0.938},
    "sokoban-v0": {"0": 0.590, "50": 0.719, "100": 0.722, "200": 0.722},
    "zelda-v0": {"0": 0.472, "50": 0.475, "100": 0.476, "200": 0.476},
    "building-v0": {"0": 0.636, "50": 0.709, "100": 0.718, "200": 0.730},
    "loderunner-v0": {"0": 0.245, "50": 0.246, "100": 0.246, "200": 0.246},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--generations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--problems", default=",".join(names()))
    parser.add_argument("--json", action="store_true", help="one JSON line per problem")
    args = parser.parse_args()
    for name in args.problems.split(","):
        start = time.perf_counter()
        result = random_baseline(name, args.runs, args.generations, args.seed)
        result["seconds"] = round(time.perf_counter() - start, 1)
        result["ms_per_sample"] = round(1000 * result["seconds"] / result["samples"], 3)
        result["paper"] = PAPER.get(name, {})
        if args.json:
            print(json.dumps(result), flush=True)
            continue
        cells = "  ".join(
            f"g{g}: {v:.3f} (paper {result['paper'].get(g, float('nan')):.3f})" for g, v in result["mean_best"].items()
        )
        print(
            f"{name}: {cells}  feasible {result['feasible_samples']}/{result['samples']}  "
            f"{result['ms_per_sample']} ms/sample",
            flush=True,
        )


if __name__ == "__main__":
    main()
