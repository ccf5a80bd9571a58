"""Benchmark a whole run: replay (``--pcg-record none``) a recorded 2024 competition, items/s and time per stage.

    python scripts/bench/bench_replay.py WORK [--programs 10] [--trials 10] [--letters A-Z] [-n 2] [--compare REV]

WORK holds the competition (``--programs`` 2024 programs, ``scripts/checks/replay_snapshot.py``'s program and scripted
LLM double, the glyph letters) and its response store; the first call records the store live. Each round then
replays the store with this tree and, with ``--compare REV``, with REV checked out in a temporary git worktree
(the two alternate round by round, so machine noise hits both), and prints for each: items/s and a stage table.

Stages: start-up and collection (launch to every worker's collection), the per-item stages read back from
results.json (generate = sandbox start + program + replayed chat; build = extraction + conversion; simulate =
physics; render; classify), the per-worker loads (classifier model), and the end of the run (last item to exit:
results.json, official files, report). Per-item stages are summed over items and divided by the workers, so the
rows add up to about the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "checks"))

from replay_snapshot import PROGRAM_2024, RESPONDER  # noqa: E402 - scripts/, put on sys.path above

# A pytest plugin (loaded with -p) that notes when the controller sees collection finish, the first and last
# item reports, and the session finish; written into WORK so both trees load the same file.
CLOCK = """
import json, os, time
T = {"configure": time.time()}
def pytest_xdist_node_collection_finished(node, ids):
    T["collected"] = time.time()
def pytest_collection_finish(session):
    T.setdefault("collected", time.time())
def pytest_runtest_logreport(report):
    if report.when == "teardown":
        T.setdefault("first_item", time.time())
        T["last_item"] = time.time()
def pytest_unconfigure(config):
    T["unconfigure"] = time.time()
    path = os.environ.get("BENCH_CLOCK")
    if path and not hasattr(config, "workerinput"):
        open(path, "w").write(json.dumps(T))
"""
PER_ITEM = ("generate", "build", "simulate", "render", "classify")


def make_competition(work: Path, programs: int) -> None:
    for i in range(programs):
        path = work / "submissions" / f"team{i:02d}" / f"team{i:02d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(PROGRAM_2024.replace("OFFSET", str(i))))
    (work / "scripted_llm.py").write_text(textwrap.dedent(RESPONDER))


def pytest_cmd(out: str, args: argparse.Namespace, *extra: str, python: str = sys.executable) -> list[str]:
    return [
        python,
        "-m",
        "pytest",
        "submissions",
        "--pcg-edition",
        "2024",
        "--pcg-out",
        out,
        "--pcg-letters",
        args.letters,
        "--pcg-trials",
        str(args.trials),
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "scripted_llm:respond",
        "--pcg-store",
        "store",
        "-p",
        "no:cacheprovider",
        "-q",
        "-p",
        "bench_clock",
        "-n",
        str(args.workers),
        *extra,
    ]


def replay(work: Path, tree: Path, out: str, args: argparse.Namespace, python: str = sys.executable) -> dict[str, Any]:
    """One replay with ``tree``'s pcg_plugin first on the path (and ``python``, whose installed entry points are
    that tree's); wall time, items and stage seconds."""
    shutil.rmtree(work / out, ignore_errors=True)
    clock = work / f"{out}.clock.json"
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{work}", "BENCH_CLOCK": str(clock), "OMP_NUM_THREADS": "1"}
    t0 = time.time()
    proc = subprocess.run(
        pytest_cmd(out, args, "--pcg-record", "none", python=python), cwd=work, env=env, capture_output=True, text=True
    )
    t1 = time.time()
    (work / f"{out}.log").write_text(proc.stdout + proc.stderr)
    results_path = work / out / "results.json"
    if not results_path.is_file():
        raise SystemExit(
            f"{out}: no results.json (exit {proc.returncode})\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
        )
    results = json.loads(results_path.read_text())
    marks = json.loads(clock.read_text())
    sums = dict.fromkeys(PER_ITEM, 0.0)
    items = 0
    scores = []
    for sub in results["submissions"]:
        scores.append((sub["name"], sub["normalized_score"]))
        for letter in sub["letters"].values():
            for trial in letter["trials"]:
                items += 1
                for key in PER_ITEM:
                    sums[key] += (trial.get("timings") or {}).get(key, 0.0)
    loads: dict[str, float] = {}
    for worker in (results.get("workers") or {}).values():
        for key, value in (worker.get("stats") or {}).items():
            loads[key] = max(loads.get(key, 0.0), value)
    workers = max(1, args.workers)
    stages = {
        "start-up and collection": marks.get("collected", t0) - t0,
        "worker loads (max, classifier " + f"{loads.get('load_classifier_s', 0.0):.1f} s)": sum(loads.values()),
    }
    stages.update({f"{k} (per item {1000 * v / max(items, 1):.0f} ms)": v / workers for k, v in sums.items()})
    stages["end of the run"] = t1 - marks.get("last_item", t1)
    return {
        "wall": t1 - t0,
        "items": items,
        "log": str(work / f"{out}.log"),
        "stages": stages,
        "scores": scores,
        "rc": proc.returncode,
        "report_bytes": (work / out / "report.html").stat().st_size if (work / out / "report.html").is_file() else 0,
    }


def show(label: str, r: dict[str, Any]) -> None:
    print(
        f"{label}: {r['items']} items in {r['wall']:.1f} s = {r['items'] / r['wall']:.2f} items/s "
        f"(pytest exit {r['rc']}, report.html {r['report_bytes'] / 1e6:.2f} MB, log {r['log']})"
    )
    for name, seconds in r["stages"].items():
        print(f"    {name:<45} {seconds:7.1f} s  {100 * seconds / r['wall']:5.1f} %")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path, help="folder for the competition, its store and the runs")
    parser.add_argument("--programs", type=int, default=10)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--letters", default="A-Z")
    parser.add_argument("-n", "--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1, help="replays per tree, alternating")
    parser.add_argument("--compare", metavar="REV", help="also replay with git revision REV (alternating)")
    args = parser.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    (work / "bench_clock.py").write_text(CLOCK)
    if not (work / "store").exists():
        make_competition(work, args.programs)
        env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{work}", "BENCH_CLOCK": str(work / "live.clock.json")}
        t = time.time()
        subprocess.run(pytest_cmd("live", args), cwd=work, env=env, capture_output=True, check=False)
        print(f"recorded the store live in {time.time() - t:.0f} s")
    trees = [("new", ROOT, sys.executable)]
    tmp = None
    if args.compare:
        tmp = Path(tempfile.mkdtemp(prefix="bench-replay-"))
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tmp / "old"), args.compare],
            check=True,
            capture_output=True,
        )
        # the old tree gets a venv of its own (the system packages plus the old tree installed editable), so pytest
        # loads the old tree's entry points, not those of the installed checkout (which may name newer problems)
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(tmp / "venv")], check=True)
        subprocess.run(
            [str(tmp / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "-e", str(tmp / "old")],
            check=True,
            capture_output=True,
        )
        trees.insert(0, ("old", tmp / "old", str(tmp / "venv" / "bin" / "python")))
    try:
        runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in trees}
        for k in range(args.rounds):
            for label, tree, python in trees if k % 2 == 0 else trees[::-1]:
                load = os.getloadavg()
                r = replay(work, tree, f"replay-{label}-{k}", args, python)
                runs[label].append(r)
                show(f"{label} ({tree.name}) round {k}, load average {load[0]:.2f} at start", r)
        if args.compare:
            old = sum(r["items"] / r["wall"] for r in runs["old"]) / len(runs["old"])
            new = sum(r["items"] / r["wall"] for r in runs["new"]) / len(runs["new"])
            same = all(r["scores"] == runs["old"][0]["scores"] for rs in runs.values() for r in rs)
            print(
                f"items/s: old {old:.2f}, new {new:.2f}, speed-up {new / old:.2f}x; "
                f"{'same scores' if same else 'SCORES DIFFER'} in every run"
            )
    finally:
        if tmp is not None:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tmp / "old")],
                capture_output=True,
                check=False,
            )
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
