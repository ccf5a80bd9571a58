"""Atomic file writes: a reader (another worker, a killed run's rerun, CI) sees the old file or the new, never half.

The data goes to a temporary sibling (same folder, so ``os.replace`` is a rename on one file system), which
replaces the target only once it is complete; on any failure the temporary is removed and the old file stays.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path


def _sibling(path: Path) -> Path:
    """A fresh hidden name beside ``path`` (``.tmp-<hex>-<name>``) that no other writer picks."""
    return path.with_name(f".tmp-{secrets.token_hex(6)}-{path.name}")


def _remove(tmp: Path) -> None:
    if tmp.is_dir() and not tmp.is_symlink():
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        tmp.unlink(missing_ok=True)


def atomic_save(path: Path | str, save: Callable[[Path], object]) -> Path:
    """``save(tmp)`` writes the whole content (a file, or a folder) to a temporary sibling, which then replaces
    ``path``; the parent folder is created. For writers that only take a path (``Image.save``,
    ``save_pretrained``). A folder cannot replace a non-empty folder: that ``OSError`` is the caller's to judge."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _sibling(path)
    try:
        save(tmp)
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise
    return path


def atomic_write(
    path: Path | str,
    data: str | bytes,
    *,
    encoding: str = "utf-8",
    newline: str | None = None,
    mode: int = 0o666,
    errors: str = "backslashreplace",
) -> Path:
    """Write ``data`` to ``path`` atomically: bytes as they are; text with ``encoding``, ``newline`` and
    ``errors`` as ``open()`` takes them (``newline=""`` writes the string's own line ends on every platform).
    By default a lone surrogate (a model's reply that is not valid Unicode) is written as ``\\ud83d``, never an
    error: in JSON text that is the escape of the same string (``pcg_plugin._util.jsontext``). The file gets ``mode``
    less the umask (0o600 for a file only its owner may read, from its first byte on)."""

    def save(tmp: Path) -> None:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        if isinstance(data, bytes):
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        else:
            with os.fdopen(fd, "w", encoding=encoding, newline=newline, errors=errors) as fh:
                fh.write(data)

    return atomic_save(path, save)


@contextlib.contextmanager
def locked(lock: Path) -> Iterator[None]:
    """An exclusive lock on the file ``lock`` (created with its folder): other processes making the same thing
    wait here, then find it made instead of making it again. Not POSIX: no lock; an ``atomic_save`` rename still
    keeps one complete copy."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
