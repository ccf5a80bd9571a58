"""Every ``pcg`` command and sub-command answers ``--help`` (issue 27: a ``%`` in a help string crashed
``pcg imagegame score --help``): the parser of ``pcg_plugin.cli`` is walked, so a new command is covered."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from pcg_plugin.cli import build_parser


def command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command line that names a (sub-)parser: (), ("rules",), ("imagegame", "score"), ..."""
    yield prefix
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from command_paths(child, (*prefix, name))


PATHS = list(command_paths(build_parser()))


def test_the_walk_finds_the_commands_and_their_sub_commands() -> None:
    assert {("rules",), ("imagegame",), ("imagegame", "score"), ("pcgbench",)} <= set(PATHS) and () in PATHS
    assert len(PATHS) > 10


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "pcg")
def test_help_exits_zero_and_prints_usage(path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([*path, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: pcg" + "".join(f" {p}" for p in path))


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess
    import sys
    import tomllib
    from pathlib import Path

    import pcg_plugin

    declared = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]["version"]
    assert pcg_plugin.__version__ == declared  # the package's own and the distribution's are one fact
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out == f"pcg (pytest-pcg) {declared}\n"
    out = subprocess.run([sys.executable, "-m", "pcg_plugin", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout == f"pcg (pytest-pcg) {declared}\n"
