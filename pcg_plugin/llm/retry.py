"""Retries with capped exponential backoff and full jitter that honour Retry-After (429 is not a 5xx)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from pcg_plugin.errors import ConnectionFailed, EmptyReply, LLMError, RateLimited, ServerError, Timeout

T = TypeVar("T")


@dataclass
class RetryPolicy:
    """``max_attempts`` tries in all; delays grow ``base * 2**k`` up to ``cap``, jittered, never below Retry-After."""

    max_attempts: int = 6
    base: float = 0.5
    cap: float = 30.0
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, error: LLMError) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        backoff = self.rng.uniform(0, min(self.cap, self.base * 2 ** (attempt - 1)))
        if isinstance(error, RateLimited) and error.retry_after is not None:
            return float(error.retry_after) + backoff * 0.1  # the server's wait plus a little spread
        return backoff


def cause(error: LLMError) -> str:
    """Why a try failed, as the run counts its retries: ``429 rate limited``, ``529 overloaded`` (Anthropic's
    overload), ``<status> server error`` (the status every backend words a 5xx with), ``timeout``, ``connection
    failed``, ``no answer in the reply`` (no choices, a null content, not JSON)."""
    if isinstance(error, RateLimited):
        return "429 rate limited"
    if isinstance(error, ServerError):
        status = re.match(r"\s*(\d{3})\b", str(error))
        code = status.group(1) if status else "5xx"
        return "529 overloaded" if code == "529" else f"{code} server error"
    if isinstance(error, Timeout):
        return "timeout"
    if isinstance(error, ConnectionFailed):
        return "connection failed"
    if isinstance(error, EmptyReply):
        return "no answer in the reply"
    return type(error).__name__


def call_with_retry(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    deadline: Callable[[LLMError, float], bool] | None = None,
    on_retry: Callable[[LLMError, float], None] | None = None,
) -> T:
    """Call ``fn``; retry transient LLM errors. ``deadline(error, delay)`` True stops retrying with the error
    (the trial's time is up); it may raise an error of its own instead."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn()
        except LLMError as error:
            if not error.transient or attempt >= policy.max_attempts:
                raise
            wait = policy.delay(attempt, error)
            if deadline is not None and deadline(error, wait):
                raise
            if on_retry is not None:
                on_retry(error, wait)
            sleep(wait)
