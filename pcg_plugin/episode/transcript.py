"""The typed record of one turn-based episode as it was played: who was told what, who replied what, how it
ended (its events are ``events``' turn events, re-exported here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pcg_plugin.episode.events import Accepted, Prompted, Rejected, Replied, event_dict, event_from_dict
from pcg_plugin.episode.events import TurnEvent as Event

__all__ = ["Accepted", "Event", "Outcome", "Prompted", "Rejected", "Replied", "Transcript"]

Outcome = Literal["done", "turn_limit", "aborted"]


@dataclass(frozen=True)
class Transcript:
    """Every event in order and the end: ``done`` (the master ended it), ``turn_limit`` (a normal end after the
    last allowed turn) or ``aborted`` (``reason`` says why). ``turns`` counts completed turns."""

    events: tuple[Event, ...]
    outcome: Outcome
    turns: int
    reason: str | None = None
    roles: tuple[str, ...] = field(default=())

    @property
    def aborted(self) -> bool:
        return self.outcome == "aborted"

    def of(self, role: str) -> list[Event]:
        """One role's events, in order."""
        return [e for e in self.events if e.role == role]

    def replies(self, role: str) -> list[str]:
        return [e.content for e in self.events if isinstance(e, Replied) and e.role == role]

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "turns": self.turns,
            "reason": self.reason,
            "roles": list(self.roles),
            "events": [event_dict(e) for e in self.events],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transcript:
        events = tuple(_turn_event(e) for e in data["events"])
        return cls(events, data["outcome"], int(data["turns"]), data.get("reason"), tuple(data.get("roles", ())))


def _turn_event(data: dict[str, Any]) -> Event:
    """A turn event back from ``event_dict``; a transcript holds no other kind (``to_dict`` writes none)."""
    event = event_from_dict(data)
    if not isinstance(event, (Prompted, Replied, Accepted, Rejected)):
        raise ValueError(f"a {event.kind!r} event is no turn event: a transcript holds turn events only")
    return event
