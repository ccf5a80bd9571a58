"""One SQLite file shared by every process of a run: WAL-mode connections that survive opening it together."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable


def until_unlocked(step: Callable[[], object], timeout: float, pause: float = 0.05) -> None:
    """Run ``step`` again while SQLite says "database is locked", for up to ``timeout`` seconds.

    Processes opening a fresh file at once all switch it to WAL; SQLite answers one of them BUSY at once,
    without waiting in the busy handler, where waiting could deadlock. Trying again a moment later succeeds.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
            time.sleep(pause)


def connect(path: str | os.PathLike[str], timeout: float) -> sqlite3.Connection:
    """A connection in WAL mode (readers never wait for the writer), autocommit, usable from any thread."""
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    until_unlocked(lambda: conn.execute("PRAGMA journal_mode=WAL"), timeout)
    return conn


def create(conn: sqlite3.Connection, schema: str, owned: str) -> None:
    """``schema``'s tables, and the ``started`` column of the table ``owned`` whose rows a process holds (its
    start time, ``trial_dirs.process_started``: with the pid, which process it is) added to a file written before
    that column existed; such a file's rows have none (the pid alone tells then)."""
    conn.executescript(schema)
    if "started" not in {row[1] for row in conn.execute(f"PRAGMA table_info({owned})")}:
        try:
            conn.execute(f"ALTER TABLE {owned} ADD COLUMN started TEXT")
        except sqlite3.OperationalError as exc:  # another process added it first
            if "duplicate column" not in str(exc):
                raise
