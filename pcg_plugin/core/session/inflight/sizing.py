"""How many trials a process keeps in flight when the user gave no ``--pcg-in-flight``: sized by the harness.

The rule is Little's law on what the process measured of its own finished trials: a trial holds a CPU slot for
``held`` seconds and waits ``server`` seconds on its model; to keep ``slots`` CPU slots busy while every trial
waits, ``slots x (held + server) / held`` trials must be in flight, and the harness keeps ``MARGIN`` times that
(trials do not arrive evenly: some wait while others compute in a burst). Until a trial has finished there is
nothing measured and the process starts at ``START``. Then the number is held between a floor (one trial more
than the slots: one waits while each slot computes) and a ceiling, the least of:

- ``CEILING`` (the most measured, docs/in-flight.md);
- the memory budget: a quarter of the memory available when the run started, shared by the processes, at
  ``TRIAL_MB`` a trial (above the ~6 MB PSS a trial of a participant's program costs);
- ``--pcg-concurrency``: the slots plus this process's share of the calls allowed at once;
- ``--pcg-rpm`` / ``--pcg-tpm``: the slots plus the trials this process's share of the rate keeps busy (trials a
  second allowed, from the calls and tokens a trial took, times the seconds a trial takes).

Time a trial spends waiting on a rate limit, the concurrency cap or a retry's pause is not ``server``: the caps
binding never makes the number grow.
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass

START = 16  # before anything is measured: the fixed default this replaces
CEILING = 64
MARGIN = 2.0
TRIAL_MB = 16.0
MEMORY_SHARE = 0.25


@dataclass
class Measured:
    """What a process's finished trials took, summed: how many, seconds holding a CPU slot, seconds waiting on a
    server's answers, model calls and tokens."""

    trials: int = 0
    held: float = 0.0
    server: float = 0.0
    calls: int = 0
    tokens: int = 0


@dataclass(frozen=True)
class Caps:
    """What bounds the number whatever was measured (None: unbounded). ``rpm``/``tpm``/``concurrency`` are the
    run's, over every process; ``processes`` share them."""

    processes: int = 1
    memory_mb: float | None = None
    concurrency: int | None = None
    rpm: float | None = None
    tpm: float | None = None


def ceiling(slots: int, caps: Caps, measured: Measured) -> int:
    """The most trials in flight the caps allow this process (at least 1)."""
    share = max(1, caps.processes)
    bounds = [CEILING]
    if caps.memory_mb is not None:
        bounds.append(int(caps.memory_mb / share / TRIAL_MB))
    if caps.concurrency is not None:
        bounds.append(slots + math.ceil(caps.concurrency / share))
    if measured.trials:
        seconds = (measured.held + measured.server) / measured.trials  # a trial, start to end
        for limit, used in ((caps.rpm, measured.calls), (caps.tpm, measured.tokens)):
            if limit is not None and used > 0:
                per_second = limit / 60 / share / (used / measured.trials)  # trials a second the share allows
                bounds.append(slots + math.ceil(per_second * seconds))
    return max(1, min(bounds))


def size(slots: int, measured: Measured, caps: Caps) -> int:
    """Trials in flight for this process: ``MARGIN x slots x (held + server) / held`` from what it measured
    (``START`` before a trial finished), held between the floor (``slots + 1``) and ``ceiling``."""
    if measured.trials == 0:
        wanted = START
    elif measured.held <= 0:
        wanted = CEILING
    else:
        # (held + server) / held as 1 + server / held: exactly 1 with no wait, and monotone in each (the sum's
        # rounding could make 2 x 3 x 342.04 / 342.04 come to 6.000000000000001, one trial more than 6)
        wanted = math.ceil(MARGIN * slots * (1.0 + measured.server / measured.held))
    top = ceiling(slots, caps, measured)
    return min(max(wanted, slots + 1), top)


class Sizer:
    """A process's running sums and its number now (thread-safe: trials finish on their own threads); ``peak`` and
    the mean of the number at each change say what the harness chose."""

    def __init__(self, slots: int, caps: Caps) -> None:
        self.slots, self.caps = slots, caps
        self.measured = Measured()
        self._lock = threading.Lock()
        self.now = size(slots, self.measured, caps)

    def add(self, held: float, server: float, calls: int, tokens: int) -> int:
        """One finished trial's figures; the number in flight from now on."""
        with self._lock:
            m = self.measured
            m.trials, m.held, m.server = m.trials + 1, m.held + held, m.server + server
            m.calls, m.tokens = m.calls + calls, m.tokens + tokens
            self.now = size(self.slots, m, self.caps)
            return self.now


def available_mb() -> float | None:
    """``MemAvailable`` of /proc/meminfo in MB (None where there is none: not Linux)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def caps_from_environment(processes: int) -> Caps:
    """The caps of this run: the memory available now, and the rate limits and concurrency cap the options set for
    every process (``PCG_RPM``/``PCG_TPM``/``PCG_CONCURRENCY``)."""

    def number(name: str) -> float | None:
        text = os.environ.get(name, "").strip()
        try:
            return float(text) if text else None
        except ValueError:
            return None  # the rate limiter refuses it, with its message

    memory = available_mb()
    concurrency = number("PCG_CONCURRENCY")
    return Caps(
        processes=processes,
        memory_mb=None if memory is None else memory * MEMORY_SHARE,
        concurrency=None if concurrency is None else int(concurrency),
        rpm=number("PCG_RPM"),
        tpm=number("PCG_TPM"),
    )
