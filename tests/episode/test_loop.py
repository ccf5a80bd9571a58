"""The episode machinery on a toy two-role game (no imagegame in sight): histories, the turn loop, the turn limit,
aborts, typed events, and every model turn through one TrialChat (stored in order, replayed, resumed)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from pcg_plugin.episode.loop import chat_speaker, play
from pcg_plugin.episode.master import GameMaster, Step, abort, done
from pcg_plugin.episode.transcript import Accepted, Prompted, Rejected, Replied, Transcript
from pcg_plugin.errors import InfrastructureError, OfficialFailure, Reason
from pcg_plugin.llm.profiles import Profile
from pcg_plugin.llm.scripted import ScriptedBackend
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import ResponseStore, TrialKey


@dataclass
class Counting:
    """Toy game: the caller says a number, the echoer repeats it; the caller says "stop" to end. A reply that is
    not what the rules ask aborts."""

    roles: tuple[str, ...] = ("caller", "echoer")
    last: str = ""

    def preamble(self, role: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": f"You are the {role}."}]

    def opening(self) -> tuple[str, str]:
        return "caller", "Say a number."

    def step(self, role: str, reply: str) -> Step:
        if role == "caller":
            if reply == "stop":
                return done()
            if not reply.isdigit():
                return abort(f"not a number: {reply!r}")
            self.last = reply
            return Step(valid=True, parsed=reply, next_role="echoer", next_message=f"Repeat {reply}.")
        if reply != self.last:
            return abort(f"echoed {reply!r}, not {self.last!r}")
        return Step(valid=True, parsed=reply, next_role="caller", next_message="Next number?", turn_complete=True)


def caller_says(*words: str):  # type: ignore[no-untyped-def]
    def speak(messages: list[dict]) -> str:
        return words[sum(m["role"] == "assistant" for m in messages)]

    return speak


def echo(messages: list[dict]) -> str:
    return str(messages[-1]["content"]).split()[1].rstrip(".")


def stamps() -> str:
    return "t"


def test_the_toy_master_is_a_game_master() -> None:
    assert isinstance(Counting(), GameMaster)


def test_a_game_that_ends_normally_records_every_event_in_order() -> None:
    t = play(Counting(), {"caller": caller_says("1", "2", "stop"), "echoer": echo}, turn_limit=10, now=stamps)
    assert (t.outcome, t.turns, t.reason) == ("done", 2, None)
    assert t.events == (
        Prompted("caller", 1, "Say a number.", "t"),
        Replied("caller", 1, "1", "t"),
        Accepted("caller", 1, "1"),
        Prompted("echoer", 1, "Repeat 1.", "t"),
        Replied("echoer", 1, "1", "t"),
        Accepted("echoer", 1, "1"),
        Prompted("caller", 2, "Next number?", "t"),
        Replied("caller", 2, "2", "t"),
        Accepted("caller", 2, "2"),
        Prompted("echoer", 2, "Repeat 2.", "t"),
        Replied("echoer", 2, "2", "t"),
        Accepted("echoer", 2, "2"),
        Prompted("caller", 3, "Next number?", "t"),
        Replied("caller", 3, "stop", "t"),
        Accepted("caller", 3, None),
    )
    assert t.replies("echoer") == ["1", "2"]
    assert Transcript.from_dict(t.to_dict()) == t


def test_each_role_sees_only_its_own_history_with_its_preamble() -> None:
    seen: dict[str, list[list[dict]]] = {"caller": [], "echoer": []}

    def spy(role, speak):  # type: ignore[no-untyped-def]
        def inner(messages: list[dict]) -> str:
            seen[role].append(messages)
            return speak(messages)

        return inner

    play(Counting(), {"caller": spy("caller", caller_says("7", "stop")), "echoer": spy("echoer", echo)}, turn_limit=5)
    assert seen["echoer"] == [
        [{"role": "system", "content": "You are the echoer."}, {"role": "user", "content": "Repeat 7."}]
    ]
    assert seen["caller"][-1] == [
        {"role": "system", "content": "You are the caller."},
        {"role": "user", "content": "Say a number."},
        {"role": "assistant", "content": "7"},
        {"role": "user", "content": "Next number?"},
    ]


def test_the_turn_limit_ends_the_game_normally_after_the_last_allowed_turn() -> None:
    t = play(Counting(), {"caller": caller_says(*"123456"), "echoer": echo}, turn_limit=3)
    assert (t.outcome, t.turns) == ("turn_limit", 3)
    assert t.replies("caller") == ["1", "2", "3"]


@pytest.mark.parametrize(
    ("caller", "echoer", "role", "turns", "reason"),
    [
        (caller_says("x"), echo, "caller", 0, "not a number: 'x'"),
        (caller_says("4", "5"), lambda m: "4", "echoer", 1, "echoed '4', not '5'"),
    ],
)
def test_an_invalid_reply_aborts_with_the_masters_reason(caller, echoer, role, turns, reason) -> None:
    t = play(Counting(), {"caller": caller, "echoer": echoer}, turn_limit=9)
    assert (t.outcome, t.turns, t.reason, t.aborted) == ("aborted", turns, reason, True)
    assert t.events[-1] == Rejected(role, turns + 1, reason)


def test_a_refused_model_call_aborts_the_episode_and_other_errors_propagate() -> None:
    def refused(messages: list[dict]) -> str:
        raise OfficialFailure("context too long", reason=Reason.LLM_BAD_REQUEST)

    t = play(Counting(), {"caller": caller_says("1"), "echoer": refused}, turn_limit=3)
    assert (t.outcome, t.reason) == ("aborted", "llm_bad_request: context too long")

    def down(messages: list[dict]) -> str:
        raise InfrastructureError("server down")

    with pytest.raises(InfrastructureError):
        play(Counting(), {"caller": down, "echoer": echo}, turn_limit=3)


def test_steps_and_loops_refuse_what_cannot_be_played() -> None:
    with pytest.raises(ValueError, match="names the next role"):
        Step(valid=True)
    with pytest.raises(ValueError, match="says why"):
        Step(valid=False)
    with pytest.raises(ValueError, match="no speaker for role"):
        play(Counting(), {"caller": echo}, turn_limit=1)
    with pytest.raises(ValueError, match="at least 1"):
        play(Counting(), {"caller": echo, "echoer": echo}, turn_limit=0)


# -- every model turn through one TrialChat ---------------------------------------------------------------------

PROFILE = Profile(
    edition="toy", model="double", temperature=0.0, seed=None, client_timeout=None, max_time=math.inf, token_limit=10**9
)
KEY = TrialKey("toy/1", "double", "team", "hash", "target", 1)


def double(messages: list[dict], n: int) -> list[str]:
    """Both roles from one backend, as in self-play: the echoer echoes, the caller counts to 3 then stops."""
    if messages[0]["content"] == "You are the echoer.":
        return [echo(messages)] * n
    k = sum(m["role"] == "assistant" for m in messages)
    return [str(k + 1) if k < 3 else "stop"] * n


def chat_play(store: ResponseStore, backend: ScriptedBackend, mode: str = "once") -> tuple[Transcript, TrialChat]:
    chat = TrialChat(KEY, backend=backend, profile=PROFILE, store=store, mode=mode)
    speak = chat_speaker(chat)
    t = play(Counting(), {"caller": speak, "echoer": speak}, turn_limit=10, now=stamps)
    chat.finish(t.outcome)
    return t, chat


def test_turns_are_stored_in_order_with_each_roles_whole_history(tmp_path) -> None:
    store = ResponseStore(tmp_path)
    t, chat = chat_play(store, ScriptedBackend(double))
    assert (t.outcome, t.turns, chat.usage["paid"]) == ("done", 3, 7)
    calls = store.load(KEY).calls
    assert [c.request["messages"][0]["content"] for c in calls] == [
        "You are the caller.",
        "You are the echoer.",
    ] * 3 + ["You are the caller."]
    assert calls[3].request["messages"] == [
        {"role": "system", "content": "You are the echoer."},
        {"role": "user", "content": "Repeat 1."},
        {"role": "assistant", "content": "1"},
        {"role": "user", "content": "Repeat 2."},
    ]


def test_a_finished_episode_replays_without_asking_the_model(tmp_path) -> None:
    store = ResponseStore(tmp_path)
    first, _ = chat_play(store, ScriptedBackend(double))
    silent = ScriptedBackend(lambda m, n: pytest.fail("a stored turn was asked again"))
    again, chat = chat_play(store, silent)
    assert again == first and chat.usage["replayed"] == 7 and chat.usage["paid"] == 0


def test_a_killed_episode_resumes_and_pays_only_for_the_turns_it_lacks(tmp_path) -> None:
    store = ResponseStore(tmp_path)
    asked: list[int] = []

    def dies_after_four(messages: list[dict], n: int) -> list[str]:
        asked.append(1)
        if len(asked) > 4:
            raise InfrastructureError("the run was killed")
        return double(messages, n)

    with pytest.raises(InfrastructureError):
        chat_play(store, ScriptedBackend(dies_after_four))
    assert len(store.load(KEY).calls) == 4
    resumed = ScriptedBackend(double)
    t, chat = chat_play(store, resumed)
    assert (chat.usage["replayed"], chat.usage["paid"], len(resumed.calls)) == (4, 3, 3)
    reference, _ = chat_play(ResponseStore(tmp_path / "fresh"), ScriptedBackend(double))
    assert t == reference
