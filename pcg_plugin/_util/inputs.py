"""The input of a `pcg` command: a path, or ``-`` for stdin (every problem's commands read it the same way)."""

from __future__ import annotations

import sys
from pathlib import Path


def read_input(name: str) -> str:
    """The text of a file, or stdin for ``-``: UTF-8 (undecodable bytes replaced), or UTF-16 when it has a BOM
    (Science Birds levels saved by Unity/.NET tools often are)."""
    data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def read_input_or_say(name: str, command: str) -> str | None:
    """``read_input``, or None after telling stderr why the file cannot be read (the command then exits 2)."""
    try:
        return read_input(name)
    except OSError as exc:
        print(f"{command}: cannot read {name}: {exc.strerror}", file=sys.stderr)
        return None
