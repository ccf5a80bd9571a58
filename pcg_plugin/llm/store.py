"""SQLite response store: per-trial ordered call recordings, committed before use, replayed in order."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pcg_plugin._util.devices import pid_alive
from pcg_plugin.errors import InfrastructureError, ReplayMiss
from pcg_plugin._util.paths import stem
from pcg_plugin.llm import wal

RECORD_MODES = ("once", "new", "all", "none")
DB_NAME = "responses.sqlite3"
LEASE_S = 900.0  # a trial claimed by a live process is waited for, never called twice

SCHEMA = """
CREATE TABLE IF NOT EXISTS trials (
    key_id TEXT PRIMARY KEY, edition TEXT NOT NULL, model TEXT NOT NULL, submission TEXT NOT NULL,
    submission_hash TEXT NOT NULL, letter TEXT NOT NULL, trial INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'open', final_response TEXT, reason TEXT,
    owner TEXT, lease_until REAL, created REAL NOT NULL, updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
    key_id TEXT NOT NULL, idx INTEGER NOT NULL, request_hash TEXT NOT NULL, request TEXT NOT NULL,
    choices TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    started REAL NOT NULL, duration REAL NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (key_id, idx)
);
"""


@dataclass(frozen=True)
class TrialKey:
    """One trial's identity; the same request in two trials is two recordings (seed 42 makes them identical)."""

    edition: str
    model: str
    submission: str
    submission_hash: str
    letter: str
    trial: int

    @property
    def id(self) -> str:
        raw = json.dumps([self.edition, self.model, self.submission, self.submission_hash, self.letter, self.trial])
        return hashlib.sha256(raw.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class RecordedCall:
    """One chat call as it happened: what was sent, what came back, what it cost, when (seconds into the trial)."""

    idx: int
    request_hash: str
    request: dict[str, Any]
    choices: list[str]
    prompt_tokens: int
    completion_tokens: int
    started: float
    duration: float


@dataclass(frozen=True)
class TrialRecord:
    key: TrialKey
    status: str  # open | complete | failed
    final_response: str | None
    reason: str | None
    calls: list[RecordedCall]


def request_hash(request: dict[str, Any]) -> str:
    """Canonical hash of a request as sent (model, sampling, n, messages)."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _owner_alive(owner: str | None) -> bool:
    if not owner:
        return False
    host, _, rest = owner.partition(":")
    if host != socket.gethostname():
        return True  # another machine: trust the lease
    pid = int(rest.split(":")[0]) if rest.split(":")[0].isdigit() else -1
    if pid == os.getpid():
        return False  # our own earlier, unfinished attempt (an item that errored): take it over
    return pid > 0 and pid_alive(pid)


_REMOTE: list[Any] = []  # set in a cluster's trial actor: opens the run's one store actor instead of a file


def use_remote_store(opener: Any) -> None:
    """In a process that must not open the file itself (a Ray actor on another host): ``opener(path)`` gives
    the store it uses instead (``cluster.shared.RemoteStore``)."""
    _REMOTE[:] = [opener] if opener is not None else []


def open_store(path: str | os.PathLike[str]) -> Any:
    """The run's response store: the SQLite file at ``path``, or (in a cluster's actor) the store actor."""
    return _REMOTE[0](path) if _REMOTE else ResponseStore(path)


class ResponseStore:
    """A WAL-mode SQLite file shared by every process of a run; a folder path holds ``responses.sqlite3``."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 60.0) -> None:
        p = Path(path)
        if p.suffix not in (".sqlite", ".sqlite3", ".db") or p.is_dir():
            p = p / DB_NAME
        p.parent.mkdir(parents=True, exist_ok=True)
        self.path = p
        self._timeout = timeout
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._lock = threading.RLock()
        wal.until_unlocked(lambda: self._db().executescript(SCHEMA), timeout)

    # -- connection -------------------------------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        """One connection per process (a forked child never reuses its parent's)."""
        if self._conn is None or self._pid != os.getpid():
            conn = wal.connect(self.path, self._timeout)
            conn.execute("PRAGMA synchronous=FULL")  # a committed response survives power loss, not just a crash
            conn.execute("PRAGMA busy_timeout=%d" % int(self._timeout * 1000))
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    class _Tx:
        def __init__(self, conn: sqlite3.Connection, lock: threading.RLock) -> None:
            self.conn, self.lock = conn, lock

        def __enter__(self) -> sqlite3.Connection:
            self.lock.acquire()  # one connection per process: threads (a sandbox's pipe server) take turns
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except BaseException:
                self.lock.release()
                raise
            return self.conn

        def __exit__(self, exc_type: object, *_: object) -> None:
            try:
                self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
            finally:
                self.lock.release()

    def _tx(self) -> ResponseStore._Tx:
        return ResponseStore._Tx(self._db(), self._lock)

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None

    # -- trials -----------------------------------------------------------------------------------------------
    def load(self, key: TrialKey) -> TrialRecord | None:
        with self._lock:
            return self._load(key)

    def _load(self, key: TrialKey) -> TrialRecord | None:
        db = self._db()
        row = db.execute("SELECT status, final_response, reason FROM trials WHERE key_id=?", (key.id,)).fetchone()
        if row is None:
            return None
        calls = [
            RecordedCall(i, h, json.loads(rq), json.loads(ch), pt, ct, st, du)
            for i, h, rq, ch, pt, ct, st, du in db.execute(
                "SELECT idx, request_hash, request, choices, prompt_tokens, completion_tokens, started, duration "
                "FROM calls WHERE key_id=? ORDER BY idx",
                (key.id,),
            )
        ]
        return TrialRecord(key, row[0], row[1], row[2], calls)

    def holder_busy(self, holder: str, me: str) -> bool:
        """Whether ``holder``'s claim (within its lease) still stands against ``me``: a live process does."""
        return _owner_alive(holder)

    def claim(self, key: TrialKey, *, wait: float = LEASE_S, reset: bool = False, owner: str | None = None) -> str:
        """Take the trial for this process (waiting while a live process holds it); ``reset`` drops its calls.
        ``owner``: who claims (default this process; the cluster's store names a Ray task's attempt)."""
        me, deadline = owner or _owner(), time.monotonic() + wait
        while True:
            with self._tx() as db:
                now = time.time()
                row = db.execute("SELECT owner, lease_until FROM trials WHERE key_id=?", (key.id,)).fetchone()
                busy = row is not None and row[0] and (row[1] or 0) > now and self.holder_busy(row[0], me)
                if not busy:
                    if row is None:
                        db.execute(
                            "INSERT INTO trials (key_id, edition, model, submission, submission_hash, letter, trial,"
                            " status, owner, lease_until, created, updated) VALUES (?,?,?,?,?,?,?,'open',?,?,?,?)",
                            (key.id, key.edition, key.model, key.submission, key.submission_hash, key.letter,
                             key.trial, me, now + LEASE_S, now, now),
                        )  # fmt: skip
                    else:
                        db.execute("UPDATE trials SET owner=?, lease_until=?, updated=? WHERE key_id=?",
                                   (me, now + LEASE_S, now, key.id))  # fmt: skip
                    if reset:
                        db.execute("DELETE FROM calls WHERE key_id=?", (key.id,))
                        db.execute("UPDATE trials SET status='open', final_response=NULL, reason=NULL WHERE key_id=?",
                                   (key.id,))  # fmt: skip
                    return me
            if time.monotonic() >= deadline:
                raise InfrastructureError(f"trial {key.submission}/{key.letter}/{key.trial} is held by {row[0]}")
            time.sleep(0.2)

    def record_call(self, key: TrialKey, owner: str, call: RecordedCall, *, truncate: bool = False) -> None:
        """Commit one call (durably) before its response is used; ``truncate`` drops a diverged tail first."""
        with self._tx() as db:
            held = db.execute("SELECT owner FROM trials WHERE key_id=?", (key.id,)).fetchone()
            if held is None or held[0] != owner:
                raise InfrastructureError(f"lost the claim on trial {key.submission}/{key.letter}/{key.trial}")
            if truncate:
                db.execute("DELETE FROM calls WHERE key_id=? AND idx>=?", (key.id, call.idx))
                db.execute("UPDATE trials SET status='open', final_response=NULL WHERE key_id=?", (key.id,))
            now = time.time()
            db.execute(
                "INSERT INTO calls VALUES (?,?,?,?,?,?,?,?,?,?)",
                (key.id, call.idx, call.request_hash, json.dumps(call.request, ensure_ascii=False),
                 json.dumps(call.choices, ensure_ascii=False), call.prompt_tokens, call.completion_tokens,
                 call.started, call.duration, now),
            )  # fmt: skip
            db.execute("UPDATE trials SET lease_until=?, updated=? WHERE key_id=?", (now + LEASE_S, now, key.id))

    def finish(self, key: TrialKey, owner: str | None, *, status: str, final_response: str | None = None,
               reason: str | None = None) -> None:  # fmt: skip
        """Mark the trial complete (with its final response) or failed, and release it."""
        with self._tx() as db:
            db.execute(
                "UPDATE trials SET status=?, final_response=?, reason=?, owner=NULL, lease_until=NULL, updated=?"
                " WHERE key_id=? AND (owner IS NULL OR owner=?)",
                (status, final_response, reason, time.time(), key.id, owner),
            )

    def release(self, key: TrialKey, owner: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE trials SET owner=NULL, lease_until=NULL WHERE key_id=? AND owner=?", (key.id, owner))

    # -- queries and export -----------------------------------------------------------------------------------
    def trials(self, *, edition: str | None = None, model: str | None = None,
               submission: str | None = None) -> Iterator[TrialRecord]:  # fmt: skip
        """Every recorded trial matching the filters, with its calls."""
        q, args = "SELECT edition, model, submission, submission_hash, letter, trial FROM trials WHERE 1=1", []
        for col, val in (("edition", edition), ("model", model), ("submission", submission)):
            if val is not None:
                q += f" AND {col}=?"
                args.append(val)
        for row in self._db().execute(q + " ORDER BY submission, letter, trial", args).fetchall():
            rec = self.load(TrialKey(row[0], row[1], row[2], row[3], row[4], int(row[5])))
            if rec is not None:
                yield rec

    def usage(self, **filters: str | None) -> dict[str, dict[str, int]]:
        """Recorded token usage and calls per submission (what the responses cost when they were paid)."""
        out: dict[str, dict[str, int]] = {}
        for rec in self.trials(**filters):
            u = out.setdefault(rec.key.submission, {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0,
                                                    "trials": 0})  # fmt: skip
            u["trials"] += 1
            for c in rec.calls:
                u["calls"] += 1
                u["prompt_tokens"] += c.prompt_tokens
                u["completion_tokens"] += c.completion_tokens
        return out

    def export_raw_layout(self, root: str | os.PathLike[str], *, edition: str, model: str,
                          submission: str | None = None, team: str | None = None) -> list[Path]:  # fmt: skip
        """Write ``<root>/<team>/raw/<C>/<team>_<C>_<n>.txt`` for every complete trial; failed trials get no file."""
        written: list[Path] = []
        for rec in self.trials(edition=edition, model=model, submission=submission):
            if rec.status != "complete" or rec.final_response is None:
                continue
            name = team or rec.key.submission
            path = Path(root) / name / "raw" / rec.key.letter / f"{stem(name, rec.key.letter, rec.key.trial)}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(rec.final_response, encoding="utf-8")
            written.append(path)
        return written
