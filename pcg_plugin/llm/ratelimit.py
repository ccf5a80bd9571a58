"""One rate and concurrency limit per model endpoint, shared by every process of a run (all xdist workers), kept in
a SQLite file beside the response store: a provider limits each model of an account on its own (OpenAI's limits
are per model), so two models of one run never wait for each other."""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pcg_plugin._util.devices import pid_alive as _alive  # zombie-aware liveness, one definition
from pcg_plugin._util.trial_dirs import process_started
from pcg_plugin.errors import DeadlineExceeded
from pcg_plugin.llm import wal

SCHEMA = """
CREATE TABLE IF NOT EXISTS bucket (name TEXT PRIMARY KEY, level REAL NOT NULL, stamp REAL NOT NULL);
CREATE TABLE IF NOT EXISTS slots (id TEXT PRIMARY KEY, pid INTEGER NOT NULL, tokens INTEGER NOT NULL,
                                  expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pause (id INTEGER PRIMARY KEY CHECK (id = 0), until REAL NOT NULL);
"""
SLOT_TTL = 900.0  # a slot whose process died is reclaimed at the latest after this
LOCK_WAIT_S = 60.0  # how long a process waits for another's write to the file

_REMOTE: list[Any] = []  # set in a cluster's trial actor: the run's limiter actor instead of a file per machine


def use_remote_limiter(factory: Any) -> None:
    """``factory(folder, rpm, tpm, concurrency, endpoint=...)`` makes the limiter ``from_env`` gives
    (``cluster.shared``): a file on one machine cannot limit a cluster, and its slots of other hosts' pids look
    dead here."""
    _REMOTE[:] = [factory] if factory is not None else []


def endpoint_of(base_url: str | None, model: str) -> str:
    """Whose limit a call counts against: the server (its base URL; the backend's default when none) and the model.
    ``--pcg-rpm``/``--pcg-tpm``/``--pcg-concurrency`` apply to each endpoint on its own."""
    return f"{(base_url or 'default').rstrip('/')} {model}"


def endpoint_file(endpoint: str) -> str:
    """The limiter file of one endpoint in the store folder: readable, and unique by a digest of the full name."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", endpoint).strip("_")[:60]
    return f"ratelimit-{slug}-{hashlib.sha256(endpoint.encode()).hexdigest()[:10]}.sqlite3"


def refill(level: float, elapsed: float, per_minute: float) -> float:
    """Token-bucket refill: a full minute's allowance at most, ``per_minute/60`` per second."""
    return min(per_minute, level + elapsed * per_minute / 60.0)


def wait_for_slot(
    try_acquire: Callable[[int], tuple[str | None, float]],
    tokens: int,
    within: float | None,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> str:
    """Ask ``try_acquire`` (a slot, or the seconds to wait) until it gives a slot. ``within``: seconds the caller may
    wait at most (its trial's deadline); a longer wait (a 429's Retry-After pausing every worker, a full bucket)
    raises DeadlineExceeded at once instead of waiting in vain."""
    began = clock()
    while True:
        slot, wait = try_acquire(tokens)
        if slot is not None:
            return slot
        if within is not None and (clock() - began) + wait >= within:
            raise DeadlineExceeded(
                f"the shared rate limit asks to wait {wait:.1f} s more (a 429's Retry-After or "
                f"PCG_RPM/PCG_TPM), past the trial's deadline ({within:.1f} s it could wait): "
                "the item errors (rerun it with --lf)"
            )
        sleep(min(max(wait, 0.01), 1.0))


class SharedLimiter:
    """Requests/min and tokens/min buckets plus a concurrency cap, one file for all processes on a machine.

    ``acquire(tokens)`` blocks until a request may start and returns a slot; ``release(slot, used)`` frees it and
    corrects the token bucket by what the call really used; ``pause(seconds)`` makes every process wait
    (a 429's Retry-After applies to the account, not to one worker).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        rpm: float | None = None,
        tpm: float | None = None,
        concurrency: int | None = None,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        p = Path(path)
        if p.is_dir() or not p.suffix:
            p = p / "ratelimit.sqlite3"
        p.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.rpm, self.tpm, self.concurrency = p, rpm, tpm, concurrency
        self._clock, self._sleep = clock, sleep
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._started: str | None = None
        self._lock = threading.Lock()  # one connection, one transaction at a time: trials in flight share this limiter
        wal.until_unlocked(lambda: wal.create(self._db(), SCHEMA, "slots"), LOCK_WAIT_S)

    def _db(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            self._conn = wal.connect(self.path, LOCK_WAIT_S)
            self._pid = os.getpid()
            self._started = process_started(self._pid)  # with the pid, which process holds a slot
        return self._conn

    def _try(self, tokens: int) -> tuple[str | None, float]:
        """One transaction: take a slot now, or say how long to wait."""
        with self._lock:
            return self._try_locked(tokens)

    def _try_locked(self, tokens: int) -> tuple[str | None, float]:
        db, now = self._db(), self._clock()
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT until FROM pause WHERE id=0").fetchone()
            if row and row[0] > now:
                return None, row[0] - now
            for sid, pid, started, expires in db.execute("SELECT id, pid, started, expires FROM slots").fetchall():
                if expires < now or not _alive(pid, started):  # gone, or its pid given to another process since
                    db.execute("DELETE FROM slots WHERE id=?", (sid,))
            waits = []
            levels = {}
            for name, limit, need in (("requests", self.rpm, 1.0), ("tokens", self.tpm, float(tokens))):
                if not limit:
                    continue
                row = db.execute("SELECT level, stamp FROM bucket WHERE name=?", (name,)).fetchone()
                level = float(limit) if row is None else refill(row[0], max(0.0, now - row[1]), float(limit))
                need = min(need, float(limit))  # one oversized call may still run, alone
                levels[name] = (level, need)
                if level < need:
                    waits.append((need - level) * 60.0 / float(limit))
            if self.concurrency:
                (busy,) = db.execute("SELECT COUNT(*) FROM slots").fetchone()
                if busy >= self.concurrency:
                    waits.append(0.05)
            if waits:
                return None, max(waits)
            for name, (level, need) in levels.items():
                db.execute("INSERT OR REPLACE INTO bucket VALUES (?,?,?)", (name, level - need, now))
            sid = uuid.uuid4().hex
            db.execute(
                "INSERT INTO slots (id, pid, tokens, expires, started) VALUES (?,?,?,?,?)",
                (sid, os.getpid(), int(tokens), now + SLOT_TTL, self._started),
            )
            return sid, 0.0
        finally:
            db.execute("COMMIT")

    def acquire(self, tokens: int = 0, *, within: float | None = None) -> str:
        """Block until a call with about ``tokens`` tokens may start; returns the slot to release
        (``wait_for_slot``)."""
        return wait_for_slot(self._try, tokens, within, self._clock, self._sleep)

    def release(self, slot: str, used_tokens: int = 0) -> None:
        """Free the slot; charge (or refund) the difference between the estimate and the real usage."""
        with self._lock:
            self._release_locked(slot, used_tokens)

    def _release_locked(self, slot: str, used_tokens: int) -> None:
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT tokens FROM slots WHERE id=?", (slot,)).fetchone()
            db.execute("DELETE FROM slots WHERE id=?", (slot,))
            if row is not None and self.tpm and used_tokens:
                db.execute(
                    "UPDATE bucket SET level = MIN(?, level - ?) WHERE name='tokens'",
                    (float(self.tpm), float(used_tokens - row[0])),
                )
        finally:
            db.execute("COMMIT")

    def pause(self, seconds: float) -> None:
        """Everyone waits ``seconds`` from now (extends, never shortens, a pause already in force)."""
        with self._lock:
            db = self._db()
            until = self._clock() + seconds
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "INSERT INTO pause VALUES (0, ?) ON CONFLICT(id) DO UPDATE SET until=MAX(until, ?)", (until, until)
                )
            finally:
                db.execute("COMMIT")

    def in_flight(self) -> int:
        with self._lock:
            (busy,) = self._db().execute("SELECT COUNT(*) FROM slots").fetchone()
        return int(busy)

    @classmethod
    def from_env(
        cls, folder: str | os.PathLike[str], env: dict[str, str] | None = None, endpoint: str = ""
    ) -> SharedLimiter | None:
        """``PCG_RPM``/``PCG_TPM``/``PCG_CONCURRENCY`` -> the limiter of ``endpoint`` (``endpoint_of``) in ``folder``,
        one for every process (None: unset). No endpoint: one file for every call (``ratelimit.sqlite3``)."""
        env = dict(os.environ) if env is None else env
        rpm, tpm, conc = (env.get(k, "").strip() for k in ("PCG_RPM", "PCG_TPM", "PCG_CONCURRENCY"))
        if not (rpm or tpm or conc):
            return None
        try:
            limits = (float(rpm) if rpm else None, float(tpm) if tpm else None, int(conc) if conc else None)
        except ValueError as exc:
            raise ValueError(f"PCG_RPM/PCG_TPM/PCG_CONCURRENCY must be numbers: {exc}") from exc
        if _REMOTE:
            return _REMOTE[0](folder, *limits, endpoint=endpoint)
        return cls(Path(folder) / endpoint_file(endpoint) if endpoint else folder, *limits)
