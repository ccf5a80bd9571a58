"""`pcg compare RUN_A RUN_B [--json] [--pair ...] [-o compare.html]`: two finished runs of one problem (or two
suite runs, problem by problem), pair by pair; A is the reference, B the run compared with it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = (
    "compare two runs of one problem (or two suite runs, problem by problem): per pair of submissions the "
    "problem's score in A and B, B - A and its 95%% paired bootstrap interval; -o writes the page"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pcg_plugin.core.results.compare import PAIRINGS

    parser.add_argument("run_a", metavar="RUN_A", help="the reference run: a run folder (or its results.json)")
    parser.add_argument("run_b", metavar="RUN_B", help="the run compared with RUN_A (B - A)")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument(
        "--pair",
        choices=PAIRINGS,
        default=PAIRINGS[0],
        help="what pairs a submission of A with one of B: its name and model (default), its name alone (runs "
        "answered by two models), or its model alone (two prompts, one submission per model)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="also write the comparison as one page (compare.html: the pairs, the trials whose outcome changed, "
        "linked to both runs' trial pages)",
    )
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")


def run(args: argparse.Namespace) -> int:
    from pcg_plugin.core.results import compare
    from pcg_plugin.errors import ResultsError

    try:
        found, only_a, only_b = compare.compare_paths(
            args.run_a, args.run_b, reps=args.resamples, seed=args.seed, pair_by=args.pair
        )
    except ResultsError as exc:
        print(f"pcg compare: {exc}", file=sys.stderr)
        return 2
    if not found:
        print(
            f"pcg compare: the runs share no problem (A: {', '.join(only_a)}; B: {', '.join(only_b)})", file=sys.stderr
        )
        return 2
    if args.json:
        docs = [c.to_dict() for c in found]
        out = (
            docs[0]
            if len(docs) == 1 and not only_a and not only_b
            else {
                "problems": docs,
                "only_a": only_a,
                "only_b": only_b,
            }
        )
        print(json.dumps(out, indent=1))
    else:
        lines: list[str] = []
        for c in found:
            lines += [*compare.table(c), ""]
        lines += [f"problem only in A: {p}" for p in only_a] + [f"problem only in B: {p}" for p in only_b]
        print("\n".join(lines).rstrip())
    if args.output is not None:
        from pcg_plugin.core.results.compare_page import write

        path = write(args.output, found, only_a=only_a, only_b=only_b)
        print(f"pcg compare: the page is {path}", file=sys.stderr)
    return 0
