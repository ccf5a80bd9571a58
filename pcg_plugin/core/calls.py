"""The calls of the trial this process is running, in the order they were made: what the transcript of a trial
(``pcg show``, the report's trial pages) and the progress line are made of.

Whatever answers a model call (``llm.session.TrialChat``, in any problem) notes each call here as it returns,
with the exact messages sent and the reply as stored; the item that runs the trial (``core.items.TrialItem``)
starts the log before the trial and takes it after. A process runs one item at a time, so everything noted in
between is that trial's, whichever thread (a sandbox's pipe server) made the call.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any

_lock = threading.Lock()
_calls: list[Call] = []


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
    """Add a call to the running trial's log."""
    with _lock:
        _calls.append(call)


def start() -> None:
    """A trial begins: forget anything noted outside a trial (a pre-flight check, a previous item's stragglers)."""
    with _lock:
        _calls.clear()


def take() -> list[Call]:
    """The calls noted since ``start``, in order; the log is empty afterwards."""
    with _lock:
        out = list(_calls)
        _calls.clear()
    return out


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
