"""Benchmark the whole plugin: a generated competition through real `pytest` runs, per xdist worker count.

Each run is ``pytest submissions -n K`` in a temporary folder holding S 2023-style prompt submissions and the
scripted LLM double (``glyphs.letter_program``: no network, no model download for the LLM). Printed per run:
wall time of the whole pytest process, items/s, and the mean per-trial stage times read back from results.json
(generate, build, simulate, classify), plus whether the scores equal those of the first run.

    python scripts/bench/bench_plugin.py                               # 2 submissions x I,L x 2 trials, -n 0 and 2
    python scripts/bench/bench_plugin.py --subs 4 --letters A-F --trials 3 --workers 0,2,auto --classifier DIR
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESPONDER = """
import re
from pcg_plugin.problems.science_birds.level.glyphs import letter_program

def respond(messages, n=1):
    letter = re.search(r'TARGET="?([A-Z])', messages[-1]["content"]).group(1)
    return ["```\\n" + letter_program(letter) + "\\n```"] * n
"""


def make_competition(root: Path, subs: int) -> None:
    (root / "scripted_llm.py").write_text(RESPONDER)
    for i in range(subs):
        folder = root / "submissions" / f"team_{i}"
        folder.mkdir(parents=True)
        (folder / "prompt.txt").write_text(f"Team {i}. TARGET=<OBJECT>")


def run(
    root: Path, out: str, workers: str, letters: str, trials: int, classifier: str | None
) -> tuple[float, dict[str, Any], str]:
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "submissions",
        "-q",
        "-p",
        "no:cacheprovider",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "scripted_llm:respond",
        "--pcg-letters",
        letters,
        "--pcg-trials",
        str(trials),
        "--pcg-out",
        out,
        "--pcg-store",
        f"store-{out}",
    ]
    if workers != "0":
        cmd += ["-p", "xdist", "-n", workers]
    if classifier:
        cmd += ["--pcg-classifier", classifier]
    env = dict(os.environ, PYTHONPATH=str(root))
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    results_path = root / out / "results.json"
    if not results_path.is_file():
        sys.exit(f"run -n {workers} produced no results.json:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}")
    return wall, json.loads(results_path.read_text()), proc.stdout


def stage_means(results: dict[str, Any]) -> dict[str, float]:
    sums: dict[str, list[float]] = {}
    for sub in results["submissions"]:
        for letter in sub["letters"].values():
            for trial in letter["trials"]:
                for key, value in (trial.get("timings") or {}).items():
                    if "." not in key:
                        sums.setdefault(key, []).append(value)
    return {k: sum(v) / len(v) for k, v in sorted(sums.items())}


def scores(results: dict[str, Any]) -> list[tuple[str, str]]:
    return [(s["name"], s["normalized_score"]) for s in results["submissions"]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subs", type=int, default=2)
    ap.add_argument("--letters", default="I,L")
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--workers", default="0,2")
    ap.add_argument("--classifier", help="classifier folder or hub id (default: the embedded one)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-plugin-") as tmp:
        root = Path(tmp)
        make_competition(root, args.subs)
        first = None
        for workers in args.workers.split(","):
            wall, results, _ = run(root, f"run-n{workers}", workers, args.letters, args.trials, args.classifier)
            n = sum(len(letter["trials"]) for s in results["submissions"] for letter in s["letters"].values())
            same = "first" if first is None else ("same scores" if scores(results) == first else "SCORES DIFFER")
            first = first or scores(results)
            means = " ".join(f"{k}={v * 1000:.0f}ms" for k, v in stage_means(results).items())
            print(f"-n {workers:>4}: {n} items in {wall:6.1f} s = {n / wall:5.2f} items/s | mean {means} | {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
