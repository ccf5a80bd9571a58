"""Milliseconds per level of the PCG Benchmark evaluation (info + quality + controllability) on one core.

Two workloads per problem: uniform random grids (what the random baseline sees; most Sokoban ones fail the
precondition and never reach the solver) and "playable-shaped" grids (one player, k crates and k targets on
a random floor for Sokoban, one player/key/door and 3 enemies for Zelda, ~60 % floor for binary), which is
closer to what an LLM writes and, for Sokoban, exercises the bounded solver.
Usage: OMP_NUM_THREADS=1 taskset -c 1 python scripts/bench_pcgbench.py [--levels 300] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from pcg_plugin.problems.pcgbench.content import sample_grid
from pcg_plugin.problems.pcgbench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.registry import PROBLEMS, get_problem

PIECES = {"sokoban-v0": None, "zelda-v0": [2, 3, 4, 5, 5, 5], "binary-v0": []}


def shaped(name: str, rng: np.random.Generator, rows: int, cols: int) -> list[list[int]]:
    """A random floor plan with the pieces a feasible level needs, at random distinct cells."""
    floor = 0.6 if name == "binary-v0" else 0.8
    grid = [[int(rng.random() < floor) for _ in range(cols)] for _ in range(rows)]
    pieces = PIECES[name]
    if pieces is None:  # sokoban: 1 player, k crates, k targets
        k = int(rng.integers(1, 4))
        pieces = [2] + [3] * k + [4] * k
    cells = rng.choice(rows * cols, size=len(pieces), replace=False)
    for cell, tile in zip(cells, pieces):
        grid[int(cell) // cols][int(cell) % cols] = tile
    return grid


def timed(problem, levels, control) -> dict:
    times = []
    for level in levels:
        start = time.perf_counter()
        evaluate_item(problem, level, control)
        times.append(1000 * (time.perf_counter() - start))
    t = np.array(times)
    return {"mean_ms": round(float(t.mean()), 3), "p95_ms": round(float(np.percentile(t, 95)), 3),
            "max_ms": round(float(t.max()), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for name in PROBLEMS:
        problem = get_problem(name)
        rng = np.random.default_rng(args.seed)
        control = {k: lo for k, (lo, _) in problem.control_space.items()}
        uniform = [sample_grid(rng, problem.rows, problem.cols, problem.alphabet) for _ in range(args.levels)]
        shaped_levels = [shaped(name, rng, problem.rows, problem.cols) for _ in range(args.levels)]
        row = {"problem": name, "levels": args.levels, "uniform": timed(problem, uniform, control),
               "shaped": timed(problem, shaped_levels, control)}
        print(json.dumps(row) if args.json else
              f"{name}: uniform {row['uniform']}  shaped {row['shaped']}", flush=True)


if __name__ == "__main__":
    main()
