"""The cluster's one rate limit, as plain state (the limiter actor holds one): requests and tokens per minute
(token buckets), a concurrency cap, and a pause every caller honours after a 429. It never sleeps: it answers how
long to wait, so one actor serves every node and a test drives it with a ``ManualClock``. Slots belong to a
holder (a trial actor), so a lost actor's slots are freed by name, not by asking whether a pid lives here."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass

from pcg_plugin.llm.ratelimit import refill

BUSY_WAIT_S = 0.05  # the concurrency cap is full: ask again after this


class ManualClock:
    """A clock a test moves by hand (picklable, so an actor holds its own copy)."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class _Slot:
    holder: str
    tokens: int


class LimiterState:
    """``try_acquire`` gives a slot or the seconds to wait; ``release`` settles the tokens really used."""

    def __init__(
        self,
        rpm: float | None = None,
        tpm: float | None = None,
        concurrency: int | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.rpm, self.tpm, self.concurrency, self.clock = rpm, tpm, concurrency, clock
        self.levels: dict[str, tuple[float, float]] = {}  # bucket -> (level, when)
        self.slots: dict[str, _Slot] = {}
        self.paused_until = 0.0
        self._ids = itertools.count(1)

    def _level(self, name: str, limit: float, now: float) -> float:
        level, stamp = self.levels.get(name, (limit, now))
        return refill(level, max(0.0, now - stamp), limit)

    def try_acquire(self, tokens: int, holder: str) -> tuple[str | None, float]:
        now = self.clock()
        if self.paused_until > now:
            return None, self.paused_until - now
        waits, taken = [], {}
        for name, limit, need in (("requests", self.rpm, 1.0), ("tokens", self.tpm, float(tokens))):
            if not limit:
                continue
            level, need = self._level(name, float(limit), now), min(need, float(limit))  # one oversized call runs alone
            taken[name] = level - need
            if level < need:
                waits.append((need - level) * 60.0 / float(limit))
        if self.concurrency and len(self.slots) >= self.concurrency:
            waits.append(BUSY_WAIT_S)
        if waits:
            return None, max(waits)
        for name, level in taken.items():
            self.levels[name] = (level, now)
        slot = f"s{next(self._ids)}"
        self.slots[slot] = _Slot(holder, int(tokens))
        return slot, 0.0

    def release(self, slot: str, used_tokens: int = 0) -> None:
        held = self.slots.pop(slot, None)
        if held is not None and self.tpm and used_tokens:
            now = self.clock()
            level = self._level("tokens", float(self.tpm), now) - (used_tokens - held.tokens)
            self.levels["tokens"] = (min(float(self.tpm), level), now)

    def pause(self, seconds: float) -> None:
        """Every caller waits ``seconds`` from now (extends, never shortens, a pause in force)."""
        self.paused_until = max(self.paused_until, self.clock() + seconds)

    def release_holder(self, holder: str) -> int:
        """Free every slot of a lost trial actor; how many."""
        lost = [s for s, held in self.slots.items() if held.holder == holder]
        for slot in lost:
            del self.slots[slot]
        return len(lost)

    def in_flight(self) -> int:
        return len(self.slots)

    def advance(self, seconds: float) -> None:
        """Move a ``ManualClock`` (tests)."""
        self.clock.advance(seconds)  # type: ignore[attr-defined]
