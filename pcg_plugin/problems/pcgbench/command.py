"""`pcg pcgbench eval|experiment|random|list`: every registered PCG Benchmark variant from the shell.

A stable contract for other tools: `eval VARIANT FILE.jsonl --json` scores contents as pcg_benchmark 00b96f5
does, printing each line as soon as it is evaluated; `experiment VARIANT... [--json]` runs the paper's
experiment (Random, ES, GA x Q, QT, QTD; `experiment.cli`); `random VARIANT --runs R --generations G [--seed S]
--json` is its Random x Q case summarised at generations 0, 50, 100, 200; `list` names every variant. VARIANT
is a registry name (`zelda-large-v0`) or the harness name (`pcgbench/zelda-large-v0`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

from pcg_plugin._util.inputs import read_input
from pcg_plugin.problems.pcgbench.bench.jsonl_eval import evaluate_lines
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names, variant_name
from pcg_plugin.problems.pcgbench.experiment import cli as experiment_cli
from pcg_plugin.problems.pcgbench.experiment.random_summary import random_baseline

HELP = (
    "PCG Benchmark variants: score contents (eval), run the paper's experiment (experiment) or its random "
    "baseline (random), list variants"
)


def variant(text: str) -> BenchProblem:
    """argparse type: a registered variant by either spelling."""
    if variant_name(text) not in names():
        raise argparse.ArgumentTypeError(f"no variant {text!r}; known: {', '.join(names())}")
    return get_problem(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="pcgbench_command", required=True, metavar="ACTION")
    ev = sub.add_parser("eval", help="score a JSONL of contents: one output line per input line, then diversity")
    ev.add_argument("problem", type=variant, metavar="VARIANT", help="e.g. zelda-large-v0 or pcgbench/zelda-large-v0")
    ev.add_argument(
        "file",
        help='JSONL, one {"content": ..., "control": ...} per line in the benchmark\'s own JSON '
        '(e.g. talakat {"bullets": [90, 98, 79, 91, 79]}, arcade the layout as rows of 0/1; control '
        "optional), or - for stdin",
    )
    ev.add_argument("--json", action="store_true", help="JSON lines (the contract); default: a short text table")
    ev.set_defaults(_action=_eval)
    experiment_cli.add_parser(sub)
    rnd = sub.add_parser(
        "random",
        help="best quality of uniform samples at generations 0, 50, 100, 200",
        description="The paper's Random baseline (its Fig. 2), the experiment's Random generator under Q: each "
        "run draws 100 uniform contents per generation and reports the best quality found so far, after "
        "generations 0, 50, 100, 200 (those up to --generations) and the last; printed as the mean over the runs.",
    )
    rnd.add_argument(
        "problem",
        type=variant,
        metavar="VARIANT",
        help="e.g. zelda-v0 or pcgbench/zelda-v0 (`pcg pcgbench list` names every variant)",
    )
    rnd.add_argument("--runs", type=int, default=10, metavar="R", help="independent runs to average (default 10)")
    rnd.add_argument(
        "--generations",
        type=int,
        default=200,
        metavar="G",
        help="generations per run, 100 contents each: 100·(G+1) samples a run (default 200)",
    )
    rnd.add_argument("--seed", type=int, default=0, metavar="S", help="run r uses seed S + r (default 0)")
    rnd.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (mean_best and per_run_best per "
        "generation, feasible_samples, samples) instead of one line",
    )
    rnd.set_defaults(_action=_random)
    ls = sub.add_parser("list", help="every registered variant, one a line")
    ls.set_defaults(_action=_list)


def run(args: argparse.Namespace) -> int:
    return args._action(args)


def input_lines(name: str) -> Iterator[str]:
    """The lines of a file, or of stdin for `-` as they arrive (so a pipe gets each answer before it sends more)."""
    if name == "-":
        yield from sys.stdin
        return
    try:
        text = read_input(name)
    except OSError as exc:
        raise SystemExit(f"pcg pcgbench eval: cannot read {name}: {exc.strerror or exc}") from None
    yield from text.splitlines()


def _eval(args: argparse.Namespace) -> int:
    for n, record in enumerate(evaluate_lines(args.problem, input_lines(args.file)), 1):
        if args.json:
            line = json.dumps(record)
        elif "diversity" in record:
            line = (
                f"diversity failed: {record['error']}"
                if record["diversity"] is None
                else f"diversity {record['diversity']:.3f} over {len(record['per_item'])} valid item(s)"
            )
        elif record["valid"]:
            ctrl = record["controllability"]
            line = f"{n}: quality {record['quality']:.4f}" + ("" if ctrl is None else f" controllability {ctrl:.4f}")
        else:
            line = f"{n}: invalid ({record['reason']}): quality 0"
        print(line, flush=True)
    return 0


def _random(args: argparse.Namespace) -> int:
    if args.runs < 1 or args.generations < 0:
        raise SystemExit("pcg pcgbench random: --runs must be ≥ 1 and --generations ≥ 0")
    report = sorted({g for g in (0, 50, 100, 200) if g <= args.generations} | {args.generations})
    result = random_baseline(args.problem.name, args.runs, args.generations, args.seed, report)
    if args.json:
        print(json.dumps(result))
    else:
        cells = "  ".join(f"gen {g}: {v:.3f}" for g, v in result["mean_best"].items())
        print(
            f"{result['problem']} ({args.runs} runs): {cells}  "
            f"feasible {result['feasible_samples']}/{result['samples']}"
        )
    return 0


def _list(args: argparse.Namespace) -> int:
    for name in names():
        print(name)
    return 0
