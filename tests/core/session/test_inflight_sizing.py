"""``core.session.inflight.sizing``: the trials in flight the harness keeps when no ``--pcg-in-flight`` is given
(Little's law on the process's own trials, between a floor and the caps), what a trial's slot measures for it, the
process's number growing while an item waits, and the line said when xdist's workers outnumber the CPUs."""

from __future__ import annotations

import math
import threading
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.core.session.inflight import outnumbered
from pcg_plugin.core.session.inflight import slots as cpu
from pcg_plugin.core.session.inflight.runner import TrialRunner
from pcg_plugin.core.session.inflight.sizing import CEILING, START, TRIAL_MB, Caps, Measured, Sizer, ceiling, size
from pcg_plugin.core.session.inflight.xdist import KeepAhead
from pcg_plugin.core.session.items import IN_FLIGHT_LIMIT_PROPERTY
from pcg_plugin.core.session.run_facts import in_flight_doc, in_flight_line

seconds = st.floats(min_value=0.001, max_value=600, allow_nan=False)
slot_counts = st.integers(min_value=1, max_value=64)
optional = st.none() | st.integers(min_value=1, max_value=10_000)
caps = st.builds(
    Caps,
    processes=st.integers(min_value=1, max_value=128),
    memory_mb=st.none() | st.floats(min_value=0, max_value=1e6),
    concurrency=optional,
    rpm=st.none() | st.floats(min_value=1, max_value=1e5),
    tpm=st.none() | st.floats(min_value=1, max_value=1e8),
)
measured = st.builds(
    Measured,
    trials=st.integers(min_value=1, max_value=1000),
    held=seconds,
    server=st.floats(min_value=0, max_value=600),
    calls=st.integers(min_value=0, max_value=5000),
    tokens=st.integers(min_value=0, max_value=10**7),
)


def test_little_s_law_on_what_the_process_measured() -> None:
    """One slot; a trial computes 0.3 s and waits 2 s on its model: 2.3 / 0.3 = 7.7 trials keep the slot busy, and
    the harness keeps twice that. A trial that waits on nothing leaves the floor: one more than the slots."""
    assert size(1, Measured(trials=10, held=3.0, server=20.0), Caps()) == math.ceil(2 * 23 / 3) == 16
    assert size(2, Measured(trials=10, held=3.0, server=20.0), Caps()) == 31
    assert size(2, Measured(trials=4, held=4.0, server=0.0), Caps()) == 4  # 2 x 1 x 2 = 4: above the floor 3
    assert size(1, Measured(trials=4, held=4.0, server=0.0), Caps()) == 2  # the floor: one waits, one computes
    assert size(1, Measured(), Caps()) == START  # nothing measured yet
    assert size(1, Measured(trials=10, held=0.1, server=1000.0), Caps()) == CEILING


def test_each_cap_bounds_it() -> None:
    slow = Measured(trials=10, held=1.0, server=100.0, calls=10, tokens=10_000)  # 10 s a call, 1 call a trial
    assert size(1, slow, Caps(concurrency=8, processes=2)) == 1 + 4  # the slot + its share of the calls at once
    assert size(1, slow, Caps(memory_mb=20 * TRIAL_MB, processes=2)) == 10  # its half of the budget
    # 60 requests a minute over 2 processes: 0.5 trial a second each, a trial takes 10.1 s: 6 waiting, 1 computing
    assert size(1, slow, Caps(rpm=60, processes=2)) == 1 + math.ceil(0.5 * 10.1) == 7
    # 1,000 tokens a trial at 60,000 tokens a minute in one process: 1 trial a second, 11 in flight with the slot
    assert size(1, slow, Caps(tpm=60_000)) == 1 + 11


@given(slots=slot_counts, m=measured, c=caps)
def test_it_stays_between_the_floor_and_the_ceiling(slots: int, m: Measured, c: Caps) -> None:
    top = ceiling(slots, c, m)
    assert 1 <= top <= CEILING
    assert min(slots + 1, top) <= size(slots, m, c) <= top


@given(slots=slot_counts, m=measured, c=caps, more=seconds)
def test_a_longer_wait_never_asks_for_fewer_a_longer_computation_never_for_more(
    slots: int, m: Measured, c: Caps, more: float
) -> None:
    """Without the rate caps (whose bound grows with a trial's length too) the number follows the waits alone."""
    c = Caps(c.processes, c.memory_mb, c.concurrency)
    longer_wait = Measured(m.trials, m.held, m.server + more, m.calls, m.tokens)
    longer_work = Measured(m.trials, m.held + more, m.server, m.calls, m.tokens)
    assert size(slots, longer_wait, c) >= size(slots, m, c) >= size(slots, longer_work, c)


def test_a_waiting_on_a_cap_is_not_a_wait_on_the_server() -> None:
    """The slot measures what it held and what it waited on a server; a rate limit's wait is neither, so caps that
    bind never make the number grow."""
    slots = cpu.Slots(1, 2)
    with slots.running():
        time.sleep(0.1)
        with slots.waiting():
            time.sleep(0.3)
        with slots.waiting("cap"):
            time.sleep(0.5)
    held, server = slots.last()
    assert 0.09 <= held < 0.25 and 0.29 <= server < 0.45


def test_an_item_waiting_for_its_trial_starts_what_a_grown_number_allows() -> None:
    """The sizer's number grows when a trial finishes; the item at hand, still waiting for its own, calls
    ``refill`` until it is done."""
    sizer = Sizer(1, Caps())
    runner = TrialRunner(Any, 1, cpu.Slots(1, 1), sizer)  # type: ignore[arg-type]
    finished = threading.Event()
    calls: list[int] = []

    def refill() -> None:
        calls.append(runner.limit())
        if len(calls) == 3:
            sizer.add(held=1.0, server=20.0, calls=1, tokens=0)  # a trial finished: 2 x 21 / 1 = 42
            finished.set()

    runner.refill = refill
    threading.Timer(3, finished.set).start()  # a runner that never refills fails here instead of hanging
    trial = type("T", (), {"finished": finished, "done": object()})()
    runner.trials["x"] = trial  # type: ignore[assignment]
    runner.outcome("x")
    assert calls == [START, START, START] and runner.limit() == 42


def test_what_the_harness_chose_is_said() -> None:
    doc = in_flight_doc("harness", {"gw1": {"peak": 9, "mean": 7.5, "allowed_last": 12, "allowed_peak": 16}})
    assert in_flight_line(doc) == (
        "trials in flight per process, sized by the harness: gw1 peak 9, mean 7.5, allowing 12 at the end "
        "(results.json: in_flight)"
    )
    assert "as --pcg-in-flight 4:" in str(
        in_flight_line(in_flight_doc("--pcg-in-flight 4", {"main": doc["processes"]["gw1"]}))
    )
    assert in_flight_line(in_flight_doc("harness", {})) is None


@pytest.mark.parametrize(
    ("workers", "cpus", "said"),
    [
        (8, 2, "-n 8 on 2 CPUs: trials in flight already overlap the waits on the model; -n 2 would be faster"),
        (2, 1, "-n 2 on 1 CPU: trials in flight already overlap the waits on the model; -n 1 would be faster"),
        (2, 2, None),
        (1, 16, None),
    ],
)
def test_workers_that_outnumber_the_cpus_are_told_what_would_be_faster(workers: int, cpus: int, said: Any) -> None:
    line = outnumbered(workers, cpus)
    assert line == said if said is None else str(line).startswith(said)


def test_a_sized_worker_is_kept_as_far_ahead_as_its_reports_allow() -> None:
    """Under xdist the controller keeps each worker its own number + 1 items ahead: the first guess until its
    reports say the number it sized, then that (so a worker that sized 30 is never starved of items to start)."""
    pytest.importorskip("xdist")
    from test_inflight import _Node, _XdistConfig  # the fake xdist nodes of the fixed-number tests

    keep = KeepAhead(START, sized=True)
    sched = keep.pytest_xdist_make_scheduler(config=_XdistConfig(), log=None)  # type: ignore[arg-type]
    a, b = _Node("gw0"), _Node("gw1")
    for node in (a, b):
        sched.add_node(node)
    for node in (a, b):
        sched.add_node_collection(node, [f"t.py::test_{i}" for i in range(100)])
    sched.schedule()
    assert len(a.sent) == len(b.sent) == START + 1
    report = type("R", (), {"user_properties": [(IN_FLIGHT_LIMIT_PROPERTY, "30")], "node": a})()
    keep.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    sched.mark_test_complete(a, a.sent[0], duration=1.0)
    sched.mark_test_complete(b, b.sent[0], duration=1.0)
    assert len(sched.node2pending[a]) == 31 and len(sched.node2pending[b]) == START + 1


def test_no_wait_asks_for_margin_times_slots_whatever_the_seconds_held() -> None:
    """Hypothesis found it: (held + server) / held rounded to 1.0000000000000002 for 342.04 s held and no wait,
    so a longer computation asked for one trial more than a shorter one."""
    from pcg_plugin.core.session.inflight.sizing import MARGIN, Caps, Measured, size

    for held in (201.85116749441102, 342.0402220630523, 0.1, 1e6):
        assert size(3, Measured(trials=1, held=held, server=0.0), Caps()) == int(MARGIN * 3)
