"""The imagegame game master on the episode machinery: clembench 2.0.0's turn rules (``rules``), the Giver's
opening optionally replaced by a participant's prompt, and the played transcript as clembench's typed record."""

from __future__ import annotations

from dataclasses import dataclass

from pcg_plugin.episode.master import Step, abort, done
from pcg_plugin.episode.transcript import Prompted, Replied, Transcript
from pcg_plugin.problems.imagegame import rules
from pcg_plugin.problems.imagegame.episode_record import EpisodeRecord, Message, TurnRecord

GIVER = "giver"
FOLLOWER = "follower"


@dataclass
class ImageGameMaster:
    """One episode of one instance. ``giver_opening`` replaces the Giver's first message (a participant's
    prompt, already filled in); None keeps clembench's standard one. The Follower always gets the standard
    prompts. Later Giver turns get the instance's question, as in clembench."""

    instance: rules.Instance
    giver_opening: str | None = None
    roles: tuple[str, ...] = (GIVER, FOLLOWER)
    _follower_told: bool = False

    def preamble(self, role: str) -> list[dict[str, str]]:
        return []

    def opening(self) -> tuple[str, str]:
        text = self.giver_opening if self.giver_opening is not None else rules.giver_first_message(self.instance)
        return GIVER, text

    def step(self, role: str, reply: str) -> Step:
        if role == GIVER:
            move = rules.parse_giver(reply, self.instance)
            if move.kind == "done":
                return done()
            if move.kind == "invalid":
                assert move.reason is not None
                return abort(move.reason)
            assert move.command is not None
            if self._follower_told:
                message = rules.follower_next_message(move.command)
            else:
                message = rules.follower_first_message(self.instance, move.command)
                self._follower_told = True
            return Step(valid=True, parsed=move.command, next_role=FOLLOWER, next_message=message)
        follower = rules.parse_follower(reply, self.instance)
        if follower.kind == "invalid":
            assert follower.reason is not None
            return abort(follower.reason)
        return Step(
            valid=True,
            parsed=follower.grid,
            next_role=GIVER,
            next_message=rules.giver_next_message(self.instance),
            turn_complete=True,
        )


def episode_record(transcript: Transcript, instance: rules.Instance, player_1: str, player_2: str) -> EpisodeRecord:
    """The transcript as clembench's record of the episode: per turn the Giver's prompt and reply, and the
    Follower's when it was asked (a turn that ended at the Giver has none)."""
    turns: list[TurnRecord] = []
    by_turn: dict[int, dict[str, Message]] = {}
    order: list[int] = []
    for event in transcript.events:
        if not isinstance(event, (Prompted, Replied)):
            continue
        if event.turn not in by_turn:
            by_turn[event.turn] = {}
            order.append(event.turn)
        slot = f"{event.role}_{'prompt' if isinstance(event, Prompted) else 'reply'}"
        by_turn[event.turn][slot] = Message(event.content, event.at)
    for turn in order:
        parts = by_turn[turn]
        # A refused model call (an official failure) is logged as an empty reply, which the rules reject: the
        # scorer then sees the abort the transcript records.
        giver = parts["giver_prompt"]
        follower = parts.get("follower_prompt")
        turns.append(
            TurnRecord(
                giver,
                parts.get("giver_reply", Message("", giver.timestamp)),
                follower,
                None if follower is None else parts.get("follower_reply", Message("", follower.timestamp)),
            )
        )
    return EpisodeRecord(instance.experiment, instance.game_id, player_1, player_2, tuple(turns))


def drawn_grids(transcript: Transcript) -> list[str]:
    """The Follower's accepted grids, one per completed turn (what the report draws beside the target)."""
    from pcg_plugin.episode.transcript import Accepted

    return [e.parsed or "" for e in transcript.events if isinstance(e, Accepted) and e.role == FOLLOWER]
