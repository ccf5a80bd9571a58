"""N-player episodes (GameEval's games): seats with private histories, a host, model calls, votes, eliminations.

The two-player turn loop (``loop.play``) drives a fixed alternation through a ``GameMaster``. Games with a
host, many seats and stages (describe, vote, ask) are written as plain procedures over a ``Table`` instead:
the table keeps each seat's history exactly as the game builds it (each message with the role the game gives
it), asks the model through one ``Model`` callable (so every call goes through the episode's response store
before its reply is used), snapshots each call's messages, and records the episode's events (``events``). A rule
module ends an episode by returning its outcome, or by raising ``Crash`` where its reference crashes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pcg_plugin.episode.events import Call, Eliminated, Ended, Event, Message, Said, Voted, event_dict
from pcg_plugin.errors import Crash

__all__ = [
    "Call",
    "Crash",
    "Eliminated",
    "Ended",
    "Event",
    "Message",
    "Model",
    "Said",
    "Table",
    "Voted",
    "event_dict",
    "tally",
]  # the games take the table's events from here

Model = Callable[[str, str, list[Message]], "str | None"]
"""(caller, stage, messages) -> the reply, or None when the model layer gave up (the reference's ``None``)."""


@dataclass
class Table:
    """Seats (in seating order) with their private histories, the model, and the transcript so far."""

    seats: Sequence[str]
    model: Model
    histories: dict[str, list[Message]] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    living: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for seat in self.seats:
            self.histories.setdefault(seat, [])
        if not self.living:
            self.living = list(self.seats)

    def add(self, seat: str, role: str, content: str) -> None:
        """One message into one seat's own history."""
        self.histories[seat].append({"role": role, "content": content})

    def tell(self, speaker: str, content: str, role: str = "user", *, to: Sequence[str] | None = None) -> None:
        """A public line to every seat but the speaker (or to ``to``), dead seats included, as the games do."""
        heard = tuple(s for s in (self.seats if to is None else to) if s != speaker)
        for seat in heard:
            self.add(seat, role, content)
        self.events.append(Said(speaker, content, heard))

    def ask(self, caller: str, stage: str, messages: list[Message]) -> str | None:
        """One model call with a snapshot of ``messages`` (later history changes do not touch the record)."""
        snapshot = copy.deepcopy(messages)
        reply = self.model(caller, stage, snapshot)
        self.events.append(Call(caller, stage, snapshot, reply))
        return reply

    def vote(self, round_: int, voter: str, name: Any) -> None:
        self.events.append(Voted(round_, voter, name))

    def eliminate(self, round_: int, name: str) -> None:
        self.living.remove(name)
        self.events.append(Eliminated(round_, name))

    @property
    def calls(self) -> list[Call]:
        return [e for e in self.events if isinstance(e, Call)]


def tally(votes: Sequence[Any]) -> Any:
    """The most-voted value; a tie goes to the tied value that appeared first (strict ``>`` over counts in
    first-appearance order). ``None`` counts like a name. An unhashable vote raises ``Crash``."""
    counts: dict[Hashable, int] = {}
    for vote in votes:
        try:
            counts[vote] = counts.get(vote, 0) + 1
        except TypeError:
            raise Crash("TypeError", f"a vote named {vote!r}, which cannot be counted") from None
    best, top = None, 0
    for name, count in counts.items():
        if count > top:
            best, top = name, count
    return best
