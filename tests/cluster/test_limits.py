"""The cluster's one rate limit (``cluster.limits.LimiterState``, what the limiter actor holds) on a hand-moved
clock: no test waits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.cluster.limits import BUSY_WAIT_S, LimiterState, ManualClock
from pcg_plugin.llm.ratelimit import endpoint_file, endpoint_of


def test_a_burst_then_waits_that_grow_by_the_rate():
    clock = ManualClock()
    lim = LimiterState(rpm=600, clock=clock)  # 10 a second, a minute's allowance as the bucket
    delays = []
    for _ in range(602):
        slot, wait = lim.try_acquire(0, "a")
        delays.append(wait)
        if slot is not None:
            lim.release(slot)
    assert delays[:600] == [0.0] * 600 and delays[600] == 0.1000000000000000
    clock.advance(0.1)
    assert lim.try_acquire(0, "a")[1] == 0.0


def test_a_429_pauses_everyone_until_it_ends():
    clock = ManualClock(100.0)
    lim = LimiterState(rpm=60, clock=clock)
    lim.pause(30)
    assert lim.try_acquire(0, "a") == (None, 30.0)
    lim.pause(5)  # a shorter pause never shortens one in force
    clock.advance(29)
    assert lim.try_acquire(0, "b") == (None, 1.0)
    clock.advance(1)
    assert lim.try_acquire(0, "b")[0] is not None


def test_concurrency_and_a_lost_actors_slots():
    lim = LimiterState(concurrency=2, clock=ManualClock())
    a1, _ = lim.try_acquire(0, "ray0@n1:1")
    a2, _ = lim.try_acquire(0, "ray0@n1:1")
    assert a1 and a2 and lim.try_acquire(0, "ray1@n2:2") == (None, BUSY_WAIT_S)
    assert lim.release_holder("ray0@n1:1") == 2  # its node is gone: its slots with it
    assert lim.try_acquire(0, "ray1@n2:2")[0] is not None


def test_tokens_are_settled_by_what_a_call_used():
    clock = ManualClock()
    lim = LimiterState(tpm=1000, clock=clock)
    slot, _ = lim.try_acquire(400, "a")
    lim.release(slot, used_tokens=900)  # estimated 400, used 900: 500 more charged
    assert lim.try_acquire(200, "a") == (None, 6.0)  # 100 left, 100 short at 1000/min


@given(st.lists(st.floats(min_value=0.0, max_value=2.0), min_size=1, max_size=300))
def test_never_more_than_the_limit_in_any_minute(gaps):
    clock = ManualClock()
    lim = LimiterState(rpm=60, clock=clock)
    granted = []
    for gap in gaps:
        clock.advance(gap)
        slot, _ = lim.try_acquire(0, "a")
        if slot is not None:
            granted.append(clock.now)
            lim.release(slot)
    for t in granted:  # a full bucket (60) plus what refills in the window (60 a minute)
        assert sum(1 for u in granted if t <= u < t + 60) <= 120


def test_one_limiter_per_model_endpoint():
    """The hub (``cluster.shared.LimiterHub``, here holding plain states, no Ray) gives each endpoint its own
    limit, made once; a lost actor's slots are freed in all of them."""
    shared = pytest.importorskip(
        "pcg_plugin.cluster.shared", reason="Ray is not installed (pip install -e '.[cluster]')"
    )
    clock = ManualClock()
    hub = shared.LimiterHub(1, None, None, make=lambda *limits: LimiterState(*limits, clock=clock))
    a, b = endpoint_of(None, "gpt-4o"), endpoint_of(None, "gpt-4o-mini")
    assert hub.endpoint(a).try_acquire(0, "ray0")[0] is not None
    assert hub.endpoint(a).try_acquire(0, "ray0") == (None, 60.0)  # its minute is spent
    assert hub.endpoint(b).try_acquire(0, "ray0")[0] is not None  # another model's is not
    assert hub.endpoint(a) is hub.endpoint(a) and hub.names() == sorted([a, b])
    assert hub.release_holder("ray0") == 2


@given(st.text(), st.text(), st.text())
def test_endpoint_files_are_names_and_distinct(url, model, other):
    name = endpoint_file(endpoint_of(url, model))
    assert name.startswith("ratelimit-") and name.endswith(".sqlite3") and "/" not in name and len(name) < 100
    if endpoint_of(url, model) != endpoint_of(url, other):
        assert endpoint_file(endpoint_of(url, other)) != name
