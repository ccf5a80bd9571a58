"""Dispatch overhead per trial: the same replayed competition under xdist (``-n W``) and on a local Ray cluster
(``--pcg-cluster local:W``: W one-CPU nodes, so W workers either way), on this machine.

    python scripts/bench/bench_cluster.py WORK [--programs 4] [--trials 5] [--letters A-J] [-w 2] [--rounds 2]

WORK holds the competition of ``scripts/bench/bench_replay.py`` (2024 programs, the scripted LLM double, its store,
recorded on the first call). Each round replays it (``--pcg-record none``) once per mode, alternating. For each
run: the items phase (first item reported -> last item reported, from the same clock plugin), the trials' own
work (the per-item stages of results.json: generate, build, simulate, render, classify), and

    overhead per trial = (items phase x W - own work) / trials

the time a worker spends per trial on anything but the trial: handing it out, sending back its record (and, on
the cluster, its files), reporting it. Start-up (to the first report: workers, or the cluster and its actors)
is printed apart. The Ray run
happens inside a loopback-only network namespace (tests/cluster_support.py), Ray's usage statistics off.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts" / "bench"), str(ROOT / "tests")]

from bench_replay import CLOCK, PER_ITEM, make_competition, pytest_cmd  # noqa: E402 - scripts/, put on sys.path above
from cluster_support import netns_preexec, skip_reason  # noqa: E402 - tests/, put on sys.path above


def run(work: Path, out: str, args: argparse.Namespace, cluster: bool) -> dict[str, Any]:
    shutil.rmtree(work / out, ignore_errors=True)
    clock = work / f"{out}.clock.json"
    cmd = pytest_cmd(out, args, "--pcg-record", "none")
    if cluster:
        i = cmd.index("-n")
        cmd[i : i + 2] = ["--pcg-cluster", f"local:{args.workers}"]
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT}{os.pathsep}{work}",
        "BENCH_CLOCK": str(clock),
        "OMP_NUM_THREADS": "1",
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    t0 = time.time()
    proc = subprocess.run(
        cmd,
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=netns_preexec if cluster else None,
    )
    wall = time.time() - t0
    (work / f"{out}.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0 or not (work / out / "results.json").is_file():
        raise SystemExit(f"{out}: exit {proc.returncode}, see {work / f'{out}.log'}\n{proc.stdout[-2000:]}")
    return measure(work, out, args.workers, t0, wall)


def measure(work: Path, out: str, workers: int, t0: float | None = None, wall: float = 0.0) -> dict[str, Any]:
    """The figures of one finished run, from its results.json and clock file (``--measure`` reads them again)."""
    results = json.loads((work / out / "results.json").read_text())
    marks = json.loads((work / f"{out}.clock.json").read_text())
    trials = [t for s in results["submissions"] for d in s["letters"].values() for t in d["trials"]]
    work_s = sum((t.get("timings") or {}).get(k, 0.0) for t in trials for k in PER_ITEM)
    # the workers' loads (the classifier: 96 s a worker under load) happen before their first trial reports,
    # outside the items phase, so they are not counted on either side
    phase = marks["last_item"] - marks["first_item"]  # from the first trial back: the cluster's start is before it
    scores = [(s["name"], s["normalized_score"]) for s in results["submissions"]]
    start = marks["first_item"] - (t0 if t0 is not None else marks["configure"])
    return {
        "wall": wall,
        "start": start,
        "phase": phase,
        "n": len(trials),
        "work": work_s,
        "overhead_ms": 1000 * (phase * workers - work_s) / len(trials),
        "scores": scores,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--programs", type=int, default=4)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--letters", default="A-J")
    parser.add_argument("-w", "--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--measure", action="store_true", help="read the figures of WORK's finished runs again")
    args = parser.parse_args()
    if args.measure:
        runs = sorted(p.name for p in args.work.glob("*-[0-9]*") if (p / "results.json").is_file())
        for out in runs:
            r = measure(args.work, out, args.workers)
            print(
                f"{out}: {r['n']} trials, items phase {r['phase']:.1f} s, own work {r['work']:.1f} s -> overhead "
                f"{r['overhead_ms']:.1f} ms/trial"
            )
        return 0
    reason = skip_reason()
    if reason:
        raise SystemExit(reason)
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    (work / "bench_clock.py").write_text(CLOCK)
    if not (work / "store").exists():
        make_competition(work, args.programs)
        env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{work}", "BENCH_CLOCK": str(work / "live.clock.json")}
        subprocess.run(pytest_cmd("live", args), cwd=work, env=env, capture_output=True, check=True)
    rows: dict[str, list[dict[str, Any]]] = {"xdist": [], "cluster": []}
    for k in range(args.rounds):
        for mode in ("xdist", "cluster") if k % 2 == 0 else ("cluster", "xdist"):
            r = run(work, f"{mode}-{k}", args, cluster=mode == "cluster")
            rows[mode].append(r)
            print(
                f"{mode:7} round {k}: {r['n']} trials, start {r['start']:.1f} s, items phase {r['phase']:.1f} s, "
                f"own work {r['work']:.1f} s -> overhead {r['overhead_ms']:.1f} ms/trial (wall {r['wall']:.1f} s, "
                f"load {os.getloadavg()[0]:.1f})"
            )
    same = all(r["scores"] == rows["xdist"][0]["scores"] for rs in rows.values() for r in rs)
    for mode, rs in rows.items():
        print(
            f"{mode}: dispatch overhead per trial {min(r['overhead_ms'] for r in rs):.1f}-"
            f"{max(r['overhead_ms'] for r in rs):.1f} ms over {len(rs)} runs ({args.workers} workers)"
        )
    print("same scores in every run" if same else "SCORES DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
