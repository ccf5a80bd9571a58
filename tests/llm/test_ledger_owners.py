"""The spending cap's ledger and the rate limiter's slots tell the process that holds a row by its pid and its start
time, as the response store tells a claim's (``_util.trial_dirs.process_started``): a pid the system has given to
another process since is gone, and what its row held is taken back (the reservation charged in full, the slot
freed) instead of being held by a stranger until its lease runs out."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pcg_plugin._util.trial_dirs import process_started
from pcg_plugin.llm.budget import Decision, SharedLedger
from pcg_plugin.llm.ratelimit import SharedLimiter

pytestmark = pytest.mark.skipif(process_started(os.getpid()) is None, reason="no /proc: a pid is all there is")


@pytest.fixture
def stranger() -> Iterator[int]:
    """A live process: the pid a dead owner's could have been given again."""
    proc = subprocess.Popen(["sleep", "60"])
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def test_a_reservation_whose_pid_now_names_another_process_is_charged_in_full(tmp_path: Path, stranger: int) -> None:
    ledger = SharedLedger(tmp_path / "l.sqlite3", 100)
    assert ledger.reserve(30, pid=stranger, started="1")[0] is Decision.GO  # held by a process long gone
    assert ledger.reserve(20, pid=stranger)[0] is Decision.GO  # held by the live process itself
    assert ledger.reserve(1)[0] is Decision.GO
    state = ledger.state()
    assert state.spent == 30 and state.held == 21  # the stranger's pid did not keep the dead owner's 30 held


def test_a_ledger_written_before_start_times_were_kept_is_read_by_its_pids(tmp_path: Path, stranger: int) -> None:
    path = tmp_path / "l.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE ledger (id INTEGER PRIMARY KEY CHECK (id = 0), cap INTEGER NOT NULL, spent INTEGER NOT "
            "NULL, stopped INTEGER NOT NULL); CREATE TABLE held (id TEXT PRIMARY KEY, pid INTEGER NOT NULL, worst "
            f"INTEGER NOT NULL); INSERT INTO ledger VALUES (0, 100, 0, 0); INSERT INTO held VALUES ('a', {stranger}, "
            "40), ('b', 999999999, 5);"
        )
    ledger = SharedLedger(path)
    assert ledger.reserve(1)[0] is Decision.GO
    assert (ledger.state().spent, ledger.state().held) == (5, 41)  # no start time: the live pid keeps its row


def test_a_rate_limit_slot_whose_pid_now_names_another_process_is_freed(tmp_path: Path, stranger: int) -> None:
    limiter = SharedLimiter(tmp_path / "rl", concurrency=1)
    with sqlite3.connect(limiter.path) as db:
        db.execute(
            "INSERT INTO slots (id, pid, tokens, expires, started) VALUES ('dead', ?, 0, 1e12, '1')", (stranger,)
        )
    slot, wait = limiter._try(0)
    assert slot is not None and wait == 0.0  # not held up to SLOT_TTL by the stranger
    with sqlite3.connect(limiter.path) as db:
        db.execute(
            "INSERT INTO slots (id, pid, tokens, expires, started) VALUES ('live', ?, 0, 1e12, ?)",
            (stranger, process_started(stranger)),
        )
    limiter.release(slot, 0)
    assert limiter._try(0)[0] is None  # the live holder keeps its slot
