"""The typed record of one episode as it was played: who was told what, who replied what, how it ended."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Outcome = Literal["done", "turn_limit", "aborted"]


@dataclass(frozen=True)
class Prompted:
    """A message the game master sent to ``role`` (it joins that role's history as a user message)."""

    role: str
    turn: int
    content: str
    at: str
    kind: Literal["prompted"] = "prompted"


@dataclass(frozen=True)
class Replied:
    """What ``role`` answered, verbatim (it joins that role's history as an assistant message)."""

    role: str
    turn: int
    content: str
    at: str
    kind: Literal["replied"] = "replied"


@dataclass(frozen=True)
class Accepted:
    """The master accepted the reply; ``parsed`` is what it took from it (a command, a grid)."""

    role: str
    turn: int
    parsed: str | None
    kind: Literal["accepted"] = "accepted"


@dataclass(frozen=True)
class Rejected:
    """The reply broke the rules (or the model call was refused): the episode aborts, ``reason`` says why."""

    role: str
    turn: int
    reason: str
    kind: Literal["rejected"] = "rejected"


Event = Prompted | Replied | Accepted | Rejected
EVENT_TYPES: dict[str, type] = {cls.__dataclass_fields__["kind"].default: cls
                                for cls in (Prompted, Replied, Accepted, Rejected)}  # fmt: skip


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
        return {"outcome": self.outcome, "turns": self.turns, "reason": self.reason, "roles": list(self.roles),
                "events": [asdict(e) for e in self.events]}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transcript:
        events = tuple(EVENT_TYPES[e["kind"]](**e) for e in data["events"])
        return cls(events, data["outcome"], int(data["turns"]), data.get("reason"), tuple(data.get("roles", ())))
