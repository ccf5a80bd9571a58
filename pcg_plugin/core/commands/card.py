"""`pcg card RUN_DIR... [-o card.html|card.md]`: one model across every problem it was run on."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "a model card: one model's scores, intervals, zero reasons, tokens, cost and provenance over run folders"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_dirs", metavar="RUN_DIR", nargs="+", help="run folders (one per problem, or a suite's: all its problems)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="card.html or card.md (default: Markdown on stdout)")
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples (default 200)")


def run(args: argparse.Namespace) -> int:
    from pcg_plugin.core.results import card
    from pcg_plugin.errors import ResultsError

    try:
        c = card.card(card.runs_in(args.run_dirs), reps=args.resamples)
    except ResultsError as exc:
        print(f"pcg card: {exc}", file=sys.stderr)
        return 2
    if not args.output:
        sys.stdout.write(card.markdown(c))
        return 0
    out = Path(args.output)
    out.write_text(card.html_page(c) if out.suffix.lower() in (".html", ".htm") else card.markdown(c), encoding="utf-8")
    print(f"model card ({len(c.lines)} submissions, {len(c.provenance)} runs) -> {out}", file=sys.stderr)
    return 0
