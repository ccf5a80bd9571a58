"""The temporary folders a trial works in (``/tmp/pcg-trial-*``), named for the process that owns them, and the
cleaning at the start of a run of those whose owner is gone.

A trial copies its submission into a temporary folder and removes it when it ends; a run killed with ``kill -9``
removes nothing. Each folder's name carries its owner (``pcg-trial-<host>.<pid>-<random>``: a short digest of the
host name and the process id), so a later run removes exactly the folders of processes that no longer run on this
host, and never one of a live run beside it (nor anything not named so: a folder of another tool, or of an older
version, is left alone).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import tempfile
from pathlib import Path

KINDS = ("trial", "grid-trial", "imagegame", "gameeval", "dry-run", "check")
_NAME = re.compile(rf"^pcg-(?:{'|'.join(map(re.escape, KINDS))})-([0-9a-f]{{6}})\.(\d+)-[A-Za-z0-9_]+$")


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state first; None without /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()
    except OSError:
        return None


def process_started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot; None without /proc): with the pid, which process it
    is, since a pid is given again once its process has gone (every 32,768 on many systems)."""
    fields = _stat(pid)
    return fields[19] if fields and len(fields) > 19 else None


def pid_alive(pid: int, started: str | None = None) -> bool:
    """True while ``pid`` runs; a zombie (exited, not yet reaped by its owner) counts as gone, and so does a pid
    now naming another process than the one that ``started`` then (``process_started``)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat(pid)
    if not fields:
        return True  # no /proc (macOS): kill(0) is all we know
    return fields[0] != "Z" and (started is None or len(fields) <= 19 or fields[19] == started)


def _host() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]


def owned_temp_dir(kind: str) -> tempfile.TemporaryDirectory[str]:
    """A temporary folder for one trial (``kind``: one of KINDS), removed when the block ends, named for its owner."""
    if kind not in KINDS:
        raise ValueError(f"unknown trial folder kind {kind!r}: one of {', '.join(KINDS)}")
    return tempfile.TemporaryDirectory(prefix=f"pcg-{kind}-{_host()}.{os.getpid()}-")


def clean_stale(tmp: Path | None = None) -> list[Path]:
    """Remove the trial folders under ``tmp`` (default: the system's) whose owning process is gone; the list of
    what was removed. A folder of this host whose process lives, of another host, or not named by
    ``owned_temp_dir`` is kept."""
    root = Path(tmp) if tmp is not None else Path(tempfile.gettempdir())
    host = _host()
    removed: list[Path] = []
    try:
        children = list(root.iterdir())
    except OSError:
        return removed
    for child in children:
        match = _NAME.match(child.name)
        if match is None or match.group(1) != host:
            continue
        pid = int(match.group(2))
        if pid == os.getpid() or pid_alive(pid) or child.is_symlink() or not child.is_dir():
            continue
        shutil.rmtree(child, ignore_errors=True)
        removed.append(child)
    return removed
