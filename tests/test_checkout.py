"""The suite tests this checkout: every process a test starts runs the pcg_plugin the in-process tests import.

A run's controller, its xdist workers and `pcg` commands are subprocesses of the e2e tests; each trial's program
runs in a sandbox child started with `python -I` (no PYTHONPATH, no working folder: the installed package).
Where the interpreter's installed pcg_plugin is another checkout (a second worktree, or a mutated scratch copy
tested with the original's environment), those processes would run that code and the suite would pass or fail
for it, not for this checkout. tests/conftest.py pins PYTHONPATH for the first kind; the second needs this
checkout installed (`pip install -e .`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pcg_plugin

PACKAGE = Path(pcg_plugin.__file__).resolve().parent
WHERE = "import pathlib, pcg_plugin; print(pathlib.Path(pcg_plugin.__file__).resolve().parent)"


def _package_of(tmp_path: Path, *flags: str) -> Path:
    """The pcg_plugin folder a new interpreter imports, started from an unrelated folder with this session's
    environment (as pytester and the sandbox start theirs)."""
    out = subprocess.run(
        [sys.executable, *flags, "-c", WHERE],
        cwd=tmp_path,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


def _differing_files(ours: Path, theirs: Path) -> list[str]:
    names = {
        p.relative_to(root).as_posix()
        for root in (ours, theirs)
        for p in root.rglob("*.py")
        if "__pycache__" not in p.parts
    }
    return sorted(
        n
        for n in names
        if not (
            (ours / n).is_file() and (theirs / n).is_file() and (ours / n).read_bytes() == (theirs / n).read_bytes()
        )
    )


def test_subprocesses_import_this_checkout(tmp_path: Path) -> None:
    assert _package_of(tmp_path) == PACKAGE, "tests/conftest.py no longer pins PYTHONPATH to this checkout"


def test_the_sandbox_interpreter_runs_this_checkouts_code(tmp_path: Path) -> None:
    installed = _package_of(tmp_path, "-I")
    differing = [] if installed == PACKAGE else _differing_files(PACKAGE, installed)
    assert not differing, (
        f"`{sys.executable} -I` imports pcg_plugin from {installed}, whose code differs from this checkout's "
        f"({PACKAGE}) in {', '.join(differing[:5])}{' ...' if len(differing) > 5 else ''}: the sandboxed trials "
        "would run that code. Install this checkout: pip install -e ."
    )
