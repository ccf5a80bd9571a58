"""Before anything is paid: the folders a run writes (run folder, response store, cache) can be written.

A run that finds out only after a model call that its run folder is a file pays for answers it cannot keep; one
whose store cannot be created errors every item. So the controller probes each folder once, before collection:
the nearest part of the path that exists must be a folder in which a file can be created (a probe that is removed
at once; nothing else is made, so ``--collect-only`` leaves no trace). Root passes every permission check, so the
probe writes rather than asks ``os.access``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

from pcg_plugin._util.names import shown


def why_not_writable(path: Path) -> str | None:
    """Why files cannot be written at ``path`` (a folder, made on demand), or None when they can."""
    existing = Path(path).absolute()
    while not existing.exists():
        if existing.parent == existing:
            return "no part of it exists"
        existing = existing.parent
    if not existing.is_dir():
        return "it is a file, not a folder" if existing == Path(path).absolute() else f"{shown(existing)} is a file"
    try:
        with tempfile.TemporaryFile(dir=existing, prefix=".pcg-probe-"):
            pass
    except OSError as exc:
        where = "it" if existing == Path(path).absolute() else shown(existing)
        return f"{where} cannot be written ({exc.strerror or exc})"
    return None


def check_writable(folders: Iterable[tuple[str, Path]]) -> list[str]:
    """One line per ``(what, folder)`` that cannot be written: what names the option (``--pcg-store``)."""
    out = []
    for what, folder in folders:
        why = why_not_writable(folder)
        if why is not None:
            out.append(f"{what} {shown(folder)}: {why}")
    return out
