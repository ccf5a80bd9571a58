"""`pcg compare RUN_A RUN_B [--json]`: two finished runs of one problem, submission by submission."""

from __future__ import annotations

import argparse
import json
import sys

HELP = "compare two runs of one problem: per submission and model A, B, B - A and its 95%% paired bootstrap interval"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_a", metavar="RUN_A", help="a run folder (or its results.json)")
    parser.add_argument("run_b", metavar="RUN_B", help="the run compared with RUN_A")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")


def run(args: argparse.Namespace) -> int:
    from pcg_plugin.core import compare, runs
    from pcg_plugin.errors import ResultsError

    try:
        c = compare.compare(runs.load(args.run_a), runs.load(args.run_b), reps=args.resamples, seed=args.seed)
    except ResultsError as exc:
        print(f"pcg compare: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(c.to_dict(), indent=1) if args.json else "\n".join(compare.table(c)))
    return 0
