"""The `pcg` stage command line: one sub-command per pipeline stage, each in pcg_plugin.problems.science_birds.commands."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# name -> module under pcg_plugin.problems.science_birds.commands. Each module defines HELP, add_arguments(parser)
# and run(args) -> int. Modules import their heavy dependencies lazily inside run().
COMMANDS: dict[str, str] = {
    "extract": "extract",
    "convert": "convert",
    "simulate": "simulate",
    "classify": "classify",
    "score": "score",
    "rules": "rules",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pcg", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        try:
            module = importlib.import_module(f"pcg_plugin.problems.science_birds.commands.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"pcg_plugin.problems.science_birds.commands.{module_name}":
                raise
            continue
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args._run(args))
    except BrokenPipeError:  # `pcg simulate ... | head` must not print a traceback
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
