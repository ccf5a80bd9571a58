"""`pcg convert CODE [-o LEVEL.xml]`: the official drop grid and Science Birds XML for extracted code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "convert extracted drop_block code to Science Birds XML as the official converter does"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", help="extracted code file, or - for stdin")
    parser.add_argument("-o", "--output", help="write the XML here instead of stdout")
    parser.add_argument("--prefix", default="drop_block", help="function name (2023 levels used ab_drop)")


def run(args: argparse.Namespace) -> int:
    from pcg_plugin._util.inputs import read_input_or_say
    from pcg_plugin.errors import ConversionError
    from pcg_plugin.problems.science_birds.level.grid import drop_blocks
    from pcg_plugin.problems.science_birds.level.levelxml import grid_to_xml

    code = read_input_or_say(args.code, "pcg convert")
    if code is None:
        return 2
    try:
        xml = grid_to_xml(drop_blocks(code, args.prefix))
    except ConversionError as exc:
        print(f"{exc.message}", file=sys.stderr)
        return 1
    if args.output:
        Path(args.output).write_text(xml, encoding="utf-8")
    else:
        sys.stdout.write(xml + "\n")
    return 0
