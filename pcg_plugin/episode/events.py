"""The one event model of an episode, for every game the episode machinery plays: what happened, in order, as
typed records that serialize to JSON and back the same way.

Turn-based games (the picture game's ``loop.play``) record who was prompted, who replied, and whether the
master accepted or rejected the reply, per turn (``transcript.Transcript`` holds them). Games over a table
(GameEval's) record each model call with its exact messages, the public lines, votes, eliminations and the end
(``table.Table`` holds them). ``kind`` names every event in its JSON (``event_dict``/``event_from_dict``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Message = dict[str, str]


@dataclass(frozen=True)
class _Turn:
    """An event of ``role`` in turn ``turn`` of a turn-based game."""

    role: str
    turn: int


@dataclass(frozen=True)
class _Spoken(_Turn):
    content: str
    at: str  # ISO 8601 timestamp, as clembench stamps its events


@dataclass(frozen=True)
class Prompted(_Spoken):
    """A message the game master sent to ``role`` (it joins that role's history as a user message)."""

    kind: Literal["prompted"] = "prompted"


@dataclass(frozen=True)
class Replied(_Spoken):
    """What ``role`` answered, verbatim (it joins that role's history as an assistant message)."""

    kind: Literal["replied"] = "replied"


@dataclass(frozen=True)
class Accepted(_Turn):
    """The master accepted the reply; ``parsed`` is what it took from it (a command, a grid)."""

    parsed: str | None
    kind: Literal["accepted"] = "accepted"


@dataclass(frozen=True)
class Rejected(_Turn):
    """The reply broke the rules (or the model call was refused): the episode aborts, ``reason`` says why."""

    reason: str
    kind: Literal["rejected"] = "rejected"


@dataclass(frozen=True)
class Call:
    """One model call at a table: who asked (a seat or a role), at which stage, the exact messages, the reply."""

    role: str
    stage: str
    messages: list[Message]
    reply: str | None
    kind: Literal["call"] = "call"


@dataclass(frozen=True)
class Said:
    """A public line (host or player) and who received it in their history."""

    speaker: str
    content: str
    to: tuple[str, ...]
    kind: Literal["said"] = "said"


@dataclass(frozen=True)
class _Round:
    """An event of a voting round (``round`` counts from 1, as the games count)."""

    round: int


@dataclass(frozen=True)
class Voted(_Round):
    """``voter`` named ``name`` (anything the model answered: ``None`` and unhashable answers included)."""

    voter: str
    name: Any
    kind: Literal["voted"] = "voted"


@dataclass(frozen=True)
class Eliminated(_Round):
    """``name`` leaves the living seats (its history stays, and it still hears the public lines)."""

    name: str
    kind: Literal["eliminated"] = "eliminated"


@dataclass(frozen=True)
class Ended:
    """How the episode ended: the outcome label and, in words, why."""

    outcome: str
    why: str
    kind: Literal["ended"] = "ended"


Event = Prompted | Replied | Accepted | Rejected | Call | Said | Voted | Eliminated | Ended
TurnEvent = Prompted | Replied | Accepted | Rejected
_EVENT_CLASSES: tuple[type[Event], ...] = (Prompted, Replied, Accepted, Rejected, Call, Said, Voted, Eliminated, Ended)
EVENT_TYPES: dict[str, type[Event]] = {cls.kind: cls for cls in _EVENT_CLASSES}  # ``kind``'s default, on the class


def event_dict(event: Event) -> dict[str, Any]:
    """The event as JSON (a tuple as a list)."""
    data = asdict(event)
    if "to" in data:
        data["to"] = list(data["to"])
    return data


def event_from_dict(data: dict[str, Any]) -> Event:
    """An event back from ``event_dict``."""
    kw = dict(data)
    if "to" in kw:
        kw["to"] = tuple(kw["to"])
    return EVENT_TYPES[kw["kind"]](**kw)
