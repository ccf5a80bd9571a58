"""The response store: ordered per-trial recordings, record modes, raw layout export, many writers at once."""

from __future__ import annotations

import json
import multiprocessing as mp
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.errors import OfficialFailure, ReplayMiss
from pcg_plugin.llm.scripted import ScriptedBackend
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import RecordedCall, ResponseStore, TrialKey, request_hash
from pcg_plugin.problems.science_birds.editions import profile_for

P = profile_for("2024")
U1 = [{"role": "user", "content": "turn 1"}]
U2 = [{"role": "user", "content": "turn 2"}]


def key(trial: int = 1, letter: str = "A", sub: str = "team") -> TrialKey:
    return TrialKey("2024", "gpt-3.5-turbo-0125", sub, "h1", letter, trial)


def run_trial(store, backend, k, mode="once", turns=(U1, U2)):
    chat = TrialChat(k, backend=backend, profile=P, store=store, mode=mode)
    out = [chat.chat(m)[0] for m in turns]
    chat.finish(out[-1])
    return out, chat.usage


def test_identical_requests_in_two_trials_are_two_recordings(tmp_path):
    store, backend = ResponseStore(tmp_path), ScriptedBackend(["r1", "r2", "r3", "r4"])
    a, _ = run_trial(store, backend, key(1))
    b, _ = run_trial(store, backend, key(2))
    assert a == ["r1", "r2"] and b == ["r3", "r4"]  # not merged although the requests are equal
    assert [c.choices for c in store.load(key(2)).calls] == [["r3"], ["r4"]]


def test_once_replays_a_complete_trial_without_calling(tmp_path):
    store, backend = ResponseStore(tmp_path), ScriptedBackend(["r1", "r2"])
    first, _ = run_trial(store, backend, key())
    again, usage = run_trial(store, ScriptedBackend(["WRONG"]), key())
    assert again == first and usage["paid"] == 0 and usage["replayed"] == 2
    assert usage["prompt_tokens"] == 20  # the recorded usage counts again (guards see the same totals)


def test_once_resumes_an_unfinished_trial_paying_only_for_the_rest(tmp_path):
    store, backend = ResponseStore(tmp_path), ScriptedBackend(["r1", "r2", "r3"])
    chat = TrialChat(key(), backend=backend, profile=P, store=store)
    chat.chat(U1)  # ... and the process dies here, before turn 2
    out, usage = run_trial(store, backend, key())
    assert out == ["r1", "r2"] and usage == {**usage, "paid": 1, "replayed": 1}
    assert len(backend.calls) == 2


def test_once_refuses_a_divergence_from_a_finished_recording_and_new_records_past_it(tmp_path):
    store, backend = ResponseStore(tmp_path), ScriptedBackend(["r1", "r2", "r3", "r4"])
    run_trial(store, backend, key())
    other = [{"role": "user", "content": "a different turn 2"}]
    with pytest.raises(ReplayMiss, match="differs from the recording"):
        run_trial(store, backend, key(), turns=(U1, other))
    out, usage = run_trial(store, backend, key(), mode="new", turns=(U1, other))
    assert out == ["r1", "r3"] and usage["paid"] == 1
    assert [c.choices for c in store.load(key()).calls] == [["r1"], ["r3"]]


def test_all_refreshes_and_none_never_calls(tmp_path):
    store = ResponseStore(tmp_path)
    run_trial(store, ScriptedBackend(["r1", "r2"]), key())
    out, usage = run_trial(store, ScriptedBackend(["n1", "n2"]), key(), mode="all")
    assert out == ["n1", "n2"] and usage["paid"] == 2
    never = ScriptedBackend(["X"])
    assert run_trial(store, never, key(), mode="none")[0] == ["n1", "n2"] and not never.calls
    with pytest.raises(ReplayMiss, match="no recording of this trial"):
        run_trial(store, never, key(7), mode="none")
    with pytest.raises(ReplayMiss, match="differs"):
        run_trial(store, never, key(), mode="none", turns=(U2,))
    assert not never.calls


def test_failed_trial_is_marked_and_exports_no_file(tmp_path):
    store = ResponseStore(tmp_path / "s")
    run_trial(store, ScriptedBackend(["```drop_block('b11', 1)```"]), key(1))
    chat = TrialChat(key(2), backend=ScriptedBackend(["x"], usage=(24_990, 20)), profile=P, store=store)
    with pytest.raises(OfficialFailure, match="token limit"):
        chat.chat(U1)
    assert store.load(key(2)).status == "failed"
    written = store.export_raw_layout(tmp_path / "out", edition="2024", model="gpt-3.5-turbo-0125")
    assert [p.relative_to(tmp_path / "out").as_posix() for p in written] == ["team/raw/A/team_A_1.txt"]
    assert written[0].read_text() == "```drop_block('b11', 1)```"


def test_time_limit_is_checked_before_each_call(tmp_path):
    now = [0.0]
    backend = ScriptedBackend(["a", "b"])
    chat = TrialChat(key(), backend=backend, profile=P, store=ResponseStore(tmp_path), clock=lambda: now[0])
    now[0] = 119.0
    chat.chat(U1)  # starts at 119 s: allowed, may run past 120 s
    now[0] = 120.5
    with pytest.raises(OfficialFailure) as failure:
        chat.chat(U2)
    assert failure.value.reason == "timeout" and len(backend.calls) == 1


text = st.text(max_size=200)


@given(st.lists(st.tuples(text, st.lists(text, min_size=1, max_size=3), st.integers(0, 10**6)), max_size=5))
def test_recordings_round_trip_exactly(tmp_path_factory, calls):
    store = ResponseStore(tmp_path_factory.mktemp("rt"))
    k = key()
    owner = store.claim(k)
    recorded = []
    for i, (msg, choices, tokens) in enumerate(calls):
        req = {"model": "m", "n": len(choices), "messages": [{"role": "user", "content": msg}]}
        call = RecordedCall(i, request_hash(req), req, choices, tokens, tokens + 1, float(i), 0.5)
        store.record_call(k, owner, call)
        recorded.append(call)
    assert store.load(k).calls == recorded


def _writer(path: str, worker: int, trials: int) -> None:
    store = ResponseStore(path)
    backend = ScriptedBackend(lambda m, n: [f"w{worker}:{m[-1]['content']}"] * n)
    for t in range(trials):
        run_trial(store, backend, key(t, sub=f"team{worker}"))


def test_many_processes_write_without_loss_or_tearing(tmp_path):
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, 15)) for w in range(6)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    store = ResponseStore(tmp_path)
    records = list(store.trials())
    assert len(records) == 6 * 15
    for rec in records:
        assert rec.status == "complete" and [c.choices for c in rec.calls] == [
            [f"w{rec.key.submission[4:]}:turn 1"],
            [f"w{rec.key.submission[4:]}:turn 2"],
        ]
    assert store.usage()["team0"] == {"prompt_tokens": 300, "completion_tokens": 600, "calls": 30, "trials": 15}


# Forked from a small interpreter of its own (the store and nothing else): 400 forks of an xdist worker, which holds
# torch and the test session, cost twice the time for the same race.
OPEN_AT_ONCE = """
import json, multiprocessing as mp, sys
from pathlib import Path
from pcg_plugin.llm.store import ResponseStore

def open_store(path, barrier, queue):
    barrier.wait()
    try:
        ResponseStore(path)
        queue.put("ok")
    except Exception as e:
        queue.put(repr(e))

ctx, failures = mp.get_context("fork"), []
for i in range(100):
    barrier, queue = ctx.Barrier(4), ctx.Queue()
    procs = [ctx.Process(target=open_store, args=(Path(sys.argv[1], str(i), "s.sqlite3"), barrier, queue))
             for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    failures += [r for r in (queue.get() for _ in procs) if r != "ok"]
print(json.dumps(failures))
"""


def test_processes_opening_a_fresh_store_at_once_all_get_it(tmp_path):
    """xdist workers open a new store together; SQLite refused the WAL switch to one of them now and then
    ("database is locked" without waiting), which failed that worker's trial (seen about 1 open in 70 here):
    100 times, four processes open a new store at once."""
    done = subprocess.run(
        [sys.executable, "-c", OPEN_AT_ONCE, str(tmp_path)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == []


# -- replies as received: any string JSON can carry (issue 38, item 2) --------------------------------------------

LONE = "\ud83d"  # half an emoji: valid in JSON ("\ud83d") and in a Python string, not in UTF-8
# Text as JSON carries it (json.loads of a JSON string: a high and a low surrogate side by side are one character).
any_text = st.lists(
    st.one_of(st.characters(), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)), max_size=30
).map(lambda cs: json.loads(json.dumps("".join(cs))))


def test_a_reply_holding_a_lone_surrogate_is_stored_before_use_and_replayed_exactly(tmp_path):
    store, backend = ResponseStore(tmp_path), ScriptedBackend([f"smile {LONE}", f"{LONE}again"])
    history = [{"role": "user", "content": "hi"}]
    chat = TrialChat(key(), backend=backend, profile=P, store=store)
    first = chat.chat(history)[0]
    history += [{"role": "assistant", "content": first}, {"role": "user", "content": "more"}]
    second = chat.chat(history)[0]  # the lone surrogate is in the request now: hashed and stored too
    chat.finish(second)
    assert (first, second) == (f"smile {LONE}", f"{LONE}again")
    again = TrialChat(key(), backend=ScriptedBackend(["WRONG"]), profile=P, store=ResponseStore(tmp_path))
    assert again.chat(history[:1]) == [first] and again.chat(history) == [second]
    record = ResponseStore(tmp_path).load(key())
    assert record.final_response == second and record.calls[1].request["messages"][1]["content"] == first
    assert again.usage["paid"] == 0


@given(st.lists(st.tuples(any_text, st.lists(any_text, min_size=1, max_size=3)), min_size=1, max_size=4), any_text)
def test_any_text_round_trips_through_the_store(tmp_path_factory, turns, final):
    store = ResponseStore(tmp_path_factory.mktemp("sur"))
    k = key()
    owner = store.claim(k)
    history: list[dict] = []
    recorded = []
    for i, (msg, choices) in enumerate(turns):
        history = [*history, {"role": "user", "content": msg}]
        req = {"model": "m", "n": len(choices), "messages": history}
        call = RecordedCall(i, request_hash(req), req, choices, 1, 2, float(i), 0.5)
        store.record_call(k, owner, call)
        recorded.append(call)
        history = [*history, {"role": "assistant", "content": choices[0]}]
    store.finish(k, owner, status="complete", final_response=final)
    loaded = ResponseStore(store.path).load(k)
    assert loaded.calls == recorded and loaded.final_response == final


# -- growth linear in what was said (issue 38, item 9) ------------------------------------------------------------


def test_a_conversation_stores_each_message_once(tmp_path):
    """A 1 MB reply early in a 12-call conversation is in every later request: format 1 stored it 12 times."""
    big = "x" * 1_000_000
    store = ResponseStore(tmp_path)
    backend = ScriptedBackend(lambda m, n: [big if len(m) == 1 else f"short {len(m)}"] * n)
    chat = TrialChat(key(), backend=backend, profile=P, store=store)
    history = [{"role": "user", "content": "start"}]
    for turn in range(12):
        answer = chat.chat(history)[0]
        history += [{"role": "assistant", "content": answer}, {"role": "user", "content": f"turn {turn}"}]
    chat.finish(answer)
    store.close()
    size = sum(p.stat().st_size for p in tmp_path.glob("responses.sqlite3*"))
    assert size < 1.5 * len(big)  # said once, stored once (format 1: about 12 MB)
    assert [c.request["messages"] for c in ResponseStore(tmp_path).load(key()).calls][-1] == history[:-2]


def test_each_call_of_a_long_conversation_stores_only_what_it_adds(tmp_path):
    """A call continues the longest earlier call's messages it shares: its row lists the hashes of the 2 messages
    it adds, not the whole history (without the shared prefix: 200 calls x up to 400 hashes, quadratic)."""
    import sqlite3

    store = ResponseStore(tmp_path)
    chat = TrialChat(key(), backend=ScriptedBackend(lambda m, n: [f"reply {len(m)}"] * n), profile=P, store=store)
    history = [{"role": "user", "content": "start"}]
    for turn in range(200):
        answer = chat.chat(history)[0]
        history += [{"role": "assistant", "content": answer}, {"role": "user", "content": f"turn {turn}"}]
    chat.finish(answer)
    store.close()
    db = sqlite3.connect(tmp_path / "responses.sqlite3")
    listed = db.execute("SELECT SUM(LENGTH(messages)) FROM calls").fetchone()[0]
    db.close()
    assert listed < 200 * 2 * 70  # a hash in JSON is 67 characters: two per call
    assert ResponseStore(tmp_path).load(key()).calls[-1].request["messages"] == history[:-2]


def test_a_format_1_store_is_read_resumed_and_extended(tmp_path, reference):
    import shutil

    shutil.copy(reference / "llm-store-format1" / "responses.sqlite3", tmp_path / "responses.sqlite3")
    store = ResponseStore(tmp_path)
    done = TrialKey("2024", "gpt-3.5-turbo-0125", "team_a", "h0", "A", 1)
    record = store.load(done)
    assert record.status == "complete" and record.final_response == "third reply"
    assert [c.choices for c in record.calls] == [["first é reply"], ["second reply"], ["third reply"]]
    assert record.calls[2].request["messages"][2] == {"role": "assistant", "content": "first é reply"}
    history = [{"role": "system", "content": "You draw letters."}, {"role": "user", "content": "Draw A"}]
    chat = TrialChat(done, backend=ScriptedBackend(["WRONG"]), profile=P, store=store)
    assert chat.chat(history) == ["first é reply"] and chat.usage["paid"] == 0
    unfinished = TrialKey("2024", "gpt-3.5-turbo-0125", "team_a", "h0", "B", 1)
    chat = TrialChat(unfinished, backend=ScriptedBackend(["new"]), profile=P, store=store)
    first = chat.chat([{"role": "user", "content": "Draw B"}])  # the old row, replayed
    second = chat.chat(
        [
            {"role": "user", "content": "Draw B"},
            {"role": "assistant", "content": first[0]},
            {"role": "user", "content": "more"},
        ]
    )  # a format 2 row continuing a format 1 one
    chat.finish(second[0])
    calls = ResponseStore(tmp_path).load(unfinished).calls
    assert [c.choices for c in calls] == [["only reply"], ["new"]]
    assert calls[1].request["messages"][1] == {"role": "assistant", "content": "only reply"}


def test_a_claim_whose_pid_now_names_another_process_is_taken_over(tmp_path):
    """A run killed midway leaves its claims; when the system later gives a dead claimant's pid to another process
    (every 32,768 pids here), the rerun takes the trial at once instead of waiting out the lease (seen: a resumed
    run waited minutes on a claim "held" by an unrelated process)."""
    import os
    import socket
    import sqlite3
    import subprocess
    import time

    from pcg_plugin._util.trial_dirs import process_started

    store = ResponseStore(tmp_path)
    store.claim(key())
    db = sqlite3.connect(store.path)
    ((mine,),) = db.execute("SELECT owner FROM trials")
    db.close()
    host, pid, nonce, started = mine.split(":")
    assert (host, int(pid)) == (socket.gethostname(), os.getpid()) and started.isdigit()
    time.sleep(0.05)  # start times count in clock ticks (10 ms)
    other = subprocess.Popen(["sleep", "30"])  # alive, started after this process: the pid "given again"
    try:
        for owner, busy in [
            (f"{host}:{other.pid}:{nonce}:{started}", False),  # the pid lives, but not the claimant started then
            (f"{host}:{other.pid}:{nonce}:{process_started(other.pid)}", True),  # the claimant itself, still running
            (f"{host}:{other.pid}:{nonce}", True),  # a claim written before start times were recorded: the pid
        ]:
            assert store.holder_busy(owner, "me") is busy, owner
    finally:
        other.kill()
        other.wait()
