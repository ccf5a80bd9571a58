"""What a game master tells the turn loop: each role's opening, and what each reply means."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Step:
    """The master's verdict on one reply.

    ``valid`` False aborts the episode (``reason`` says why). Otherwise ``done`` ends it normally, or
    ``next_role`` is told ``next_message``; ``turn_complete`` marks the reply that closes a turn (the turn limit
    counts those). ``parsed`` is what the master took from the reply, for the transcript."""

    valid: bool
    parsed: str | None = None
    next_role: str | None = None
    next_message: str | None = None
    done: bool = False
    turn_complete: bool = False
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.valid and not self.done and (self.next_role is None or self.next_message is None):
            raise ValueError("a valid step that does not end the episode names the next role and its message")
        if not self.valid and not self.reason:
            raise ValueError("an invalid step says why")


def abort(reason: str) -> Step:
    return Step(valid=False, reason=reason)


def done(parsed: str | None = None) -> Step:
    return Step(valid=True, parsed=parsed, done=True)


@runtime_checkable
class GameMaster(Protocol):
    """One episode's rules. ``roles`` in speaking order; ``preamble(role)`` are messages placed before the
    role's first prompt (a system prompt; none in imagegame); ``opening()`` is the first role and its message;
    ``step(role, reply)`` judges one reply. A master may keep state (the current turn's command)."""

    roles: tuple[str, ...]

    def preamble(self, role: str) -> list[dict[str, str]]: ...
    def opening(self) -> tuple[str, str]: ...
    def step(self, role: str, reply: str) -> Step: ...
