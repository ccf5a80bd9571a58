"""The turn loop: ask the roles in turn, keep each role's history, stop on done, abort or the turn limit."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from pcg_plugin.episode.master import GameMaster
from pcg_plugin.episode.transcript import Accepted, Event, Outcome, Prompted, Rejected, Replied, Transcript
from pcg_plugin.errors import OfficialFailure

Speaker = Callable[[list[dict[str, str]]], str]
"""A role's voice: its whole history so far (the last message is the master's prompt) -> its reply."""


def timestamp() -> str:
    """ISO 8601 with microseconds, as clembench stamps its events."""
    return datetime.now().isoformat()


def chat_speaker(chat: Any) -> Speaker:
    """A model speaking through a ``TrialChat``: one call per turn, one choice, the request covering the role's
    whole history (so the stored call's hash does). Every role of an episode shares the episode's one chat, so
    its calls are stored in the order they were asked: the opener's turn 1, the next role's turn 1, ..."""

    def speak(messages: list[dict[str, str]]) -> str:
        choices = chat.chat(messages, 1)
        return choices[0] if choices else ""

    return speak


def play(
    master: GameMaster, speakers: Mapping[str, Speaker], *, turn_limit: int, now: Callable[[], str] = timestamp
) -> Transcript:
    """Play one episode to its end. A model call refused for an official reason (``OfficialFailure``: token
    limit, time limit, a request the server rejects) aborts the episode with that reason; anything else (an
    infrastructure error) propagates, and a rerun resumes from the stored calls."""
    if turn_limit < 1:
        raise ValueError(f"turn_limit must be at least 1, got {turn_limit}")
    missing = [r for r in master.roles if r not in speakers]
    if missing:
        raise ValueError(f"no speaker for role(s) {', '.join(missing)}")
    histories = {role: list(master.preamble(role)) for role in master.roles}
    events: list[Event] = []
    role, message = master.opening()
    turn = 1

    def end(outcome: Outcome, completed: int, reason: str | None = None) -> Transcript:
        return Transcript(tuple(events), outcome, completed, reason, tuple(master.roles))

    while True:
        histories[role].append({"role": "user", "content": message})
        events.append(Prompted(role, turn, message, now()))
        try:
            reply = speakers[role](list(histories[role]))
        except OfficialFailure as failure:
            reason = f"{failure.reason}: {failure.message}"
            events.append(Rejected(role, turn, reason))
            return end("aborted", turn - 1, reason)
        histories[role].append({"role": "assistant", "content": reply})
        events.append(Replied(role, turn, reply, now()))
        step = master.step(role, reply)
        if not step.valid:
            assert step.reason is not None
            events.append(Rejected(role, turn, step.reason))
            return end("aborted", turn - 1, step.reason)
        events.append(Accepted(role, turn, step.parsed))
        if step.done:
            return end("done", turn - 1 if not step.turn_complete else turn)
        if step.turn_complete:
            if turn >= turn_limit:
                return end("turn_limit", turn)
            turn += 1
        assert step.next_role is not None and step.next_message is not None
        role, message = step.next_role, step.next_message


class Scorer(Protocol):
    """A problem's scores of a played episode: one mapping per counted turn, and the episode's."""

    def turn_scores(self, transcript: Transcript) -> list[dict[str, Any]]: ...
    def episode_scores(self, transcript: Transcript) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Scored:
    transcript: Transcript
    turns: list[dict[str, Any]]
    episode: dict[str, Any]


def score(transcript: Transcript, scorer: Scorer) -> Scored:
    return Scored(transcript, scorer.turn_scores(transcript), scorer.episode_scores(transcript))
