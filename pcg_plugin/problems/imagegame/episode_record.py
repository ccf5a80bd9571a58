"""The typed record of one played imagegame episode: what the game master sent and what each player replied.

The harness (the episode loop) produces it; ``clembench_io`` writes it as clembench's ``interactions.json`` and
``scoring`` scores it through that same layout, so our episodes and clembench's published ones are scored by one
code path. Only raw messages are stored: what a reply means (done / command / invalid, grid / invalid) is
derived again from the instance's regexes (``rules``), exactly as clembench's 2.0.0 scorer re-derives it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Message:
    """One message and when it was sent or received (ISO 8601, as clembench logs its events)."""

    content: str
    timestamp: str


@dataclass(frozen=True)
class TurnRecord:
    """One turn. ``follower_prompt``/``follower_reply`` are None when the turn ended at the Giver (its reply was
    DONE or malformed); a turn whose Follower was asked must carry both."""

    giver_prompt: Message
    giver_reply: Message
    follower_prompt: Message | None = None
    follower_reply: Message | None = None

    def __post_init__(self) -> None:
        if (self.follower_prompt is None) != (self.follower_reply is None):
            raise ValueError("a turn has both the Follower's prompt and reply, or neither")


@dataclass(frozen=True)
class EpisodeRecord:
    """One episode: the instance it played (experiment + game_id), the two players' model names, its turns."""

    experiment: str
    game_id: int
    player_1: str
    player_2: str
    turns: tuple[TurnRecord, ...]
