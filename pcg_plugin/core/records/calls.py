"""The calls of a running trial, in the order they were made: what the transcript of a trial (``pcg show``, the
report's trial pages) and the progress line are made of.

Whatever answers a model call (``llm.session.TrialChat``, in any problem) notes each call here as it returns,
with the exact messages sent and the reply as stored; whoever runs the trial (``core.session.items.TrialItem``, or a
thread of ``core.session.inflight``) starts the trial's log before it and takes it after. The log belongs to the thread
that started it (a context variable: a process may run many trials at once, each on its own thread, and a
trial's calls are always made on its own thread: a sandbox child's calls are served there). A trial's warnings
(``warn``) wait in the same log for the item to report them, so pytest shows each under its own trial.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Log:
    """One trial's calls and warnings, from ``start`` to ``take``."""

    calls: list[Call] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    live: bool = True  # taken: the trial is over (the response store asks, ``is_live``)
    waits: list[Wait] = field(default_factory=list)  # each failed try of a model call, before it was tried again


@dataclass(frozen=True)
class Wait:
    """A model call that failed and was tried again: why (``cause``: ``429 rate limited``, ``529 overloaded``,
    ``503 server error``, ``timeout``, ...) and the seconds waited before the next try."""

    cause: str
    seconds: float


_current: contextvars.ContextVar[Log | None] = contextvars.ContextVar("pcg_trial_log", default=None)
_lock = threading.Lock()
_stored = [0]  # answers this process wrote to the response store since the run began (``stored``)
_held = [0, 0]  # the main thread's ``committing`` depth, and a Ctrl-C that came inside it (1) and waits for its end


@dataclass(frozen=True)
class Call:
    """One model call as the trial saw it. ``seconds``: how long the model took (the recorded time for a replayed
    call); ``replayed``: the reply came from the response store, not from the model; ``cost_usd``: what this
    run paid for it (0 when replayed; None for a model without a listed price)."""

    messages: list[dict[str, Any]]
    reply: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    replayed: bool
    retries: int = 0
    model: str = ""
    choices: list[str] | None = None  # every choice when the call asked for several (``n`` > 1)
    cost_usd: float | None = 0.0
    store_key: str = ""  # the response store's trial key and the call's place in it
    store_index: int = 0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if data["choices"] is None:
            del data["choices"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Call:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def note(call: Call) -> None:
    """Add a call to the running trial's log (outside a trial: nowhere, as before a trial starts)."""
    log = _current.get()
    if log is not None:
        with _lock:
            log.calls.append(call)


def stored(count: int | None = None) -> int:
    """Answers this process stored in this run: ``stored(1)`` as one is committed (whatever answered it; a trial
    cut short by Ctrl-C has stored what it was paid for), ``stored(0)`` when a run begins, ``stored()`` to read."""
    with _lock:
        if count == 0:
            _stored[0] = 0
        elif count is not None:
            _stored[0] += count
        return _stored[0]


@contextlib.contextmanager
def committing() -> Iterator[None]:
    """A model call from the moment it is sent to its answer stored and counted (``stored(1)``), as one step. Ctrl-C
    lands in the main thread between any two lines: inside this block the first one waits for the block's end
    (``holding``, ``defer``), so a call the run pays for is never lost after the server answered, and an
    interrupted run never says it kept one answer fewer than its store holds."""
    main = threading.current_thread() is threading.main_thread()
    if main:
        _held[0] += 1
    try:
        yield
    finally:
        if main:
            _held[0] -= 1
            if _held[0] == 0 and _held[1]:
                _held[1] = 0
                raise KeyboardInterrupt


def holding() -> bool:
    """A signal handler's question: is the main thread inside ``committing``?"""
    return _held[0] > 0


def defer() -> None:
    """A signal handler's Ctrl-C, raised when the main thread's ``committing`` block ends."""
    _held[1] = 1


def deferred() -> bool:
    """A Ctrl-C already waits for the main thread's ``committing`` block (a second one stops at once)."""
    return bool(_held[1])


def waited(cause: str, seconds: float) -> None:
    """A model call of the running trial failed for ``cause`` and is tried again after ``seconds`` (outside a
    trial: nowhere)."""
    log = _current.get()
    if log is not None:
        with _lock:
            log.waits.append(Wait(cause, float(seconds)))


def wait_counts(waits: list[Wait]) -> dict[str, list[float]]:
    """Waits by cause: ``{cause: [tries again, seconds waited]}``, what a report carries and the run adds up."""
    counts: dict[str, list[float]] = {}
    for w in waits:
        entry = counts.setdefault(w.cause, [0, 0.0])
        entry[0] += 1
        entry[1] = round(entry[1] + w.seconds, 3)
    return counts


def warn(warning: Warning, stacklevel: int = 2) -> None:
    """A warning of the running trial: kept for its item to show (its thread may not be pytest's), else shown."""
    log = _current.get()
    if log is None or threading.current_thread() is threading.main_thread():
        warnings.warn(warning, stacklevel=stacklevel + 1)
        return
    with _lock:
        log.warnings.append(warning)


def start() -> Log:
    """A trial begins on this thread: a new, empty log (anything noted before belonged to no trial)."""
    log = Log()
    _current.set(log)
    return log


def current() -> Log | None:
    """The log of the trial running on this thread (None: none is)."""
    return _current.get()


def take() -> list[Call]:
    """The calls noted since ``start`` on this thread, in order; the trial is over."""
    log = _current.get()
    _current.set(None)
    if log is None:
        return []
    with _lock:
        log.live = False
        return list(log.calls)


def take_log() -> Log:
    """As ``take``, the whole log (its warnings too)."""
    log = _current.get() or Log()
    take()
    return log


def is_live(log: Log | None) -> bool:
    """Whether ``log``'s trial is still running (started, not taken)."""
    return log is not None and log.live


@dataclass(frozen=True)
class Totals:
    """What a trial's calls add to the run's totals (the progress line)."""

    calls: int = 0
    paid: int = 0
    replayed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0  # paid calls of a model without a listed price (their cost is unknown, not 0)

    @classmethod
    def of(cls, calls: list[Call]) -> Totals:
        paid = [c for c in calls if not c.replayed]
        return cls(
            len(calls),
            len(paid),
            len(calls) - len(paid),
            sum(c.prompt_tokens for c in calls),
            sum(c.completion_tokens for c in calls),
            sum(c.cost_usd or 0.0 for c in paid),
            sum(1 for c in paid if c.cost_usd is None),
        )

    def __add__(self, other: Totals) -> Totals:
        return Totals(*(a + b for a, b in zip(asdict(self).values(), asdict(other).values(), strict=True)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
