"""`pcg export RUN_DIR --format csv|jsonl|parquet [-o FILE]`: one row per trial of a finished run, the twelve
columns of ``core.records.trials.COLUMNS`` first, then the problem's own values."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = (
    "one row per trial of a finished run (csv, jsonl or parquet): problem, submission, model, target, trial, score, ..."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pcg_plugin.core.results.export import FORMATS

    parser.add_argument(
        "run_dir", metavar="RUN_DIR", help="a run folder (or its results.json); a suite's: every problem's trials"
    )
    parser.add_argument("--format", choices=FORMATS, default="csv", help="default csv")
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write here (default: standard output; parquet needs it)"
    )


def run(args: argparse.Namespace) -> int:
    from pcg_plugin.core.results import export
    from pcg_plugin.errors import ResultsError

    try:
        rows = export.suite_rows(args.run_dir)
    except ResultsError as exc:
        print(f"pcg export: {exc}", file=sys.stderr)
        return 2
    if args.format == "parquet":
        if not args.output:
            print("pcg export: --format parquet writes a file: give -o FILE", file=sys.stderr)
            return 2
        try:
            export.write_parquet(rows, Path(args.output))
        except RuntimeError as exc:
            print(f"pcg export: {exc}", file=sys.stderr)
            return 2
        print(f"{len(rows)} trials -> {args.output}", file=sys.stderr)
        return 0
    text = export.csv_text(rows) if args.format == "csv" else export.jsonl_text(rows)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"{len(rows)} trials -> {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
