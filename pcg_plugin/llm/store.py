"""SQLite response store: per-trial ordered call recordings, committed before use, replayed in order.

Format 2 (written since issue 38) keeps each message once: a call's row holds its request without the messages,
the earlier call of the trial whose messages it continues (``prefix_idx``, ``prefix_len``) and the hashes of
the messages it adds; ``messages`` maps a hash to the message's canonical JSON, shared by every call and trial
that sends it (a conversation's history, a prompt sent in every trial). The choices are such messages too, so a
reply that comes back in the next request's history is not stored twice: a conversation costs what was said,
not the square of it. A trial's final response and its program's result are such messages too (``final_hash``,
``program_hash``): the reply they usually are is not stored again, and the trial's row stays small. Format 1
rows (the whole request and the choices as JSON, written before) are still read as they are; a store gets the
new columns when a process opens it, and its old rows are never rewritten.

A call dropped from a recording (a program that asked something else; ``--pcg-record all``) is moved to
``dropped_calls``: a reply once paid for is never deleted. A write the disk refuses (full, read-only) breaks
the store for the process (``StoreWriteFailed``): it pays for no further call.

Every JSON text is written with lone surrogates escaped (``\\ud83d``): any string JSON can carry is stored and
replayed exactly, and SQLite only ever sees valid UTF-8.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pcg_plugin._util import jsontext
from pcg_plugin._util.devices import pid_alive
from pcg_plugin._util.paths import stem
from pcg_plugin._util.trial_dirs import process_started
from pcg_plugin.core.records import calls
from pcg_plugin.errors import InfrastructureError, StoreWriteFailed
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
CREATE TABLE IF NOT EXISTS messages (hash TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS dropped_calls (
    key_id TEXT NOT NULL, idx INTEGER NOT NULL, request_hash TEXT NOT NULL, request TEXT NOT NULL,
    choices TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    started REAL NOT NULL, duration REAL NOT NULL, created REAL NOT NULL, format INTEGER NOT NULL,
    prefix_idx INTEGER, prefix_len INTEGER, messages TEXT, error TEXT, dropped REAL NOT NULL
);
"""
# A call dropped from a recording (a program that asked something else, ``--pcg-record all``) is moved to
# ``dropped_calls``, never deleted: every reply paid for stays in the store.
CALL_COLUMNS = (
    "key_id, idx, request_hash, request, choices, prompt_tokens, completion_tokens, started, duration,"
    " created, format, prefix_idx, prefix_len, messages, error"
)
# Why SQLite refused a write that the disk, not the run, is to blame for: the store is broken for this process.
DISK_ERRORS = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_CORRUPT", "SQLITE_NOTADB")
# Columns of format 2, added to a store written before them (a format 1 row has them NULL, ``format`` 1).
ADDED_COLUMNS = {
    "trials": ("message TEXT", "final_hash TEXT", "program_hash TEXT", "program_calls INTEGER"),
    "calls": (
        "format INTEGER NOT NULL DEFAULT 1",
        "prefix_idx INTEGER",
        "prefix_len INTEGER",
        "messages TEXT",
        "error TEXT",
    ),
}
SQL_VARIABLES = 500  # hashes asked for in one query (SQLite's limit on bound variables is 999 or more)


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON text SQLite can hold whatever strings ``value`` carries (``jsontext``)."""
    return jsontext.dumps(value, sort_keys=sort_keys, separators=(",", ":"))


def message_body(message: Any) -> tuple[str, str]:
    """A message's canonical JSON (keys sorted) and its hash: equal messages are stored once."""
    body = dumps(message, sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest(), body


def disk_refused(exc: BaseException) -> bool:
    """True for a write the disk refused (full, read-only, gone, an I/O error), not a lock or a constraint."""
    if isinstance(exc, OSError):
        return True
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    if name:
        return name.startswith(DISK_ERRORS)
    text = str(exc).lower()  # an SQLite too old to name its errors
    return any(w in text for w in ("disk is full", "disk i/o", "readonly", "unable to open"))


def _drop_calls(db: sqlite3.Connection, key: TrialKey, start: int) -> None:
    """Move the trial's calls from ``start`` on to ``dropped_calls`` (kept, no longer replayed)."""
    db.execute(
        f"INSERT INTO dropped_calls ({CALL_COLUMNS}, dropped) SELECT {CALL_COLUMNS}, ? FROM calls"
        " WHERE key_id=? AND idx>=?",
        (time.time(), key.id, start),
    )
    db.execute("DELETE FROM calls WHERE key_id=? AND idx>=?", (key.id, start))


def common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):  # the shorter list ends the common prefix
        if x != y:
            break
        n += 1
    return n


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
    error: dict[str, str] | None = None  # a request the server refused: {"reason", "message"}, no choices


@dataclass(frozen=True)
class TrialRecord:
    key: TrialKey
    status: str  # open | complete | failed
    final_response: str | None
    reason: str | None
    calls: list[RecordedCall]
    message: str | None = None  # a failed trial's message, as it was reported
    program_result: str | None = None  # what the participant's program returned, once it had
    program_calls: int | None = None  # how many of the calls the program made


def request_hash(request: dict[str, Any]) -> str:
    """Canonical hash of a request as sent (model, sampling, n, messages); a lone surrogate hashes as its UTF-8
    bytes would be written, so every request has one (and one without keeps the hash it always had)."""
    text = json.dumps(request, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _owner() -> str:
    """``host:pid:nonce:start``: the claimant, told apart from a later process given the same pid."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}:{process_started(os.getpid()) or ''}"


# the claims this process holds, by owner: the trial (its call log) that made each, so that a trial still running
# on another thread of this process keeps its claim, while one that is over (an item that errored) is taken over
_HELD: dict[str, weakref.ref[calls.Log]] = {}
_HELD_LOCK = threading.Lock()


def _hold(owner: str) -> None:
    log = calls.current()
    with _HELD_LOCK:
        if log is None:
            _HELD.pop(owner, None)
        else:
            _HELD[owner] = weakref.ref(log)


def _let_go(owner: str | None) -> None:
    with _HELD_LOCK:
        _HELD.pop(owner or "", None)


def _owner_alive(owner: str | None) -> bool:
    if not owner:
        return False
    host, _, rest = owner.partition(":")
    if host != socket.gethostname():
        return True  # another machine: trust the lease
    parts = rest.split(":")
    pid = int(parts[0]) if parts[0].isdigit() else -1
    if pid == os.getpid():  # ours: a trial still running on another thread holds it; an earlier attempt does not
        with _HELD_LOCK:
            held = _HELD.get(owner)
        log = held() if held is not None else None
        return calls.is_live(log) and log is not calls.current()
    started = parts[2] if len(parts) > 2 and parts[2] else None  # a claim written before it was recorded: none
    return pid > 0 and pid_alive(pid, started)  # a pid given to another process since: the claimant is gone


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
        self.broken: str | None = None  # set by a failed write: this process pays for nothing more
        wal.until_unlocked(lambda: self._db().executescript(SCHEMA), timeout)
        wal.until_unlocked(self._add_columns, timeout)

    def _add_columns(self) -> None:
        """Bring a store written before format 2 up to it (one process does it; the others find it done)."""
        db = self._db()

        def missing() -> list[tuple[str, str]]:
            have = {t: {row[1] for row in db.execute(f"PRAGMA table_info({t})")} for t in ADDED_COLUMNS}
            return [(t, c) for t, cols in ADDED_COLUMNS.items() for c in cols if c.split()[0] not in have[t]]

        if not missing():
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            for table, column in missing():
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- connection -------------------------------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        """One connection per process (a forked child never reuses its parent's)."""
        if self._conn is None or self._pid != os.getpid():
            conn = wal.connect(self.path, self._timeout)
            conn.execute("PRAGMA synchronous=FULL")  # a committed response survives power loss, not just a crash
            conn.execute(f"PRAGMA busy_timeout={int(self._timeout * 1000)}")
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
                if not exc_type:
                    self.conn.execute("COMMIT")
                elif self.conn.in_transaction:  # SQLite already rolled back after some errors (a full disk)
                    self.conn.execute("ROLLBACK")
            finally:
                self.lock.release()

    def _tx(self) -> ResponseStore._Tx:
        return ResponseStore._Tx(self._db(), self._lock)

    @contextmanager
    def _write(self, what: str) -> Iterator[sqlite3.Connection]:
        """A write transaction; a write SQLite or the disk refuses (full, read-only, gone) is StoreWriteFailed,
        and marks the store broken so that this process pays for nothing more."""
        if self.broken:
            raise StoreWriteFailed(self.broken)
        try:
            with self._tx() as db:
                yield db
        except (sqlite3.Error, OSError) as exc:
            if not disk_refused(exc):
                raise  # a lock held too long, a constraint: this item's error, the store is fine
            self.broken = (
                f"the response store {self.path} could not be written ({type(exc).__name__}: {exc}) "
                f"while {what}; the run stops paying for calls it cannot store"
            )
            raise StoreWriteFailed(self.broken) from exc

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
        row = db.execute(
            "SELECT status, final_response, reason, message, final_hash, program_hash, program_calls"
            " FROM trials WHERE key_id=?",
            (key.id,),
        ).fetchone()
        if row is None:
            return None
        rows = db.execute(
            "SELECT idx, request_hash, request, choices, prompt_tokens, completion_tokens, started, duration, format,"
            " prefix_idx, prefix_len, messages, error FROM calls WHERE key_id=? ORDER BY idx",
            (key.id,),
        ).fetchall()
        hashes = self._hash_lists(rows)
        bodies = self._bodies(db, {h for r in rows if r[8] == 2 for h in (*hashes[r[0]], *json.loads(r[3]))})
        calls = []
        for i, h, rq, ch, pt, ct, st, du, fmt, _pi, _pl, _m, err in rows:
            request, choices = json.loads(rq), json.loads(ch)
            if fmt == 2:
                request["messages"] = [bodies[m] for m in hashes[i]]
                choices = [bodies[c]["content"] for c in choices]
            calls.append(RecordedCall(i, h, request, choices, pt, ct, st, du, json.loads(err) if err else None))
        texts = self._bodies(db, {h for h in (row[4], row[5]) if h})
        final = texts[row[4]]["content"] if row[4] else row[1]
        program = texts[row[5]]["content"] if row[5] else None
        return TrialRecord(key, row[0], final, row[2], calls, row[3], program, row[6])

    @staticmethod
    def _hash_lists(rows: list[Any]) -> dict[int, list[str]]:
        """Each call's message hashes, by idx: a format 2 call continues an earlier call's first messages; a
        format 1 call's are computed from its request."""
        out: dict[int, list[str]] = {}
        for idx, _h, request, _c, _p, _t, _s, _d, fmt, prefix_idx, prefix_len, more, *_ in rows:
            if fmt == 2:
                head = out[prefix_idx][:prefix_len] if prefix_idx is not None else []
                out[idx] = head + json.loads(more)
            else:
                out[idx] = [message_body(m)[0] for m in json.loads(request).get("messages", [])]
        return out

    @staticmethod
    def _bodies(db: sqlite3.Connection, hashes: set[str]) -> dict[str, Any]:
        """The messages of these hashes, each decoded once (calls sharing a message share the object)."""
        out: dict[str, Any] = {}
        wanted = sorted(hashes)
        for start in range(0, len(wanted), SQL_VARIABLES):
            chunk = wanted[start : start + SQL_VARIABLES]
            marks = ",".join("?" * len(chunk))
            for h, body in db.execute(f"SELECT hash, body FROM messages WHERE hash IN ({marks})", chunk):
                out[h] = json.loads(body)
        missing = hashes - out.keys()
        if missing:
            raise InfrastructureError(f"the response store lacks {len(missing)} message(s) its calls refer to")
        return out

    def holder_busy(self, holder: str, me: str) -> bool:
        """Whether ``holder``'s claim (within its lease) still stands against ``me``: a live process does."""
        return _owner_alive(holder)

    def claim(self, key: TrialKey, *, wait: float = LEASE_S, reset: bool = False, owner: str | None = None) -> str:
        """Take the trial for this process (waiting while a live process holds it); ``reset`` drops its calls.
        ``owner``: who claims (default this process; the cluster's store names a Ray task's attempt)."""
        me, deadline = owner or _owner(), time.monotonic() + wait
        while True:
            with self._write(f"claiming trial {key.submission}/{key.letter}/{key.trial}") as db:
                now = time.time()
                row = db.execute("SELECT owner, lease_until FROM trials WHERE key_id=?", (key.id,)).fetchone()
                busy = row is not None and row[0] and (row[1] or 0) > now and self.holder_busy(row[0], me)
                if not busy:
                    if row is None:
                        db.execute(
                            "INSERT INTO trials (key_id, edition, model, submission, submission_hash, letter, trial,"
                            " status, owner, lease_until, created, updated) VALUES (?,?,?,?,?,?,?,'open',?,?,?,?)",
                            (
                                key.id,
                                key.edition,
                                key.model,
                                key.submission,
                                key.submission_hash,
                                key.letter,
                                key.trial,
                                me,
                                now + LEASE_S,
                                now,
                                now,
                            ),
                        )
                    else:
                        db.execute(
                            "UPDATE trials SET owner=?, lease_until=?, updated=? WHERE key_id=?",
                            (me, now + LEASE_S, now, key.id),
                        )
                    _hold(me)
                    if reset:
                        _drop_calls(db, key, 0)
                        db.execute(
                            "UPDATE trials SET status='open', final_response=NULL, reason=NULL, message=NULL,"
                            " final_hash=NULL, program_hash=NULL, program_calls=NULL WHERE key_id=?",
                            (key.id,),
                        )
                    return me
            if time.monotonic() >= deadline:
                raise InfrastructureError(f"trial {key.submission}/{key.letter}/{key.trial} is held by {row[0]}")
            time.sleep(0.2)

    def record_call(self, key: TrialKey, owner: str, call: RecordedCall, *, truncate: bool = False) -> None:
        """Commit one call (durably) before its response is used; ``truncate`` drops a diverged tail first.
        Stored in format 2: the messages it shares with an earlier call of the trial are not written again."""
        where = f"storing call {call.idx + 1} of trial {key.submission}/{key.letter}/{key.trial}"
        with self._write(where) as db:
            held = db.execute("SELECT owner FROM trials WHERE key_id=?", (key.id,)).fetchone()
            if held is None or held[0] != owner:
                raise InfrastructureError(f"lost the claim on trial {key.submission}/{key.letter}/{key.trial}")
            if truncate:
                _drop_calls(db, key, call.idx)
                db.execute(
                    "UPDATE trials SET status='open', final_response=NULL, final_hash=NULL, program_hash=NULL,"
                    " program_calls=NULL WHERE key_id=?",
                    (key.id,),
                )
            hashes = [self._put(db, m) for m in call.request.get("messages", [])]
            choices = [self._put(db, {"role": "assistant", "content": c}) for c in call.choices]
            earlier = self._hash_lists(
                db.execute(
                    "SELECT idx, request_hash, request, choices, prompt_tokens, completion_tokens, started, duration,"
                    " format, prefix_idx, prefix_len, messages FROM calls WHERE key_id=? AND idx<? ORDER BY idx",
                    (key.id, call.idx),
                ).fetchall()
            )
            prefix_idx, prefix_len = None, 0
            for idx, seen in earlier.items():
                shared = common_prefix(seen, hashes)
                if shared and shared >= prefix_len:
                    prefix_idx, prefix_len = idx, shared
            request = {k: v for k, v in call.request.items() if k != "messages"}
            now = time.time()
            db.execute(
                "INSERT INTO calls (key_id, idx, request_hash, request, choices, prompt_tokens, completion_tokens,"
                " started, duration, created, format, prefix_idx, prefix_len, messages, error)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,2,?,?,?,?)",
                (
                    key.id,
                    call.idx,
                    call.request_hash,
                    dumps(request),
                    dumps(choices),
                    call.prompt_tokens,
                    call.completion_tokens,
                    call.started,
                    call.duration,
                    now,
                    prefix_idx,
                    prefix_len if prefix_idx is not None else None,
                    dumps(hashes[prefix_len:]),
                    dumps(call.error) if call.error is not None else None,
                ),
            )
            db.execute("UPDATE trials SET lease_until=?, updated=? WHERE key_id=?", (now + LEASE_S, now, key.id))

    @classmethod
    def _put_text(cls, db: sqlite3.Connection, text: str) -> str:
        """A final response or a program's result, kept as the assistant message of that text: the reply it
        usually is is stored once, and the trial's row stays small (it is rewritten at every claim)."""
        return cls._put(db, {"role": "assistant", "content": text})

    @staticmethod
    def _put(db: sqlite3.Connection, message: Any) -> str:
        digest, body = message_body(message)
        db.execute("INSERT OR IGNORE INTO messages (hash, body) VALUES (?, ?)", (digest, body))
        return digest

    def record_program(self, key: TrialKey, owner: str | None, result: str, calls: int) -> None:
        """What the participant's program returned and how many calls it made: a rerun reuses it instead of
        running the program again (whose prompt may differ: unseeded sampling)."""
        with self._write(f"storing the program's result of trial {key.submission}/{key.letter}/{key.trial}") as db:
            db.execute(
                "UPDATE trials SET program_hash=?, program_calls=?, updated=? WHERE key_id=?"
                " AND (owner IS NULL OR owner=?)",
                (self._put_text(db, result), int(calls), time.time(), key.id, owner),
            )

    def finish(
        self,
        key: TrialKey,
        owner: str | None,
        *,
        status: str,
        final_response: str | None = None,
        reason: str | None = None,
        message: str | None = None,
    ) -> None:
        """Mark the trial complete (with its final response) or failed (its reason and message), and release it."""
        _let_go(owner)
        with self._write(f"finishing trial {key.submission}/{key.letter}/{key.trial}") as db:
            final = self._put_text(db, final_response) if final_response is not None else None
            db.execute(
                "UPDATE trials SET status=?, final_response=NULL, final_hash=?, reason=?, message=?, owner=NULL,"
                " lease_until=NULL, updated=? WHERE key_id=? AND (owner IS NULL OR owner=?)",
                (status, final, reason, message, time.time(), key.id, owner),
            )

    def release(self, key: TrialKey, owner: str) -> None:
        _let_go(owner)
        if self.broken:
            return  # nothing can be written; the lease runs out, or the owner's death frees the trial
        with self._write(f"releasing trial {key.submission}/{key.letter}/{key.trial}") as db:
            db.execute("UPDATE trials SET owner=NULL, lease_until=NULL WHERE key_id=? AND owner=?", (key.id, owner))

    # -- queries and export -----------------------------------------------------------------------------------
    def replies_held(self) -> dict[str, int]:
        """Calls in recordings and calls dropped from them: every reply this store was paid for holds one."""
        db = self._db()
        return {
            "recorded": int(db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]),
            "dropped": int(db.execute("SELECT COUNT(*) FROM dropped_calls").fetchone()[0]),
        }

    def trials(
        self, *, edition: str | None = None, model: str | None = None, submission: str | None = None
    ) -> Iterator[TrialRecord]:
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
            u = out.setdefault(
                rec.key.submission, {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0, "trials": 0}
            )
            u["trials"] += 1
            for c in rec.calls:
                u["calls"] += 1
                u["prompt_tokens"] += c.prompt_tokens
                u["completion_tokens"] += c.completion_tokens
        return out

    def export_raw_layout(
        self,
        root: str | os.PathLike[str],
        *,
        edition: str,
        model: str,
        submission: str | None = None,
        team: str | None = None,
    ) -> list[Path]:
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
