"""MkDocs hook: the options and commands reference pages, rendered from the real parsers at build time.

A page holding ``<!-- generated: pytest-options -->`` or ``<!-- generated: pcg-commands -->`` gets that marker
replaced by tables built from the parsers themselves: every ``--pcg-*`` option the installed plugins and
problems register with pytest, and every ``pcg`` command and sub-command of ``pcg_plugin.cli.build_parser``.
Nothing here is written by hand, so renaming an option renames it in the docs. The tests in ``tests/docs/``
import this file to parse the command lines the docs quote against the same parsers.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from importlib.metadata import entry_points
from typing import Any

MARKERS = {
    "<!-- generated: pytest-options -->": "options_markdown",
    "<!-- generated: pcg-commands -->": "commands_markdown",
}
PCG_GROUP = "pcg"


def pytest_config() -> Any:
    """A pytest Config with every installed pytest11 plugin registered (each one's ``pytest_addoption`` has
    run on ``config._parser``), as ``pytest`` builds it before parsing a command line; no conftest is read."""
    from _pytest.config import get_config

    config = get_config()
    config.pluginmanager.load_setuptools_entrypoints("pytest11")
    return config


def pytest_parser() -> Any:
    """The real pytest parser: ``parse(args)`` raises ``pytest.UsageError`` on an option nobody registered."""
    return pytest_config()._parser


def pcg_parser() -> argparse.ArgumentParser:
    from pcg_plugin.cli import build_parser

    return build_parser()


def _fresh_parser() -> Any:
    from _pytest.config.argparsing import Parser

    return Parser(_ispytest=True)


def _dests(register: Any) -> set[str]:
    parser = _fresh_parser()
    register(parser)
    return {opt.dest for group in parser._groups for opt in group.options} | {
        opt.dest for opt in parser._anonymous.options
    }


def option_owners() -> dict[str, list[str]]:
    """dest -> who registers it: each installed problem (by entry-point name), or the pcg pytest plugin that
    adds it itself (the ``pcg`` plugin registers the problems' options too; those are listed under them)."""
    from pcg_plugin.core.contract import problem as problems

    owners: dict[str, list[str]] = {}
    for name, entry in sorted(problems.registered().items()):  # name -> Entry (its options, not its implementation)
        for dest in _dests(entry.add_options):
            owners.setdefault(dest, []).append(f"`{name}`")
    for ep in entry_points(group="pytest11"):
        hook = getattr(ep.load(), "pytest_addoption", None) if ep.value.startswith("pcg_plugin") else None
        for dest in sorted(_dests(hook) - owners.keys()) if hook else ():
            owners.setdefault(dest, []).append(f"plugin `{ep.name}`")
    return owners


def pcg_options() -> list[Any]:
    """Every ``--pcg-*`` option of the real parser, in registration order."""
    parser = pytest_parser()
    return [
        opt
        for group in parser._groups
        for opt in group.options
        if any(name.startswith("--pcg-") for name in opt.names())
    ]


def _cell(text: Any) -> str:
    """Table-cell text: argparse's %% unescaped, pipes escaped, <placeholders> shown rather than read as HTML."""
    text = str(text).replace("%%", "%").replace("|", "\\|").replace("\n", " ")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _who(owners: list[str], problem_names: list[str]) -> str:
    """`all problems`, or the names with a family whose every member reads the option shown as `family/*`."""
    names = [o.strip("`") for o in owners if not o.startswith("plugin")]
    if names and sorted(names) == sorted(problem_names):
        return "all problems"
    out = [o for o in owners if o.startswith("plugin")]
    for family in sorted({n.split("/")[0] for n in names}):
        members = [n for n in problem_names if n.split("/")[0] == family]
        mine = [n for n in names if n.split("/")[0] == family]
        out += (
            [f"`{family}/*`"] if "/" in mine[0] and len(members) > 1 and mine == members else [f"`{n}`" for n in mine]
        )
    return ", ".join(out)


def options_markdown() -> str:
    from pcg_plugin.core.contract import problem as problems

    owners, names = option_owners(), sorted(problems.registered())
    ini = pytest_parser()._inidict
    rows = ["| option | read by | values | what it does |", "| --- | --- | --- | --- |"]
    for opt in pcg_options():
        attrs = opt.attrs()
        dest = attrs.get("dest", "")
        values = ", ".join(f"`{c}`" for c in attrs.get("choices") or ()) or (
            "switch" if attrs.get("action") == "store_true" else "text"
        )
        flags = " ".join(opt.names())
        name = f"`{flags}`" if dest in ini and flags == "--" + dest.replace("_", "-") else f"`{flags}` (no ini key)"
        rows.append(f"| {name} | {_who(owners.get(dest, ['?']), names)} | {values} | {_cell(attrs.get('help', ''))} |")
    return "\n".join(rows) + "\n"


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser, str]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, sub, helps.get(name, "")


def _argument_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.nargs != 0:
                name += f" {action.metavar or action.dest.upper()}"
        else:
            name = action.metavar or action.dest
            if action.nargs in ("+", "*"):
                name += " ..."
        values = ", ".join(f"`{c}`" for c in action.choices) if action.choices else ""
        default = (
            "" if action.default in (None, False, argparse.SUPPRESS) or action.nargs == 0 else f"`{action.default}`"
        )
        rows.append(f"| `{name}` | {values} | {default} | {_cell(action.help or '')} |")
    if not rows:
        return []
    return ["| argument | values | default | what it does |", "| --- | --- | --- | --- |", *rows]


def _command_sections(parser: argparse.ArgumentParser, path: str, depth: int) -> Iterator[str]:
    for name, sub, text in _subcommands(parser):
        full = f"{path} {name}"
        yield f"{'#' * depth} `{full}`\n"
        if text:
            yield f"{_cell(text)}\n"
        usage = " ".join(sub.format_usage().split())
        yield f"```text\n{usage}\n```\n"
        rows = _argument_rows(sub)
        if rows:
            yield "\n".join(rows) + "\n"
        yield from _command_sections(sub, full, min(depth + 1, 4))


def commands_markdown() -> str:
    return "\n".join(_command_sections(pcg_parser(), "pcg", 2))


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: replace each generated marker on the page."""
    for marker, function in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, globals()[function]())
    return markdown
