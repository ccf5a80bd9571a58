"""The spending cap (``--pcg-max-cost USD``, ``PCG_MAX_COST``): one ledger of what a run has paid and what its calls
in flight may still cost, shared by every thread, xdist worker and cluster actor of the run, so that no call starts
once what is spent plus the worst case of the calls in flight would pass the cap.

The ledger is a SQLite file beside the response store, as the rate limiters are (``llm.ratelimit``), named by the
run id; on a cluster, one actor on the driver's node holds that file and the trial actors reach it by name
(``cluster.shared``). Amounts are whole nanodollars, rounded up, so that the sums are exact: a call's real cost,
rounded up, never exceeds its worst case, rounded up.

A call ``reserve``s its worst case (``worst_case``: its prompt counted as one token per byte of text, the most a
tokenizer can make of it, plus ``max_tokens`` of each choice, or ``UNBOUNDED_REPLY_TOKENS`` when the request sends
none, at the model's price) and ``settle``s it with what the reply's usage cost. ``decide`` is the whole rule."""

from __future__ import annotations

import math
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pcg_plugin._util.devices import pid_alive
from pcg_plugin._util.trial_dirs import process_started
from pcg_plugin.errors import CostCapReached, DeadlineExceeded
from pcg_plugin.llm import wal

ENV = "PCG_MAX_COST"
DEST = "pcg_max_cost"
RUN_KEY = "max_cost"  # the run's {"cap": USD, "file": ledger path}, handed to every worker with the run
NANO = 1_000_000_000  # nanodollars per dollar
UNBOUNDED_REPLY_TOKENS = 16_384  # a reply's worst case when the request sends no max_tokens (gpt-4o's output limit)
MESSAGE_FRAMING_TOKENS = 8  # per message: role and separators, more than any chat template spends
LOCK_WAIT_S = 60.0
FREE_BACKENDS = ("offline", "transformers", "scripted")  # in-process: a model without a price costs nothing
WAIT_S = 0.05  # a call that fits once the calls in flight settle asks again after this

SCHEMA = """
CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY CHECK (id = 0), cap INTEGER NOT NULL,
                                   spent INTEGER NOT NULL, stopped INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS held (id TEXT PRIMARY KEY, pid INTEGER NOT NULL, worst INTEGER NOT NULL);
"""


class Decision(StrEnum):
    GO = "go"  # reserve the worst case and call
    WAIT = "wait"  # it fits once calls in flight settle (they may cost less than their worst case)
    STOP = "stop"  # it can never fit: the cap is reached, no call starts from now on


def decide(cap: int, spent: int, held: int, worst: int, stopped: bool) -> Decision:
    """Whether a call of worst case ``worst`` may start, with ``spent`` paid and ``held`` reserved by calls in flight.
    What is spent only grows, so a call that does not fit beside what is spent never will: the run stops."""
    if stopped or spent + worst > cap:
        return Decision.STOP
    if spent + held + worst > cap:
        return Decision.WAIT
    return Decision.GO


def nanodollars(usd: float) -> int:
    """Dollars as whole nanodollars, rounded up (a cost is never under-counted)."""
    return math.ceil(round(usd * NANO, 6))


def dollars(nano: int) -> str:
    """An amount as the summary and the docs show it."""
    return f"${nano / NANO:,.4f}"


def prompt_tokens_at_most(messages: Sequence[Mapping[str, Any]]) -> int:
    """The most tokens a prompt can count: every tokenizer the providers use makes a token of at least one byte of
    text, and a message's framing costs a few more."""
    return sum(len(str(m.get("content", "")).encode("utf-8", "surrogatepass")) for m in messages) + (
        MESSAGE_FRAMING_TOKENS * (len(messages) + 1)
    )


def reply_tokens_at_most(request: Mapping[str, Any], n: int) -> int:
    """The most completion tokens a request can be billed: ``max_tokens`` (or ``max_completion_tokens``) of each of
    its ``n`` choices, else ``UNBOUNDED_REPLY_TOKENS`` each."""
    limit = request.get("max_completion_tokens") or request.get("max_tokens")
    return max(1, n) * (int(limit) if limit else UNBOUNDED_REPLY_TOKENS)


def worst_case(
    price: tuple[float, float], messages: Sequence[Mapping[str, Any]], request: Mapping[str, Any], n: int
) -> int:
    """A call's worst case in nanodollars at ``price`` (USD per million prompt and completion tokens)."""
    prompt, reply = prompt_tokens_at_most(messages), reply_tokens_at_most(request, n)
    return nanodollars((prompt * price[0] + reply * price[1]) / 1e6)


@dataclass(frozen=True)
class State:
    """The ledger as read at one moment (the end of a run: what it says)."""

    cap: int
    spent: int
    held: int
    stopped: bool

    def text(self) -> str:
        return f"stopped at the cost cap: {dollars(self.spent)} of {dollars(self.cap)}"

    @property
    def cap_usd(self) -> float:
        return self.cap / NANO

    @property
    def spent_usd(self) -> float:
        return self.spent / NANO


class Ledger:
    """The pure ledger (one process, or the state an actor holds): ``reserve`` a call's worst case, ``settle`` it."""

    def __init__(self, cap: int) -> None:
        self.cap, self.spent, self.stopped = int(cap), 0, False
        self.held: dict[str, int] = {}

    def reserve(self, worst: int) -> tuple[Decision, str | None]:
        decision = decide(self.cap, self.spent, sum(self.held.values()), worst, self.stopped)
        if decision is Decision.STOP:
            self.stopped = True
            return decision, None
        if decision is Decision.WAIT:
            return decision, None
        slot = uuid.uuid4().hex
        self.held[slot] = int(worst)
        return decision, slot

    def settle(self, slot: str, cost: int) -> None:
        """The call is over: its reservation goes, what it cost is spent (what the reply's usage says, even past
        its worst case: a server that ignores ``max_tokens`` is paid all the same)."""
        if self.held.pop(slot, None) is not None:
            self.spent += int(cost)

    def state(self) -> State:
        return State(self.cap, self.spent, sum(self.held.values()), self.stopped)


class SharedLedger:
    """``Ledger``'s rule over a SQLite file every process of a run opens (WAL, one transaction per decision).
    A reservation whose process died is charged in full (its call may have been paid), unless ``reclaim`` is off
    (an actor serving other hosts, whose pids mean nothing here)."""

    def __init__(self, path: str | os.PathLike[str], cap: int | None = None, *, reclaim: bool = True) -> None:
        self.path, self.reclaim = Path(path), reclaim
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._lock = threading.Lock()
        wal.until_unlocked(lambda: wal.create(self._db(), SCHEMA, "held"), LOCK_WAIT_S)
        if cap is not None:
            self._write(lambda db: db.execute("INSERT OR IGNORE INTO ledger VALUES (0, ?, 0, 0)", (int(cap),)))

    def _db(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            self._conn = wal.connect(self.path, LOCK_WAIT_S)
            self._pid = os.getpid()
        return self._conn

    def _write(self, body: Callable[[sqlite3.Connection], Any]) -> Any:
        with self._lock:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
            try:
                return body(db)
            finally:
                db.execute("COMMIT")

    def _reclaim(self, db: sqlite3.Connection) -> None:
        if not self.reclaim:
            return
        for slot, pid, started, worst in db.execute("SELECT id, pid, started, worst FROM held").fetchall():
            if not pid_alive(pid, started):  # gone, or its pid given to another process since
                db.execute("DELETE FROM held WHERE id=?", (slot,))
                db.execute("UPDATE ledger SET spent = spent + ? WHERE id=0", (worst,))

    def reserve(self, worst: int, pid: int | None = None, started: str | None = None) -> tuple[Decision, str | None]:
        """Room for a call's ``worst`` case, held for the process ``pid`` (this one) that ``started`` then
        (``trial_dirs.process_started``; by default the time ``pid`` started)."""
        owner = os.getpid() if pid is None else pid
        since = started if started is not None else process_started(owner)

        def body(db: sqlite3.Connection) -> tuple[Decision, str | None]:
            self._reclaim(db)
            cap, spent, stopped = db.execute("SELECT cap, spent, stopped FROM ledger WHERE id=0").fetchone()
            (held,) = db.execute("SELECT COALESCE(SUM(worst), 0) FROM held").fetchone()
            decision = decide(cap, spent, held, int(worst), bool(stopped))
            if decision is Decision.STOP:
                db.execute("UPDATE ledger SET stopped = 1 WHERE id=0")
            if decision is not Decision.GO:
                return decision, None
            slot = uuid.uuid4().hex
            db.execute("INSERT INTO held (id, pid, worst, started) VALUES (?,?,?,?)", (slot, owner, int(worst), since))
            return decision, slot

        decision: tuple[Decision, str | None] = self._write(body)
        return decision

    def settle(self, slot: str, cost: int) -> None:
        def body(db: sqlite3.Connection) -> None:
            row = db.execute("SELECT worst FROM held WHERE id=?", (slot,)).fetchone()
            if row is None:
                return
            db.execute("DELETE FROM held WHERE id=?", (slot,))
            db.execute("UPDATE ledger SET spent = spent + ? WHERE id=0", (int(cost),))

        self._write(body)

    def state(self) -> State:
        with self._lock:
            db = self._db()
            cap, spent, stopped = db.execute("SELECT cap, spent, stopped FROM ledger WHERE id=0").fetchone()
            (held,) = db.execute("SELECT COALESCE(SUM(worst), 0) FROM held").fetchone()
        return State(int(cap), int(spent), int(held), bool(stopped))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class Budget:
    """A process's handle on the run's ledger (a ``SharedLedger``, or a cluster's remote one): what a trial asks
    before each paid call (``hold``) and tells after it (``settle``)."""

    def __init__(
        self, ledger: Any, cap: int, *, sleep: Callable[[float], None] = time.sleep, owns: str | None = None
    ) -> None:
        self.ledger, self.cap, self._sleep = ledger, int(cap), sleep
        self.owns = owns  # the ledger file this process made (the controller's), removed by ``finish``

    def hold(self, worst: int, where: str, time_left: Callable[[], float]) -> str:
        """Reserve ``worst`` nanodollars for a call about to start: wait while it fits only once the calls in flight
        settle (``time_left()`` seconds at most, then ``DeadlineExceeded``), raise ``CostCapReached`` when it can
        never fit."""
        while True:
            decision, slot = self.ledger.reserve(int(worst))
            if slot is not None:
                return str(slot)
            if decision is Decision.STOP:
                state = self.ledger.state()
                raise CostCapReached(
                    f"{where}: not run: {state.text()} (this call could cost up to {dollars(int(worst))}); "
                    "rerun with a higher --pcg-max-cost to pay only what is missing"
                )
            if time_left() <= WAIT_S:  # as a rate limit's wait past the deadline: the item errors, --lf reruns it
                raise DeadlineExceeded(
                    f"{where}: the calls in flight hold what is left of the {dollars(self.cap)} cost cap past the "
                    "trial's deadline: the item errors (rerun it with --lf), nothing was sent"
                )
            self._sleep(WAIT_S)

    def settle(self, slot: str, cost_usd: float | None) -> None:
        self.ledger.settle(slot, nanodollars(cost_usd or 0.0))

    def state(self) -> State:
        state: State = self.ledger.state()
        return state

    def finish(self) -> None:
        """The run is over in this process: the ledger is closed, and the controller removes its file (its
        figures are in results.json's ``cost_cap``)."""
        if current() is self:
            install(None)
        if hasattr(self.ledger, "close"):
            self.ledger.close()
        if self.owns is not None:
            for suffix in ("", "-wal", "-shm"):
                Path(self.owns + suffix).unlink(missing_ok=True)


_REMOTE: list[Any] = []  # set in a cluster's trial actor: ``factory(path)`` gives the driver's ledger actor
_current: Budget | None = None


def use_remote_ledger(factory: Any) -> None:
    """``factory(path)``: the ledger a cluster's trial actor uses instead of opening a file its host may not have."""
    _REMOTE[:] = [factory] if factory is not None else []


def install(budget: Budget | None) -> None:
    global _current
    _current = budget


def current() -> Budget | None:
    """This process's budget (None: the run has no cap)."""
    return _current


def parse_cap(text: str | None, source: str) -> float | None:
    """A cap in dollars: a number above 0 (``source`` names the option or variable in the error)."""
    if text is None or not str(text).strip():
        return None
    try:
        value = float(str(text).strip().lstrip("$"))
    except ValueError:
        raise ValueError(f"{source}: {text!r} is not an amount of dollars") from None
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{source}: {text} must be an amount of dollars above 0")
    return value


def ledger_file(folder: str | os.PathLike[str], run_id: str) -> Path:
    return Path(folder) / f"spending-{run_id}.sqlite3"


def open_budget(plan: Mapping[str, Any], *, owner: bool = False) -> Budget:
    """The budget of a run from its ``RUN_KEY`` entry, in any process (a cluster's actor: the remote ledger);
    ``owner``: this process made the ledger (the controller) and removes its file at the end."""
    cap = nanodollars(float(plan["cap"]))
    ledger = _REMOTE[0](plan["file"]) if _REMOTE else SharedLedger(plan["file"], cap)
    return Budget(ledger, cap, owns=str(plan["file"]) if owner else None)


def configure(config: Any, settings: Any, run: dict[str, Any]) -> Budget | None:
    """In every process of a run, as it is configured: this process's budget, installed (None: no cap). On the
    controller: the cap (``--pcg-max-cost``, else ``$PCG_MAX_COST``), each named model's price checked (a usage
    error before any call names a model without one and ``--pcg-prices``) and the ledger made; the plan travels
    in the run to every worker, which opens it."""
    import pytest

    from pcg_plugin.core.contract.options import option_value

    plan = run.get(RUN_KEY)
    if getattr(config, "workerinput", None) is None:
        try:
            option = option_value(config, DEST)
        except ValueError:  # no installed problem registered the option (its ini key is unknown)
            option = None
        source = "--pcg-max-cost" if option is not None else f"${ENV}"
        try:
            cap = parse_cap(option if option is not None else os.environ.get(ENV), source)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
        store = getattr(settings, "store", None)
        if cap is None or getattr(settings, "record", "once") == "none" or store is None:
            install(None)  # no cap, or nothing can be paid (replay only)
            return None
        _check_prices(settings)
        plan = {"cap": cap, "file": str(ledger_file(store, str(run["id"])))}
        run[RUN_KEY] = plan
        install(open_budget(plan, owner=True))
    else:
        install(open_budget(plan) if plan else None)
    return current()


def _check_prices(settings: Any) -> None:
    """Every model the run names, when a server answers it, has a price (else a usage error, before any call)."""
    import pytest

    from pcg_plugin._util.prices import current as prices
    from pcg_plugin.llm import parse_model, waits_on_a_server
    from pcg_plugin.llm.estimate import unknown_price_text

    run_backend, base_url = getattr(settings, "backend", None), getattr(settings, "base_url", None)
    models = tuple(getattr(settings, "models", ()) or ()) or tuple(m for m in (getattr(settings, "model", None),) if m)
    table = prices()
    for entry in models:  # each entry's own backend (openai/gpt-4o), priced by the model it asks for
        spec = parse_model(entry, run_backend)
        if waits_on_a_server(spec.backend, base_url) and table.price(spec.name) is None:
            raise pytest.UsageError(unknown_price_text(spec.name))
