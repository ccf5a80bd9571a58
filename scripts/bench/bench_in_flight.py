"""Trials in flight against a slow model server (docs/in-flight.md): the same competition answered by a loopback
OpenAI-compatible server that takes DELAY seconds a call, at each ``--pcg-in-flight`` asked, beside the CPU floor
measured in the same invocation (the same answers from the scripted double at ``--pcg-in-flight 1``, nothing to
wait for); then whether
every run scored trial for trial as the first (``trials.jsonl`` without timings, and the level files), whether the
server's request count equals the calls stored, and the peak resident memory of all the run's processes.

    python scripts/bench/bench_in_flight.py WORK [--case science-birds] [--trials 2] [--delay 2] [--in-flight 1,64]
        [-n 2] [--memory-vs 8] [--interrupt-after K] [--only one_call]

``--in-flight default,16``: ``default`` runs with no ``--pcg-in-flight`` (the harness sizes it; the script prints
what each process chose, from results.json's ``in_flight``). ``--only NAME``: keep that one submission of the case
(``one_call``: Science Birds' one-call program alone). The load average is printed before and after.

Cases: ``science-birds`` (2024: a one-call and a two-call program, 26 letters x TRIALS), ``pcgbench`` (the
zero-shot and self-check examples on ``pcgbench/binary-v0``), ``imagegame`` (the self-play example), ``spyfall``
(GameEval's two SpyFall examples). ``--memory-vs W``: one more run at ``-n W --pcg-in-flight 1``, the memory of
many processes against many trials in one. ``--interrupt-after K``: once K calls were answered, SIGINT to the run
(Ctrl-C), then the same command again: what the server was asked against what the store holds.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
sys.path[:0] = [str(TESTS)]

import loopback_llm  # noqa: E402 - tests/, put on sys.path above
from in_flight_cases import (  # noqa: E402 - tests/, put on sys.path above
    ANSWERER,
    CASES,
    VOLATILE,
    SlowServer,
    command,
    level_files,
    load,
    make_work,
    stable_rows,
    stored_calls,
)


def keep(work: Path, name: str) -> None:
    """Only the submission ``name`` of the case's competition."""
    import shutil

    folders = [p for p in work.glob("*/*") if p.is_dir() and p.parent.name in ("submissions", "subs")]
    if name not in {p.name for p in folders}:
        raise SystemExit(f"--only {name}: the case has {sorted(p.name for p in folders)}")
    for p in folders:
        if p.name != name:
            shutil.rmtree(p)


def chosen(work: Path, out: str) -> dict[str, Any] | None:
    """results.json's ``in_flight``: what each process kept in flight."""
    path = work / out / "results.json"
    return json.loads(path.read_text()).get("in_flight") if path.is_file() else None


def rows(work: Path, out: str) -> list[dict[str, Any]]:
    """A run's trials as the comparison reads them: without timings, costs and who answered (the floor's scripted
    double and the server give the same answers under other names and token counts)."""
    return stable_rows(work, out, VOLATILE | ANSWERER)


def tree_memory(pid: int) -> dict[str, Any]:
    """``pid`` and every process below it, now: resident bytes summed (RSS: a page two processes share counts
    twice), proportional set size summed (PSS: a shared page split between its sharers: what the processes hold
    together), and how many processes of each name."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                children.setdefault(int(stat[stat.rindex(")") + 2 :].split()[1]), []).append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    rss = pss = 0
    names: dict[str, int] = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text().split()
            rss += int(rollup[rollup.index("Rss:") + 1]) * 1024
            pss += int(rollup[rollup.index("Pss:") + 1]) * 1024
            name = Path(f"/proc/{p}/comm").read_text().strip()
        except (OSError, ValueError):
            continue
        names[name] = names.get(name, 0) + 1
    return {"rss": rss, "pss": pss, "processes": names}


def run(cmd: list[str], work: Path, env: dict[str, str], interrupt: Any = None) -> dict[str, Any]:
    """One run: wall seconds, peak resident memory of its process tree, exit code and the tail of its output."""
    import resource

    t0, cpu0 = time.time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(
        cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    peak: dict[str, Any] = {"rss": 0, "pss": 0, "processes": {}}
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.extend(proc.stdout or []), daemon=True)
    reader.start()

    def ctrl_c() -> None:  # on its own thread: reading a large tree's memory takes seconds
        while proc.poll() is None:
            if interrupt():
                os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
                return
            time.sleep(0.05)

    if interrupt is not None:
        threading.Thread(target=ctrl_c, daemon=True).start()
    while proc.poll() is None:
        now = tree_memory(proc.pid)
        if now["pss"] > peak["pss"]:
            peak = now
        time.sleep(0.2)
    reader.join(10)
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime  # every process of the run, once reaped
    return {
        "wall": time.time() - t0,
        "cpu": cpu,
        "peak_mb": peak["rss"] / 2**20,
        "peak_pss_mb": peak["pss"] / 2**20,
        "processes": peak["processes"],
        "code": proc.returncode,
        "tail": "".join(out)[-1500:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--case", choices=sorted(CASES), default="science-birds")
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--delay", type=float, default=2.0, help="seconds the server takes for each call")
    parser.add_argument("--in-flight", default="1,64", help="the --pcg-in-flight values to run, comma-separated")
    parser.add_argument("-n", "--workers", type=int, default=2)
    parser.add_argument("--memory-vs", type=int, default=0, help="also run -n W --pcg-in-flight 1 (0: not)")
    parser.add_argument("--interrupt-after", type=int, default=0, help="SIGINT once K calls were answered, rerun")
    parser.add_argument("--only", default=None, help="keep only this submission of the case (e.g. one_call)")
    args = parser.parse_args()
    work = args.work.resolve()
    make_work(work, args.case)
    if args.only:
        keep(work, args.only)
    load_before = os.getloadavg()
    spec = CASES[args.case]
    extra_path = [str(p) for p in (work, spec.get("path")) if p]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *extra_path]), "OMP_NUM_THREADS": "1"}
    env.pop("OPENAI_API_KEY", None)
    env.pop("PCG_IN_FLIGHT", None)
    sys.path[:0] = extra_path
    server = SlowServer(load(spec["responder"]), args.delay)
    results: dict[str, dict[str, Any]] = {}
    with loopback_llm.serve(server):
        slow = ["--pcg-backend", "openai-compatible", "--pcg-base-url", server.url, "--pcg-model", "double"]
        floor = command(
            args.case,
            "floor",
            args.trials,
            args.workers,
            "--pcg-backend",
            "scripted",
            "--pcg-model",
            spec["responder"],
            "--pcg-in-flight",
            "1",
        )
        results["floor (scripted double)"] = run(floor, work, env)
        first = None
        for depth in args.in_flight.split(","):
            out = f"inflight{depth}"
            asked = len(server.bodies)
            given = [] if depth == "default" else ["--pcg-in-flight", depth]
            cmd = command(args.case, out, args.trials, args.workers, *slow, *given)
            name = f"-n {args.workers} " + (" ".join(given) or "(sized by the harness)")
            r = results[name] = run(cmd, work, env)
            r.update(requests=len(server.bodies) - asked, stored=stored_calls(work, out), out=out)
            r["in_flight"] = chosen(work, out)
            first = first or out
            r["same_as_first"] = rows(work, out) == rows(work, first) != [] and level_files(work, out) == level_files(
                work, first
            )
        if args.memory_vs:
            out = f"workers{args.memory_vs}"
            asked = len(server.bodies)
            cmd = command(args.case, out, args.trials, args.memory_vs, *slow, "--pcg-in-flight", "1")
            r = results[f"-n {args.memory_vs} --pcg-in-flight 1"] = run(cmd, work, env)
            r.update(requests=len(server.bodies) - asked, stored=stored_calls(work, out), out=out)
            r["same_as_first"] = rows(work, out) == rows(work, first or out) != []
        if args.interrupt_after:
            last = args.in_flight.split(",")[-1]
            out, asked = "interrupted", len(server.bodies)
            given = [] if last == "default" else ["--pcg-in-flight", last]
            cmd = command(args.case, out, args.trials, args.workers, *slow, *given)
            k = args.interrupt_after
            r = results["interrupted (SIGINT)"] = run(cmd, work, env, lambda: len(server.bodies) - asked >= k)
            r.update(requests=len(server.bodies) - asked, stored=stored_calls(work, out))
            again = len(server.bodies)
            r2 = results["rerun"] = run(cmd, work, env)
            r2.update(requests=len(server.bodies) - again, stored=stored_calls(work, out), out=out)
            r2["same_as_first"] = rows(work, out) == rows(work, first or out) != []
    trials = len(stable_rows(work, "floor"))
    floor_wall = results["floor (scripted double)"]["wall"]
    print(
        f"{args.case}: {trials} trials, server {args.delay:g} s a call, {args.workers} workers (this machine: "
        f"{os.cpu_count()} cores; load average before %.2f %.2f %.2f, after %.2f %.2f %.2f)"
        % (*load_before, *os.getloadavg())
    )
    for name, r in results.items():
        extra = ""
        if "requests" in r:
            extra = f", requests {r['requests']}, calls stored {r['stored']}"
        if "same_as_first" in r:
            extra += ", same trials as the first" if r["same_as_first"] else ", DIFFERENT trials from the first"
        ratio = r["wall"] / floor_wall
        print(
            f"  {name:34} wall {r['wall']:6.1f} s ({ratio:4.2f}x the floor), CPU {r['cpu']:5.1f} s, peak memory "
            f"{r['peak_pss_mb']:5.0f} MB PSS ({r['peak_mb']:5.0f} MB RSS), exit {r['code']}{extra}"
        )
        names = ", ".join(f"{k} {v}" for k, v in sorted(r["processes"].items()))
        print(f"  {'':34} processes at the peak: {names}")
        for process, p in (r.get("in_flight") or {}).get("processes", {}).items():
            print(
                f"  {'':34} {process}: trials in flight peak {p['peak']}, mean {p['mean']:g}, allowed "
                f"{p['allowed_last']} at the end ({p['allowed_peak']} at most)"
            )
    (work / "bench.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
