"""Benchmark: milliseconds per level of simulate + render on the Unity calibration set, on one core.

Usage: python scripts/bench_pipeline.py [--repeat 3]
Pins the process to one CPU (where the OS allows) and limits numpy/torch threads, then prints the median and
percentiles of (physics + render) per level, and each stage's median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pcg_plugin.problems.science_birds.levelxml import parse_level  # noqa: E402
from pcg_plugin.paths import shared_data  # noqa: E402
from pcg_plugin.problems.science_birds.physics import PhysicsSettings  # noqa: E402
from pcg_plugin.problems.science_birds.pipeline import evaluate_level  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="passes over the set (best pass per level)")
    parser.add_argument("--no-early-stop", action="store_true", help="always run all 500 steps")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    settings = PhysicsSettings(stop_when_asleep=not args.no_early_stop)
    levels = [parse_level(p.read_text()) for p in sorted((shared_data() / "unity-2023-calibration").glob("*/levels/*/*.xml"))]
    evaluate_level(levels[0], settings)  # warm imports
    best: list[tuple[float, float, float]] = []
    for level in levels:
        runs = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            ev = evaluate_level(level, settings)
            runs.append((time.perf_counter() - t, ev.timings["physics"], ev.timings["render"]))
        best.append(min(runs))
    total = sorted(1000 * b[0] for b in best)
    q = statistics.quantiles(total, n=10)
    print(f"{len(levels)} levels, early stop {'off' if args.no_early_stop else 'on'}, 1 core")
    print(f"simulate+render per level: median {statistics.median(total):.1f} ms, p10 {q[0]:.1f}, p90 {q[-1]:.1f}, "
          f"max {total[-1]:.1f}")
    print(f"  physics median {statistics.median(1000 * b[1] for b in best):.1f} ms, "
          f"render median {statistics.median(1000 * b[2] for b in best):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
