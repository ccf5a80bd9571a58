"""``pcg show RUN_DIR NODEID [--json]``: one trial's transcript from its run folder, every call in order (the
messages sent with their roles, the reply, tokens, seconds, retries, whether it was replayed) and the problem's
state between calls; ``--json`` prints the transcript document itself."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pcg_plugin.core import transcript

HELP = "print one trial's transcript (every model call in order) from a run folder"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the run folder (where report.html is)")
    parser.add_argument(
        "nodeid",
        metavar="NODEID",
        help="the trial's pytest node id, as the run printed it (e.g. submissions/team::A::1)",
    )
    parser.add_argument("--json", action="store_true", help='print {"nodeid": ..., "calls": [...], ...}')


def run(args: argparse.Namespace) -> int:
    try:
        doc = transcript.read(args.run_dir, args.nodeid)
    except FileNotFoundError as exc:
        print(f"pcg show: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        sys.stdout.write(transcript.text(doc))
    return 0
