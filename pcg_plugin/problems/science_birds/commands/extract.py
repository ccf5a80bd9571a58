"""`pcg extract RESPONSE`: print the officially extracted drop_block code (exit 1 when there is none)."""

from __future__ import annotations

import argparse
import sys

HELP = "extract the drop_block calls of an LLM response as the official script does"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("response", help="response text file, or - for stdin")
    parser.add_argument("--prefix", default="drop_block", help="function name (2023 levels used ab_drop)")


def run(args: argparse.Namespace) -> int:
    from pcg_plugin._util.inputs import read_input_or_say
    from pcg_plugin.problems.science_birds.level.extract import extract_code

    text = read_input_or_say(args.response, "pcg extract")
    if text is None:
        return 2
    code = extract_code(text, args.prefix)
    if code is None:
        print("Code not found. (no code: the trial scores 0)", file=sys.stderr)
        return 1
    sys.stdout.write(code)
    return 0
