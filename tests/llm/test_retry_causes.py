"""What a run counts its retries by (``llm.retry.cause``): the status every backend words a 5xx with, 529 as
Anthropic's overload, and the transient errors each by its name; ``TrialChat`` notes each retry, with its wait,
in the running trial's log (``core.records.calls``), which the item reports and the run sums."""

from __future__ import annotations

import pytest

from pcg_plugin.core.records import calls
from pcg_plugin.errors import ConnectionFailed, EmptyReply, RateLimited, ServerError, Timeout
from pcg_plugin.llm.base import ChatResult
from pcg_plugin.llm.retry import RetryPolicy, cause
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import ResponseStore, TrialKey
from pcg_plugin.problems.science_birds.editions import profile_for


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (RateLimited("429 rate limited: slow down", retry_after=2), "429 rate limited"),
        (ServerError("529 server error: Error code: 529 - overloaded_error"), "529 overloaded"),
        (ServerError("503 server error: UNAVAILABLE"), "503 server error"),
        (ServerError("the server failed"), "5xx server error"),
        (Timeout("no answer within the client timeout"), "timeout"),
        (Timeout("408 the server timed out"), "timeout"),
        (ConnectionFailed("cannot reach the model server"), "connection failed"),
        (EmptyReply("no choices"), "no answer in the reply"),
    ],
)
def test_each_retried_error_is_counted_by_its_cause(error: Exception, said: str) -> None:
    assert cause(error) == said  # type: ignore[arg-type]


class Flaky:
    """A backend that fails with ``errors`` in order, then answers."""

    accepts_timeout = False

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)

    def complete(self, messages, n=1, profile=None, **kw):  # type: ignore[no-untyped-def]
        if self.errors:
            raise self.errors.pop(0)
        return ChatResult(["```\ndrop_block('b11', 1)\n```"], 5, 5)


def test_a_trials_retries_are_in_its_log_with_their_waits(tmp_path) -> None:  # type: ignore[no-untyped-def]
    backend = Flaky(ServerError("529 server error: overloaded"), RateLimited("429", retry_after=0.5))
    key = TrialKey("2024", "gpt-3.5-turbo-0125", "team", "h", "A", 1)
    chat = TrialChat(
        key,
        backend=backend,  # type: ignore[arg-type]
        profile=profile_for("2024"),
        store=ResponseStore(tmp_path),
        retry=RetryPolicy(base=0.01),
        sleep=lambda s: None,
    )
    log = calls.start()
    chat.chat([{"role": "user", "content": "Draw A"}])
    calls.take()
    assert [w.cause for w in log.waits] == ["529 overloaded", "429 rate limited"]
    assert log.waits[1].seconds >= 0.5  # a 429's wait is at least its retry-after
    counts = calls.wait_counts(log.waits)
    assert set(counts) == {"529 overloaded", "429 rate limited"} and all(c[0] == 1 for c in counts.values())
