"""Benchmark the LLM layer: offline-default tokens/s, response-store record/replay rates across processes."""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pcg_plugin.llm.scripted import ScriptedBackend
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import ResponseStore, TrialKey
from pcg_plugin.problems.science_birds.editions import profile_for

PROMPT = "Build the letter {letter} with drop_block calls."


def bench_offline(
    calls: int, max_new_tokens: int, few_shot: bool, device: str, threads: int | None = None, quiet: bool = False
) -> tuple[int, float]:
    """Load time (cached conversion) and generation tokens/s of the offline default on this machine."""
    from pcg_plugin.llm import make_backend

    backend = make_backend("offline", device=device, few_shot=few_shot, threads=threads)
    backend.max_new_tokens = max_new_tokens
    say = (lambda *a: None) if quiet else print
    t = time.perf_counter()
    backend._load()
    say(f"offline load: {time.perf_counter() - t:.1f} s (conversion cached in ~/.cache/pytest-pcg after the first)")
    profile, rates, total_tok, total_s = profile_for("2024"), [], 0, 0.0
    for i in range(calls + 1):
        letter = "ILTAEHOUX"[i % 9]
        t = time.perf_counter()
        r = backend.complete([{"role": "user", "content": PROMPT.format(letter=letter)}], n=1, profile=profile, seed=i)
        dt = time.perf_counter() - t
        if i == 0:
            say(f"warm-up call: {r.completion_tokens} tokens in {dt:.1f} s (not counted)")
            continue
        rates.append(r.completion_tokens / dt)
        total_tok, total_s = total_tok + r.completion_tokens, total_s + dt
        say(f"call {i}: prompt {r.prompt_tokens}, completion {r.completion_tokens} tokens, {dt:.1f} s")
    say(f"offline tokens/s: {total_tok / total_s:.1f} overall, median per call {statistics.median(rates):.1f}")
    return total_tok, total_s


def _offline_worker(args: tuple[int, int, bool, str, int | None], out: mp.Queue[tuple[int, float]]) -> None:
    out.put(bench_offline(*args, quiet=True))


def bench_offline_workers(
    workers: int, calls: int, max_new_tokens: int, few_shot: bool, device: str, threads: int | None
) -> None:
    """``workers`` processes generating at once, as xdist workers do: per-process and total tokens/s."""
    from pcg_plugin._util.devices import threads_per_worker

    if threads is None:
        threads = threads_per_worker(workers)  # what the plugin uses; --threads 0 = torch's default
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_offline_worker, args=((calls, max_new_tokens, few_shot, device, threads or None), out))
        for _ in range(workers)
    ]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    per = [tok / sec for tok, sec in results]
    print(
        f"offline, {workers} processes at once, torch threads {threads or 'default'} each: "
        f"{statistics.mean(per):.1f} tokens/s per process, {sum(per):.1f} in total"
    )


def _trials(path: str, worker: int, trials: int, turns: int) -> None:
    store = ResponseStore(path)
    backend = ScriptedBackend(lambda m, n: ["```\ndrop_block('b11', 10)\n```"] * n)
    for t in range(trials):
        chat = TrialChat(
            TrialKey("2024", "m", f"s{worker}", "h", "A", t + 1),
            backend=backend,
            profile=profile_for("2024"),
            store=store,
        )
        for k in range(turns):
            chat.chat([{"role": "user", "content": f"turn {k}"}])
        chat.finish("done")


def bench_store(processes: int, trials: int, turns: int) -> None:
    """Calls/s through TrialChat + the SQLite store: recording (durable commits), then replaying, in parallel."""
    with tempfile.TemporaryDirectory() as tmp:
        ctx = mp.get_context("fork")
        for phase in ("record", "replay"):
            t = time.perf_counter()
            procs = [ctx.Process(target=_trials, args=(tmp, w, trials, turns)) for w in range(processes)]
            for p in procs:
                p.start()
            for p in procs:
                p.join()
            dt = time.perf_counter() - t
            calls = processes * trials * turns
            print(
                f"store {phase}: {processes} processes x {trials} trials x {turns} calls = {calls} calls "
                f"in {dt:.2f} s: {calls / dt:,.0f} calls/s"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--offline", action="store_true", help="measure the offline default's tokens/s")
    ap.add_argument("--calls", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=160)
    ap.add_argument("--no-few-shot", action="store_true")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--workers", type=int, default=1, help="processes generating at once (as xdist workers)")
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads per process (default: cores // workers, as the plugin; 0: torch default)",
    )
    ap.add_argument("--store", action="store_true", help="measure response-store throughput")
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--turns", type=int, default=2)
    args = ap.parse_args()
    if not (args.offline or args.store):
        args.offline = args.store = True
    if args.store:
        bench_store(args.processes, args.trials, args.turns)
    if args.offline and args.workers > 1:
        bench_offline_workers(
            args.workers, args.calls, args.max_new_tokens, not args.no_few_shot, args.device, args.threads
        )
    elif args.offline:
        bench_offline(args.calls, args.max_new_tokens, not args.no_few_shot, args.device, args.threads or None)


if __name__ == "__main__":
    main()
