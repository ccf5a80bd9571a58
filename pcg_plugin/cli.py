"""The `pcg` command line: one sub-command per stage or tool, each in the problem package that owns it."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

_SB = "pcg_plugin.problems.science_birds.commands"
# name -> module. Each module defines HELP, add_arguments(parser) and run(args) -> int, and imports its heavy
# dependencies lazily inside run(). A module that cannot be imported is an error, never a missing command.
COMMANDS: dict[str, str] = {
    "extract": f"{_SB}.extract",
    "convert": f"{_SB}.convert",
    "simulate": f"{_SB}.simulate",
    "classify": f"{_SB}.classify",
    "score": f"{_SB}.score",
    "rules": f"{_SB}.rules",
    "pcgbench": "pcg_plugin.problems.pcgbench.command",
    "imagegame": "pcg_plugin.problems.imagegame.command",
    "gameeval": "pcg_plugin.problems.gameeval.command",
    "export": "pcg_plugin.core.commands.export",
    "compare": "pcg_plugin.core.commands.compare",
    "card": "pcg_plugin.core.commands.card",
    "site": "pcg_plugin.core.commands.site",
    "show": "pcg_plugin.core.views.show",
}


def version() -> str:
    """The installed distribution's version (its metadata), else the package's own (a bare checkout)."""
    from importlib import metadata

    from pcg_plugin import __version__

    try:
        return metadata.version("pytest-pcg")
    except metadata.PackageNotFoundError:
        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pcg", description=__doc__)
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s (pytest-pcg) {version()}",
        help="print the installed pytest-pcg version and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_path in COMMANDS.items():
        module = importlib.import_module(module_path)
        # HELP is %-formatted by argparse in the command list only: the description shows it as the user reads it
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP.replace("%%", "%"))
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from pcg_plugin._util.names import escape_unencodable

    escape_unencodable(sys.stdout, sys.stderr)  # a path whose name is not UTF-8 is printed escaped
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
