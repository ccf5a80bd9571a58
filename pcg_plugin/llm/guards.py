"""The official per-trial guards: time checked before each call, cumulative tokens checked after each call."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pcg_plugin.errors import OfficialFailure, Reason


@dataclass
class TrialGuard:
    """Mirrors chatgpt4pcg's TrialContext: a call starting at 119 s may run past 120 s; the limit is on the sum."""

    max_time: float
    token_limit: int
    clock: Callable[[], float] = time.perf_counter
    start: float = field(default=-1.0)
    credited: float = 0.0  # recorded durations of replayed calls, so a replay keeps the original timing
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __post_init__(self) -> None:
        if self.start < 0:
            self.start = self.clock()

    @property
    def elapsed(self) -> float:
        return self.clock() - self.start + self.credited

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def check_time(self) -> None:
        """Before a call: past ``max_time`` the official context raised TimeoutError (trial fails, no file)."""
        if self.elapsed > self.max_time:
            raise OfficialFailure(
                f"time limit: {self.elapsed:.1f} s elapsed before a call, limit {self.max_time:g} s",
                reason=Reason.TIMEOUT,
            )

    def add_usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        """After a call: over ``token_limit`` in total the official context raised ValueError (response dropped)."""
        self.prompt_tokens += int(prompt_tokens)
        self.completion_tokens += int(completion_tokens)
        if self.total_tokens > self.token_limit:
            raise OfficialFailure(
                f"token limit: {self.total_tokens} tokens used in this trial, limit {self.token_limit}",
                reason=Reason.TOKEN_LIMIT,
            )
