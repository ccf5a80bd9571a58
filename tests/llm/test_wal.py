"""WAL connections shared by processes: a lock SQLite will not wait out is tried again, nothing else is."""

from __future__ import annotations

import sqlite3

import pytest

from pcg_plugin.llm.wal import until_unlocked


def test_until_unlocked_tries_again_only_while_sqlite_says_locked():
    calls = []

    def locked_twice():
        calls.append(1)
        if len(calls) < 3:
            raise sqlite3.OperationalError("database is locked")

    until_unlocked(locked_twice, timeout=5, pause=0)
    assert len(calls) == 3

    def broken():
        calls.append(1)
        raise sqlite3.OperationalError("no such table: trials")

    calls.clear()
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        until_unlocked(broken, timeout=5, pause=0)
    assert len(calls) == 1  # another error is not waited out

    def always_locked():
        raise sqlite3.OperationalError("database is locked")

    with pytest.raises(sqlite3.OperationalError, match="locked"):
        until_unlocked(always_locked, timeout=0.05, pause=0.01)  # ... nor is a lock that outlives the timeout
