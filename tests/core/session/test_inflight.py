"""``core.session.inflight``: a process's CPU slots and its trials' clock, the option, the per-thread call log, the
xdist
scheduler that keeps each worker ahead, and the pieces trials in flight share (the rate limiter, the response
store's claims, the lazy per-process values), each tried from several threads at once."""

from __future__ import annotations

import threading
import time
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin._util.once import once_property
from pcg_plugin.core.records import calls
from pcg_plugin.core.session import inflight
from pcg_plugin.core.session.inflight import slots as cpu
from pcg_plugin.core.session.inflight.xdist import KeepAhead, sent_ahead
from pcg_plugin.errors import RunInterrupted


@pytest.fixture(autouse=True)
def _no_slots_after() -> Any:
    yield
    cpu.install(None)


def test_a_trial_gives_its_slot_back_only_while_it_waits() -> None:
    slots = cpu.Slots(1, 2)
    order: list[str] = []
    waiting, release = threading.Event(), threading.Event()

    def first() -> None:
        with slots.running():
            order.append("first computes")
            with slots.waiting():
                waiting.set()
                release.wait(5)
            order.append("first computes again")

    def second() -> None:
        waiting.wait(5)
        with slots.running():
            order.append("second computes")
            release.set()
            time.sleep(0.2)  # the first is answered but waits for the slot: not its own time

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert order == ["first computes", "second computes", "first computes again"]


def test_the_trial_clock_leaves_out_the_wait_for_a_slot() -> None:
    slots = cpu.Slots(1, 2)
    cpu.install(slots)
    held = threading.Event()
    seen: dict[str, float] = {}

    def holder() -> None:
        with slots.running():
            held.set()
            time.sleep(0.5)

    def trial() -> None:
        with slots.running():
            began_clock, began_wall = cpu.trial_clock(), time.perf_counter()
            with cpu.waiting():  # the model answers at once, then the holder keeps the slot 0.5 s
                threading.Thread(target=holder).start()
                held.wait(5)
            seen["clock"], seen["wall"] = cpu.trial_clock() - began_clock, time.perf_counter() - began_wall

    t = threading.Thread(target=trial)
    t.start()
    t.join(10)
    assert seen["wall"] >= 0.4 and seen["clock"] < 0.1, seen


def test_without_slots_nothing_is_given_back_and_the_clock_is_the_wall() -> None:
    with cpu.waiting():
        pass
    a, b = cpu.trial_clock(), time.perf_counter()
    assert abs(a - b) < 0.01


def test_after_ctrl_c_no_model_call_starts() -> None:
    cpu.install(cpu.Slots(1, 1))
    cpu.check("team/A/trial 1")
    cpu.stop_paying()
    with pytest.raises(RunInterrupted, match="team/A/trial 1: the run was interrupted"):
        cpu.check("team/A/trial 1")
    cpu.install(None)  # a new run starts paying again
    cpu.check("team/A/trial 1")


class _Config:
    def __init__(self, option: str | None = None, ini: str = "") -> None:
        self.option, self.ini = option, ini

    def getoption(self, dest: str, default: Any = None) -> Any:
        return self.option

    def getini(self, dest: str) -> str:
        return self.ini


@pytest.mark.parametrize(
    ("option", "env", "want"), [(None, None, inflight.DEFAULT), ("1", None, 1), (None, "64", 64), ("3", "64", 3)]
)
def test_in_flight_is_read_from_the_option_then_the_environment(monkeypatch, option, env, want) -> None:
    if env is None:
        monkeypatch.delenv(inflight.ENV, raising=False)
    else:
        monkeypatch.setenv(inflight.ENV, env)
    assert inflight.depth(_Config(option)) == want  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("option", "env", "named"), [("0", None, "--pcg-in-flight 0"), (None, "x", "$PCG_IN_FLIGHT x")]
)
def test_a_bad_in_flight_is_a_usage_error_naming_it(monkeypatch, option, env, named) -> None:
    monkeypatch.setenv(inflight.ENV, env or "")
    with pytest.raises(pytest.UsageError, match=f"{named.replace('$', '[$]')}: expected a whole number"):
        inflight.depth(_Config(option))  # type: ignore[arg-type]


def test_each_thread_keeps_its_own_trial_log() -> None:
    def call(text: str) -> calls.Call:
        return calls.Call([{"role": "user", "content": text}], text, 1, 1, 0.0, False)

    got: dict[str, list[str]] = {}
    barrier = threading.Barrier(2)

    def trial(name: str) -> None:
        calls.start()
        barrier.wait(5)
        for i in range(50):
            calls.note(call(f"{name}{i}"))
        barrier.wait(5)
        got[name] = [c.reply for c in calls.take()]

    threads = [threading.Thread(target=trial, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert got == {n: [f"{n}{i}" for i in range(50)] for n in "ab"}


def test_a_trial_thread_keeps_its_warnings_for_its_item() -> None:
    kept: list[Any] = []

    def trial() -> None:
        log = calls.start()
        calls.warn(UserWarning("the program asked something else"))
        kept.extend(log.warnings)
        calls.take()

    with pytest.warns() as shown:  # nothing reaches pytest from the thread: its item re-emits it
        t = threading.Thread(target=trial)
        t.start()
        t.join(5)
        import warnings

        warnings.warn("a marker", UserWarning, stacklevel=1)
    assert [str(w) for w in kept] == ["the program asked something else"]
    assert [str(w.message) for w in shown] == ["a marker"]


# -- the xdist side ------------------------------------------------------------------------------------------------


class _Node:
    def __init__(self, name: str) -> None:
        self.gateway = type("G", (), {"id": name})()
        self.shutting_down = False
        self.sent: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def shutdown(self) -> None:
        self.shutting_down = True


class _XdistConfig:
    """What xdist's load scheduling reads of a controller's config: ``-n 2``, ``--dist load``."""

    def getvalue(self, name: str) -> Any:
        return {"dist": "load", "tx": ["2*popen"]}[name]

    def getoption(self, name: str, default: Any = None) -> Any:
        return None  # maxschedchunk: unlimited


def _scheduler(depth: int, items: int, nodes: int) -> tuple[Any, list[_Node]]:
    pytest.importorskip("xdist")
    sched = KeepAhead(depth).pytest_xdist_make_scheduler(config=_XdistConfig(), log=None)  # type: ignore[arg-type]
    workers = [_Node(f"gw{i}") for i in range(nodes)]
    collection = [f"t.py::test_{i}" for i in range(items)]
    for node in workers:
        sched.add_node(node)
    for node in workers:
        sched.add_node_collection(node, collection)
    sched.schedule()
    return sched, workers


def test_each_worker_is_kept_depth_plus_one_items_ahead() -> None:
    sched, (a, b) = _scheduler(depth=20, items=100, nodes=2)
    assert len(a.sent) == len(b.sent) == 21  # xdist alone sends 12 (a quarter of each one's share) and waits
    for index in a.sent[:3]:
        sched.mark_test_complete(a, index, duration=1.0)  # a long item: xdist alone would not refill before 2
    assert len(sched.node2pending[a]) == 21 and len(a.sent) == 24


def test_a_short_run_is_split_evenly_whatever_the_depth() -> None:
    _, (a, b) = _scheduler(depth=64, items=104, nodes=2)
    assert len(a.sent) == len(b.sent) == 52  # not 65 and 39


class _Queue:
    def __init__(self, items: list[Any]) -> None:
        self.items = deque(items)

    @contextmanager
    def lock(self) -> Any:
        yield self.items


class WorkerInteractor:  # named as xdist's own
    def __init__(self, nextitem: Any, queued: list[Any]) -> None:
        self.nextitem_index, self.torun = nextitem, _Queue(queued)


class _Plugins:
    def __init__(self, plugins: list[Any]) -> None:
        self.plugins = plugins

    def get_plugins(self) -> list[Any]:
        return self.plugins


def test_a_worker_sees_what_it_was_sent_in_order() -> None:
    shutdown = object()  # xdist's end marker: not an index
    config = type("C", (), {"pluginmanager": _Plugins([WorkerInteractor(7, [8, 3, shutdown])])})()
    assert sent_ahead(config) == [7, 8, 3]  # type: ignore[arg-type]
    assert sent_ahead(type("C", (), {"pluginmanager": _Plugins([])})()) is None  # type: ignore[arg-type]


# -- what trials in flight share -----------------------------------------------------------------------------------


def test_threads_share_one_rate_limiter_without_sqlite_errors(tmp_path: Path) -> None:
    """One process's limiter (one SQLite connection) used by 8 threads at once: each call takes and frees a slot;
    without its lock, two transactions on one connection raise 'cannot start a transaction within a
    transaction'."""
    from pcg_plugin.llm.ratelimit import SharedLimiter

    limiter = SharedLimiter(tmp_path, rpm=None, tpm=None, concurrency=64)
    errors: list[BaseException] = []

    def calls_made() -> None:
        try:
            for _ in range(40):
                slot = limiter.acquire(10, within=30)
                limiter.release(slot, 10)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=calls_made) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and limiter.in_flight() == 0


def test_a_trial_running_on_another_thread_keeps_its_claim(tmp_path: Path) -> None:
    """Two items of one process with the same trial key (a submission copied under two roots): the second waits
    for the first while it runs, and takes the claim at once when the first is over, as an errored attempt's."""
    from pcg_plugin.errors import InfrastructureError
    from pcg_plugin.llm.store import ResponseStore, TrialKey

    store = ResponseStore(tmp_path / "store")
    key = TrialKey("2024", "m", "team", "hash", "A", 1)
    claimed, done = threading.Event(), threading.Event()

    def first() -> None:
        calls.start()
        store.claim(key)
        claimed.set()
        done.wait(10)
        calls.take()  # the trial is over, its claim left as an errored item leaves it

    t = threading.Thread(target=first)
    t.start()
    claimed.wait(5)
    calls.start()
    with pytest.raises(InfrastructureError, match="is held by"):
        store.claim(key, wait=0.5)
    done.set()
    t.join(5)
    assert store.claim(key, wait=0.5)
    calls.take()


def test_a_once_property_is_made_once_when_threads_ask_together() -> None:
    made: list[int] = []

    class Context:
        @once_property
        def backend(self) -> object:
            made.append(1)
            time.sleep(0.2)
            return object()

    ctx = Context()
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(ctx.backend)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert len(made) == 1 and len({id(g) for g in got}) == 1


@pytest.mark.parametrize(
    ("backend", "base_url", "key", "expected"),
    [
        ("openai-compatible", "http://127.0.0.1:9/v1", None, inflight.DEFAULT),
        ("openai", None, "sk-x", inflight.DEFAULT),
        (None, None, "sk-x", inflight.DEFAULT),  # auto with a key: the OpenAI server
        (None, None, None, 1),  # auto without: the in-process offline model
        ("scripted", None, None, 1),
        ("transformers", None, None, 1),
    ],
)
def test_the_default_keeps_trials_in_flight_only_when_the_model_is_a_server(
    monkeypatch: pytest.MonkeyPatch, backend: str | None, base_url: str | None, key: str | None, expected: int
) -> None:
    from pcg_plugin.llm.options import RunSettings

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    if key:
        monkeypatch.setenv("OPENAI_API_KEY", key)
    assert RunSettings(backend=backend, base_url=base_url).in_flight_default == expected
