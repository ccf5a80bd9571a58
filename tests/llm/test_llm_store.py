"""The response store: ordered per-trial recordings, record modes, raw layout export, many writers at once."""

from __future__ import annotations

import multiprocessing as mp

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.science_birds.editions import profile_for
from pcg_plugin.errors import OfficialFailure, ReplayMiss
from pcg_plugin.llm.scripted import ScriptedBackend
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import RecordedCall, ResponseStore, TrialKey, request_hash

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
            [f"w{rec.key.submission[4:]}:turn 1"], [f"w{rec.key.submission[4:]}:turn 2"]]
    assert store.usage()["team0"] == {"prompt_tokens": 300, "completion_tokens": 600, "calls": 30, "trials": 15}


def _open_store(path, barrier, queue):
    barrier.wait()
    try:
        ResponseStore(path)
        queue.put("ok")
    except Exception as e:  # the test reports what went wrong in the child
        queue.put(repr(e))


def test_processes_opening_a_fresh_store_at_once_all_get_it(tmp_path):
    """xdist workers open a new store together; SQLite refused the WAL switch to one of them now and then
    ("database is locked" without waiting), which failed that worker's trial (seen about 1 open in 70 here)."""
    ctx = mp.get_context("fork")
    failures = []
    for i in range(100):
        barrier, queue = ctx.Barrier(4), ctx.Queue()
        procs = [ctx.Process(target=_open_store, args=(tmp_path / str(i) / "s.sqlite3", barrier, queue))
                 for _ in range(4)]  # fmt: skip
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        failures += [r for r in (queue.get() for _ in procs) if r != "ok"]
    assert failures == []
