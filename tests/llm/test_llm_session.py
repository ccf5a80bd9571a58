"""TrialChat against what a provider and a participant's program really do: replies that are no answer, a server
that hangs or asks to wait an hour, a program whose prompt changes between runs, a store that cannot be written."""

from __future__ import annotations

import math
import sqlite3
import uuid
from dataclasses import replace

import pytest

from pcg_plugin.errors import (
    DeadlineExceeded,
    EmptyReply,
    OfficialFailure,
    RateLimited,
    RecordingDiverged,
    ReplayMiss,
    StoreWriteFailed,
    Timeout,
)
from pcg_plugin.llm.base import ChatResult
from pcg_plugin.llm.profiles import DEADLINE_ENV, trial_deadline
from pcg_plugin.llm.retry import RetryPolicy
from pcg_plugin.llm.session import TrialChat, provider_fault
from pcg_plugin.llm.store import ResponseStore, TrialKey
from pcg_plugin.problems.science_birds.editions import profile_for

P = profile_for("2024")
MSG = [{"role": "user", "content": "Draw A"}]


def key(trial: int = 1) -> TrialKey:
    return TrialKey("2024", "m", "team", "h", "A", trial)


class Clock:
    """A virtual clock that sleeping advances: waits are asserted, never spent."""

    def __init__(self) -> None:
        self.now, self.slept = 1000.0, []

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s


class Server:
    """A backend double with a server's timing: each answer takes ``takes`` seconds of the virtual clock, or
    raises the next of ``faults``; it records the timeout each call was given."""

    accepts_timeout = True

    def __init__(self, clock: Clock, faults: list[Exception | str | None] = (), takes: float = 1.0) -> None:
        self.clock, self.faults, self.takes = clock, list(faults), takes
        self.timeouts: list[float | None] = []
        self.paid = 0

    def complete(self, messages, *, n, profile, timeout=None):  # type: ignore[no-untyped-def]
        self.timeouts.append(timeout)
        fault = self.faults.pop(0) if self.faults else None
        if fault == "hang":
            self.clock.now += timeout  # the client gives up at its timeout
            raise Timeout("no answer within the client timeout")
        if isinstance(fault, Exception):
            raise fault
        self.clock.now += self.takes
        self.paid += 1
        if fault == "empty":
            return ChatResult([], 5, 0)
        if fault == "null":
            return ChatResult([None] * n, 5, 0)
        return ChatResult([f"answer {self.paid}: {messages[-1]['content']}"] * n, 10, 5)


def chat_for(store, backend, clock, trial=1, profile=P, **kw):  # type: ignore[no-untyped-def]
    return TrialChat(key(trial), backend=backend, profile=profile, store=store, clock=clock, sleep=clock.sleep, **kw)


# -- item 7: a reply that is no answer is the provider's fault -----------------------------------------------------


@pytest.mark.parametrize("fault", ["empty", "null"])
def test_no_choices_or_a_null_content_is_retried_and_never_stored(tmp_path, fault):
    clock, store = Clock(), ResponseStore(tmp_path)
    server = Server(clock, [fault, fault])
    chat = chat_for(store, server, clock)
    assert chat.chat(MSG) == ["answer 3: Draw A"]
    assert chat.usage["retries"] == 2 and chat.usage["paid"] == 1
    assert [c.choices for c in store.load(key()).calls] == [["answer 3: Draw A"]]


def test_a_provider_that_never_answers_errors_the_item_and_stores_nothing(tmp_path):
    clock, store = Clock(), ResponseStore(tmp_path)
    chat = chat_for(store, Server(clock, ["null"] * 10), clock, retry=RetryPolicy(max_attempts=3))
    with pytest.raises(EmptyReply, match="null content"):
        chat.chat(MSG)
    assert store.load(key()).calls == [] and store.load(key()).status == "open"  # not the team's zero


def test_an_empty_string_is_the_models_answer_and_is_stored():
    assert provider_fault(ChatResult([""])) is None
    assert provider_fault(ChatResult([])) == "no choices"
    assert provider_fault(ChatResult(["a", None])) == "a null content in choice 1"


# -- item 5: one deadline per trial ------------------------------------------------------------------------------


def test_the_deadline_of_each_edition_and_of_an_episode():
    assert trial_deadline(profile_for("2023"), env={}) == 600.0  # one call; the client's default timeout
    assert trial_deadline(profile_for("2024"), env={}) == 180.0  # the 120 s limit and a minute
    assert trial_deadline(profile_for("2025"), env={}) == 560.0  # the 500 s limit and a minute
    assert trial_deadline(replace(P, max_time=math.inf), env={}) == 1800.0  # an episode: no official limit
    assert trial_deadline(P, env={DEADLINE_ENV: "5"}) == 5.0
    with pytest.raises(ValueError, match="more than 0"):
        trial_deadline(P, env={DEADLINE_ENV: "0"})
    with pytest.raises(ValueError, match="number of seconds"):
        trial_deadline(P, env={DEADLINE_ENV: "soon"})


@pytest.mark.parametrize("edition", ["2023", "2024", "2025"])
def test_a_hung_server_holds_a_trial_until_its_deadline_only(tmp_path, edition):
    clock, store = Clock(), ResponseStore(tmp_path)
    profile = profile_for(edition)
    server = Server(clock, ["hang"] * 20)
    chat = chat_for(store, server, clock, profile=profile)
    began = clock.now
    with pytest.raises(DeadlineExceeded, match="rerun it with --lf"):
        chat.chat(MSG)
    assert clock.now - began <= trial_deadline(profile, env={}) + 1e-6
    assert all(t is not None and t <= trial_deadline(profile, env={}) for t in server.timeouts)
    assert store.load(key()).calls == []


@pytest.mark.parametrize("edition", ["2023", "2024", "2025"])
def test_a_retry_after_past_the_deadline_ends_the_call_at_once(tmp_path, edition):
    clock, store = Clock(), ResponseStore(tmp_path)
    server = Server(clock, [RateLimited("429", retry_after=3600)])
    chat = chat_for(store, server, clock, profile=profile_for(edition))
    with pytest.raises(DeadlineExceeded, match="would wait 3600"):
        chat.chat(MSG)
    assert clock.slept == [] and len(server.timeouts) == 1  # no hour of silence, no second request
    again = chat_for(store, server, clock, profile=profile_for(edition))  # --lf: the item runs again
    assert again.chat(MSG) == ["answer 1: Draw A"] and len(store.load(key()).calls) == 1


def test_each_calls_timeout_is_cut_to_what_the_trial_has_left(tmp_path):
    clock, store = Clock(), ResponseStore(tmp_path)
    server = Server(clock, takes=40.0)
    chat = chat_for(store, server, clock, profile=replace(P, max_time=1000.0), deadline=100.0)
    chat.chat(MSG)
    chat.chat([*MSG, {"role": "user", "content": "again"}])
    assert server.timeouts == [100.0, 60.0]
    clock.now += 70.0  # the program thought for a while: nothing left to wait with
    with pytest.raises(DeadlineExceeded, match="no time left"):
        chat.chat([*MSG, {"role": "user", "content": "third"}])
    assert len(server.timeouts) == 2


def test_a_shared_rate_limit_pause_past_the_deadline_is_refused_not_slept(tmp_path):
    from pcg_plugin.llm.ratelimit import SharedLimiter

    clock = Clock()
    limiter = SharedLimiter(tmp_path / "rl", rpm=60, clock=clock, sleep=clock.sleep)
    limiter.pause(3600)
    with pytest.raises(DeadlineExceeded, match="past the trial's deadline"):
        limiter.acquire(within=30.0)
    assert sum(clock.slept) < 30.0


# -- item 6: resume by trial --------------------------------------------------------------------------------------


def unseeded_program(chat: TrialChat, turns: int = 2):  # type: ignore[no-untyped-def]
    """A program that asks with a hint drawn anew every run (as entries that sample few-shot examples do)."""
    ran = []

    def run() -> str:
        ran.append(1)
        hint = uuid.uuid4().hex
        history = [{"role": "user", "content": f"Draw A, hint {hint}"}]
        for _ in range(turns):
            answer = chat.chat(history)[0]
            history += [{"role": "assistant", "content": answer}, {"role": "user", "content": "more"}]
        return answer

    return run, ran


def test_a_finished_trial_is_reused_as_recorded_and_its_program_not_run_again(tmp_path):
    clock, store = Clock(), ResponseStore(tmp_path)
    server = Server(clock)
    chat = chat_for(store, server, clock)
    run, _ = unseeded_program(chat)
    first = chat.run_program(run, final_is_result=True)
    chat.finish(first)
    again = chat_for(store, server, clock)
    run2, ran2 = unseeded_program(again)
    assert again.run_program(run2, final_is_result=True) == first
    assert ran2 == [] and server.paid == 2
    assert again.usage["replayed"] == 2 and again.reused_answers == [c.choices[0] for c in store.load(key()).calls]


def test_a_store_without_program_results_reuses_the_final_response(tmp_path):
    clock, store = Clock(), ResponseStore(tmp_path)
    chat = chat_for(store, Server(clock), clock)
    answer = chat.chat(MSG)[0]
    chat.finish(answer)  # as the store's format 1 writers did: no program result
    again = chat_for(store, Server(clock), clock)
    run, ran = unseeded_program(again)
    assert again.run_program(run, final_is_result=True) == answer and ran == []


def test_an_unfinished_trial_whose_program_diverges_records_past_it_keeping_what_was_paid(tmp_path):
    clock, store = Clock(), ResponseStore(tmp_path)
    server = Server(clock)
    chat = chat_for(store, server, clock)
    run, _ = unseeded_program(chat, turns=1)
    run()  # one call paid and stored, then the run died before the trial finished
    chat.close()
    again = chat_for(store, server, clock)
    run2, ran2 = unseeded_program(again)
    with pytest.warns(RecordingDiverged, match="asked something else"):
        result = again.run_program(run2, final_is_result=True)
    again.finish(result)
    assert ran2 == [1] and server.paid == 3  # 1 + the 2 calls of the new program: nothing asked twice
    assert len(store.load(key()).calls) == 2
    assert store.replies_held() == {"recorded": 2, "dropped": 1}  # the diverged reply is kept, not deleted


def test_a_failed_trial_is_failed_again_without_running_its_program(tmp_path):
    clock, store = Clock(), ResponseStore(tmp_path)
    chat = chat_for(store, Server(clock), clock)

    def failing() -> str:
        chat.chat(MSG)
        raise OfficialFailure("the program gave up", reason="bad_return")

    with pytest.raises(OfficialFailure):
        chat.run_program(failing)
    again = chat_for(store, Server(clock), clock)
    with pytest.raises(OfficialFailure, match="the program gave up") as failure:
        again.run_program(lambda: pytest.fail("the program ran again"))
    assert failure.value.reason == "bad_return"


def test_a_finished_recording_still_refuses_a_harness_that_asks_something_else(tmp_path):
    clock, store = Clock(), ResponseStore(tmp_path)
    chat = chat_for(store, Server(clock), clock)
    chat.chat(MSG)
    chat.finish("x")
    again = chat_for(store, Server(clock), clock)
    with pytest.raises(ReplayMiss, match="differs from the recording"):
        again.chat([{"role": "user", "content": "something else"}])


# -- item 3: a store that cannot be written stops paying ---------------------------------------------------------


def fill_up(store: ResponseStore) -> None:
    """Let the store's file grow by no page more: SQLite answers the next real write "database or disk is full"
    (SQLITE_FULL), as it does on a full disk."""
    db = store._db()
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")


def test_a_write_the_disk_refuses_stops_every_later_payment(tmp_path):
    clock, store = Clock(), ResponseStore(tmp_path)
    server = Server(clock)
    chat_for(store, server, clock, trial=1).chat(MSG)
    chat = chat_for(store, server, clock, trial=2)
    fill_up(store)
    big = [{"role": "user", "content": "x" * 200_000}]
    with pytest.raises(StoreWriteFailed, match=r"could not be written .*disk is full.*stops paying"):
        chat.chat(big)
    assert server.paid == 2 and store.broken
    with pytest.raises(StoreWriteFailed):  # a program that catches the error and asks again pays nothing
        chat.chat(MSG)
    assert server.paid == 2
    with pytest.raises(StoreWriteFailed):
        chat_for(store, server, clock, trial=3)  # claiming the next trial already fails, before any payment
    assert server.paid == 2


def test_a_locked_store_is_an_item_error_not_a_broken_store(tmp_path):
    store = ResponseStore(tmp_path, timeout=0.2)
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            store.claim(key(), wait=0.0)
    finally:
        other.execute("ROLLBACK")
    assert store.broken is None
