"""A process's CPU slots and its trials' clock: many trials in flight, at most ``count`` of them computing.

A trial takes a slot when it starts (``Slots.running``) and gives it back only while it waits on something outside
the process: a model server's answer, a rate limit, a retry's pause (``waiting``, around those waits in
``llm.session``, each saying which: a server's answer, or a cap's wait). Building, simulating, classifying,
evaluating and a participant's program (its sandbox child runs while its trial holds the slot) stay bounded by the
cores the process was given. The time a trial then spends
getting a slot back is the harness's, not the trial's: ``trial_clock`` leaves it out, so neither the official time
limit nor the trial's deadline charges one team for another team's trial. With one trial at a time no slots are
installed, nothing is given back and ``trial_clock`` is ``time.perf_counter``.

``stop_paying`` (Ctrl-C) makes every trial of the process start no new model call (``check``), while the calls
already sent are answered and stored.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

from pcg_plugin.errors import RunInterrupted


class Slots:
    """``count`` CPU slots shared by the process's ``trials`` in flight (at most)."""

    def __init__(self, count: int, trials: int = 1) -> None:
        if count < 1 or trials < 1:
            raise ValueError(f"CPU slots: {count} for {trials} trials in flight: both must be at least 1")
        self.count, self.trials = count, trials
        self._free = threading.BoundedSemaphore(count)
        # held: this thread holds a slot; waited: seconds spent getting it back; away: seconds waiting outside
        # the process, by kind ("server": a model's answer, "cap": a rate limit, the concurrency cap, a retry's pause)
        self._mine = threading.local()

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """A trial's whole run on this thread: a slot taken first (the wait before is not the trial's: its clock
        has not started), given back at the end; then ``last`` says how long it held the slot and waited on a
        server."""
        self._free.acquire()
        self._mine.held, self._mine.waited, self._mine.away = True, 0.0, {"server": 0.0, "cap": 0.0}
        began = time.perf_counter()
        try:
            yield
        finally:
            self._mine.held = False
            self._free.release()
            away = self._mine.away
            elapsed = time.perf_counter() - began
            self._mine.last = (max(0.0, elapsed - self._mine.waited - away["server"] - away["cap"]), away["server"])

    @contextlib.contextmanager
    def waiting(self, kind: str = "server") -> Iterator[None]:
        """The slot given back while this thread waits outside the process (``kind``: "server" for a model's
        answer, "cap" for a rate limit, the concurrency cap or a retry's pause), taken again after; the time taking
        it again costs is counted as not the trial's (``waited``). A thread holding no slot just waits."""
        if not getattr(self._mine, "held", False):
            yield
            return
        self._mine.held = False
        self._free.release()
        left = time.perf_counter()
        try:
            yield
        finally:
            began = time.perf_counter()
            self._mine.away[kind] = self._mine.away.get(kind, 0.0) + began - left
            self._free.acquire()
            self._mine.held = True
            self._mine.waited += time.perf_counter() - began

    def last(self) -> tuple[float, float]:
        """This thread's last trial: seconds it held a CPU slot, seconds it waited on a server's answers."""
        return getattr(self._mine, "last", (0.0, 0.0))

    def waited(self) -> float:
        """Seconds this thread's trial has spent waiting for a slot since it started (0 outside a trial)."""
        return float(getattr(self._mine, "waited", 0.0))


_installed: Slots | None = None
_stop = threading.Event()


def install(slots: Slots | None) -> None:
    """The process's slots (None: one trial at a time, nothing given back); a new run also clears ``stop_paying``."""
    global _installed
    _installed = slots
    _stop.clear()


def installed() -> Slots | None:
    return _installed


def waiting(kind: str = "server") -> contextlib.AbstractContextManager[None]:
    """``Slots.waiting`` of the process's slots, or nothing when there are none."""
    return _installed.waiting(kind) if _installed is not None else contextlib.nullcontext()


def trial_clock() -> float:
    """``time.perf_counter`` less the time this thread's trial waited for a CPU slot: the clock of its official time
    limit and deadline."""
    return time.perf_counter() - (_installed.waited() if _installed is not None else 0.0)


def stop_paying() -> None:
    """Ctrl-C: no trial of this process starts a model call from now on."""
    _stop.set()


def check(where: str) -> None:
    """Before a model call is paid: ``RunInterrupted`` once ``stop_paying`` was called."""
    if _stop.is_set():
        raise RunInterrupted(f"{where}: the run was interrupted (Ctrl-C): this call was not sent")
