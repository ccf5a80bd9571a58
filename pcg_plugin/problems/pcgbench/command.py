"""`pcg pcgbench eval|random`: the PCG Benchmark grid problems (binary-v0, sokoban-v0, zelda-v0) from the shell.

A stable contract for other tools: `eval PROBLEM FILE.jsonl --json` scores levels as pcg_benchmark 00b96f5
does; `random PROBLEM --runs R --generations G [--seed S] --json` is the paper's Random baseline.
"""

from __future__ import annotations

import argparse
import json

from pcg_plugin.problems.science_birds.commands._io import read_input
from pcg_plugin.problems.pcgbench.jsonl_eval import evaluate_lines
from pcg_plugin.problems.pcgbench.random_baseline import random_baseline
from pcg_plugin.problems.pcgbench.registry import PROBLEMS, get_problem

HELP = "PCG Benchmark grid problems: score levels (eval) or run the paper's random baseline (random)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="pcgbench_command", required=True, metavar="ACTION")
    ev = sub.add_parser("eval", help="score a JSONL of levels: one output line per input line, then diversity")
    ev.add_argument("problem", choices=list(PROBLEMS))
    ev.add_argument("file", help='JSONL, one {"content": [[...]], "control": {...}} per line, or - for stdin')
    ev.add_argument("--json", action="store_true", help="JSON lines (the contract); default: a short text table")
    ev.set_defaults(_action=_eval)
    rnd = sub.add_parser("random", help="best quality of uniform samples at generations 0, 50, 100, 200")
    rnd.add_argument("problem", choices=list(PROBLEMS))
    rnd.add_argument("--runs", type=int, default=10)
    rnd.add_argument("--generations", type=int, default=200)
    rnd.add_argument("--seed", type=int, default=0, help="run r uses seed S + r (default 0)")
    rnd.add_argument("--json", action="store_true", help="one JSON object")
    rnd.set_defaults(_action=_random)


def run(args: argparse.Namespace) -> int:
    return args._action(args)


def _eval(args: argparse.Namespace) -> int:
    records = evaluate_lines(get_problem(args.problem), read_input(args.file).splitlines())
    for n, record in enumerate(records, 1):
        if args.json:
            print(json.dumps(record))
        elif "diversity" in record:
            print(f"diversity {record['diversity']:.3f} over {len(record['per_item'])} valid item(s)")
        elif record["valid"]:
            ctrl = record["controllability"]
            print(f"{n}: quality {record['quality']:.4f}" + ("" if ctrl is None else f" controllability {ctrl:.4f}"))
        else:
            print(f"{n}: invalid ({record['reason']}): quality 0")
    return 0


def _random(args: argparse.Namespace) -> int:
    if args.runs < 1 or args.generations < 0:
        raise SystemExit("pcg pcgbench random: --runs must be ≥ 1 and --generations ≥ 0")
    report = sorted({g for g in (0, 50, 100, 200) if g <= args.generations} | {args.generations})
    result = random_baseline(get_problem(args.problem), args.runs, args.generations, args.seed, report)
    if args.json:
        print(json.dumps(result))
    else:
        cells = "  ".join(f"gen {g}: {v:.3f}" for g, v in result["mean_best"].items())
        print(f"{result['problem']} ({args.runs} runs): {cells}  feasible {result['feasible_samples']}/{result['samples']}")
    return 0
