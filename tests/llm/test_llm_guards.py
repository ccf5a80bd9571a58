"""Profiles, the official guards and the retry policy: pure rules checked with a fake clock and hypothesis."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.errors import BadRequest, OfficialFailure, RateLimited, ServerError
from pcg_plugin.llm.guards import TrialGuard
from pcg_plugin.llm.retry import RetryPolicy, call_with_retry
from pcg_plugin.problems.science_birds.editions import NO_TIME_LIMIT, profile_for


def test_edition_profiles_match_the_official_packages():
    p23, p24, p25 = profile_for("2023"), profile_for("2024"), profile_for("2025", model="gemma2:27b", base_url="u")
    assert (p23.model, p23.temperature, p23.seed, p23.max_time) == ("gpt-3.5-turbo", None, None, NO_TIME_LIMIT)
    json.dumps(vars(p23), allow_nan=False)  # results files refuse Infinity
    assert p23.request_params() == {"model": "gpt-3.5-turbo"}
    assert (p24.model, p24.temperature, p24.seed, p24.client_timeout, p24.max_time, p24.token_limit) == (
        "gpt-3.5-turbo-0125",
        1.0,
        42,
        60.0,
        120.0,
        25_000,
    )
    assert (p25.model, p25.seed, p25.client_timeout, p25.max_time, p25.token_limit, p25.base_url) == (
        "gemma2:27b",
        None,
        None,
        500.0,
        25_000,
        "u",
    )
    assert p24.seed_policy == "fixed" and p25.seed_policy == "none"
    with pytest.raises(ValueError, match="unknown edition"):
        profile_for("2022")


@given(st.lists(st.tuples(st.integers(0, 9000), st.integers(0, 9000)), min_size=1, max_size=12))
def test_token_limit_fails_exactly_when_the_running_total_exceeds_it(usages):
    guard = TrialGuard(120.0, 25_000, clock=lambda: 0.0)
    total = 0
    for prompt, completion in usages:
        total += prompt + completion
        if total > 25_000:
            with pytest.raises(OfficialFailure) as failure:
                guard.add_usage(prompt, completion)
            assert failure.value.reason == "token_limit"
            return
        guard.add_usage(prompt, completion)
    assert guard.total_tokens == total


@given(st.floats(0, 300, allow_nan=False))
def test_time_is_checked_only_before_a_call(elapsed):
    now = [0.0]
    guard = TrialGuard(120.0, 25_000, clock=lambda: now[0])
    now[0] = elapsed
    if elapsed > 120.0:
        with pytest.raises(OfficialFailure, match="time limit"):
            guard.check_time()
    else:
        guard.check_time()


def test_retry_after_sets_the_floor_and_5xx_backs_off_exponentially():
    policy = RetryPolicy(base=1.0, cap=8.0, rng=random.Random(0))
    assert policy.delay(1, RateLimited("x", retry_after=5.0)) >= 5.0
    delays = [policy.delay(k, ServerError("x")) for k in range(1, 8)]
    assert all(0 <= d <= min(8.0, 2 ** (k - 1)) for k, d in zip(range(1, 8), delays, strict=True))


def test_call_with_retry_stops_on_permanent_errors_attempts_and_deadline():
    calls = []

    def flaky():
        calls.append(1)
        raise ServerError("boom")

    with pytest.raises(ServerError):
        call_with_retry(flaky, RetryPolicy(max_attempts=3), sleep=lambda s: None)
    assert len(calls) == 3
    calls.clear()

    def bad():
        calls.append(1)
        raise BadRequest("no")

    with pytest.raises(BadRequest):
        call_with_retry(bad, RetryPolicy(), sleep=lambda s: None)
    assert len(calls) == 1
    calls.clear()
    with pytest.raises(ServerError):
        call_with_retry(flaky, RetryPolicy(max_attempts=9), sleep=lambda s: None, deadline=lambda error, wait: True)
    assert len(calls) == 1
