"""What `pcg site` costs over competition-sized runs: the bytes it adds to the run folders it takes in and its
build time, for 10 runs of 2,600 trials, then the second build with one run more (incremental), then a build
with nothing new.

    python scripts/bench/bench_site.py WORK [--runs 10] [--trials 10] [--resamples 200]

One real Science Birds run is made as scripts/bench/bench_viewer.py makes it (ten submissions x 26 letters x 2 trials,
answered by the scripted double, ``WORK/run``), grown to ``--trials`` trials per letter (``WORK/grown``: 2,600
trials at 10), then copied byte for byte as ``--runs`` + 1 distinct run folders (``WORK/runs/run-NN``, each
its own files and run id). Every build is ``pcg site`` in a subprocess, timed from outside.
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts" / "bench"))


def competition_run(work: Path, trials: int) -> Path:
    import bench_viewer

    grown = work / "grown"
    if not (grown / "report.html").is_file():
        run = bench_viewer.record_run(work, "2")
        doc, docs = bench_viewer.grow(run, grown, trials)
        bench_viewer.write_viewer(doc, docs, grown)
    return grown


def copies(grown: Path, folder: Path, n: int) -> list[Path]:
    """``n`` run folders, each a byte copy of ``grown`` with its own run id and start time."""
    out = []
    for i in range(1, n + 1):
        dest = folder / f"run-{i:02d}"
        if not (dest / "results.json").is_file():
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(grown, dest)
            doc = json.loads((dest / "results.json").read_text())
            doc["run"]["id"] = f"bench-{i:02d}"
            doc["run"]["started"] = f"2026-11-{i:02d}T12:00:00+00:00"
            (dest / "results.json").write_text(json.dumps(doc))
        out.append(dest)
    return out


def pcg_site(runs: list[Path], site: Path, resamples: int) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "pcg_plugin", "site", *map(str, runs), "-o", str(site), "--resamples", str(resamples)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return time.perf_counter() - t0, proc.stderr.strip()


def mtimes(site: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (site / "problems").glob("*.html")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=200)
    args = parser.parse_args()
    from pcg_plugin.core.views.site import added_bytes, folder_bytes

    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    grown = competition_run(work, args.trials)
    trials = sum(len(d["trials"]) for s in json.loads((grown / "results.json").read_text())["submissions"]
                 for d in s["letters"].values())  # fmt: skip
    runs = copies(grown, work / "runs", args.runs + 1)
    site = work / "site"
    shutil.rmtree(site, ignore_errors=True)
    first, said = pcg_site(runs[:-1], site, args.resamples)
    disk, apparent = folder_bytes(runs[:-1])
    add_disk, add_apparent = added_bytes(site, runs[:-1])
    print(f"{args.runs} runs of {trials} trials: run folders {disk / 1e6:.1f} MB on disk ({apparent / 1e6:.1f} MB)")
    print(f"first build: {first:.1f} s\n{said}")
    print(
        f"site adds {add_disk / 1e6:.2f} MB on disk = {100 * add_disk / disk:.2f} % "
        f"({add_apparent / 1e6:.2f} MB apparent = {100 * add_apparent / apparent:.2f} %)"
    )
    before = mtimes(site)
    second, said = pcg_site(runs, site, args.resamples)
    after = mtimes(site)
    kept = sorted(k for k in before if after.get(k) == before[k])
    print(f"second build, one run more ({args.runs + 1} runs): {second:.1f} s\n{said}")
    print(f"problem pages left untouched (same inode and mtime): {len(kept)} of {len(before)}")
    third, said = pcg_site(runs, site, args.resamples)
    print(f"third build, nothing new: {third:.1f} s\n{said}")
    disk, apparent = folder_bytes(runs)
    add_disk, add_apparent = added_bytes(site, runs)
    print(f"after the second build: the site adds {add_disk / 1e6:.2f} MB on disk = {100 * add_disk / disk:.2f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
