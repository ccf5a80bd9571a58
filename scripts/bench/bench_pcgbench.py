"""Milliseconds per content of the PCG Benchmark evaluation (info + quality + controllability) on one core.

Every registered variant (`registry.py`), with no list to keep up to date. Workloads: uniform random contents
(the kind's `sample`, what the random baseline sees; most Sokoban ones fail the precondition and never reach the
solver) and, for the binary, sokoban, zelda, mdungeons and ddave families, "playable-shaped" grids (one player,
k crates and k targets on a random floor for Sokoban, one player/key/door and 3 enemies for Zelda, ~60 % floor
for binary, one player/exit with 8 enemies, 2 potions and 2 treasures for mdungeons, one player/exit/key with 2
diamonds and 2 spikes for ddave), closer to what an LLM writes and exercising the bounded solvers; loderunnertile's
shaped levels (one player, 6 gold, 3 enemies on a random floor) run the reachability play that uniform ones
(rarely one player) skip. The process pins itself to one CPU.
Usage: OMP_NUM_THREADS=1 python scripts/bench/bench_pcgbench.py [--levels 300] [--seed 0] [--problems a,b] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names

PIECES = {
    "sokoban": None,
    "zelda": [2, 3, 4, 5, 5, 5],
    "binary": [],  # by family (the name before the first -)
    "loderunnertile": [2, 3, 3, 3, 3, 3, 3, 4, 4, 4],  # one player, so the reachability play runs
    "mdungeons": [2, 3, 6, 6, 6, 6, 7, 7, 7, 7, 4, 4, 5, 5],  # player, exit, 8 enemies, potions, treasures
    "ddave": [2, 3, 5, 4, 4, 6, 6],
}  # player, exit, key, 2 diamonds, 2 spikes; by family (name before "-")


def shaped(family: str, rng: np.random.Generator, rows: int, cols: int) -> list[list[int]]:
    """A random floor plan with the pieces a feasible level needs, at random distinct cells."""
    floor = 0.6 if family == "binary" else 0.8
    grid = [[int(rng.random() < floor) for _ in range(cols)] for _ in range(rows)]
    pieces = PIECES[family]
    if pieces is None:  # sokoban: 1 player, k crates, k targets
        k = int(rng.integers(1, 4))
        pieces = [2] + [3] * k + [4] * k
    cells = rng.choice(rows * cols, size=len(pieces), replace=False)
    for cell, tile in zip(cells, pieces, strict=True):
        grid[int(cell) // cols][int(cell) % cols] = tile
    return grid


def timed(problem, levels, control) -> dict:
    times = []
    for level in levels:
        start = time.perf_counter()
        evaluate_item(problem, level, control)
        times.append(1000 * (time.perf_counter() - start))
    t = np.array(times)
    return {
        "mean_ms": round(float(t.mean()), 3),
        "p95_ms": round(float(np.percentile(t, 95)), 3),
        "max_ms": round(float(t.max()), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--problems", default=",".join(names()), help="comma-separated variants (default: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    for name in args.problems.split(","):
        problem = get_problem(name)
        rng = np.random.default_rng(args.seed)
        control = problem.native_control({k: lo for k, (lo, _) in problem.control_space.items()})
        row = {
            "problem": name,
            "levels": args.levels,
            "uniform": timed(problem, [problem.content.sample(rng) for _ in range(args.levels)], control),
        }
        family = name.split("-")[0]
        if family in PIECES:
            kind = problem.content
            row["shaped"] = timed(
                problem, [shaped(family, rng, kind.rows, kind.cols) for _ in range(args.levels)], control
            )
        print(
            json.dumps(row)
            if args.json
            else f"{name}: uniform {row['uniform']}" + (f"  shaped {row['shaped']}" if "shaped" in row else ""),
            flush=True,
        )


if __name__ == "__main__":
    main()
