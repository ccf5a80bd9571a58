"""Shared input helper for the stage commands: a path or ``-`` for stdin."""

from __future__ import annotations

import sys
from pathlib import Path


def read_input(name: str) -> str:
    """The text of a file, or stdin for ``-`` (UTF-8, undecodable bytes replaced)."""
    if name == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    return Path(name).read_bytes().decode("utf-8", errors="replace")
