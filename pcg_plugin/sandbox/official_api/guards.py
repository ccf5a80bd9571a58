"""Official exceptions for guard failures: timeout -> TimeoutError, token limit -> ValueError (py-pkg 1.2.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pcg_plugin.errors import OfficialFailure, Reason
from pcg_plugin.sandbox.official_api.logfile import write_log


def official_exception(reason: str, message: str) -> Exception:
    """What ``chat_with_chatgpt`` raises inside the program, so programs that catch it behave as officially."""
    if reason == Reason.TIMEOUT:
        return TimeoutError(message)
    if reason == Reason.TOKEN_LIMIT:
        return ValueError(message)
    return RuntimeError(f"{reason}: {message}")


def tokens_used(chat: Any) -> tuple[int, int]:
    """Prompt and completion tokens a parent-side chat has counted so far (TrialChat.usage), else zeros."""
    usage = getattr(getattr(chat, "__self__", None), "usage", None)
    if not isinstance(usage, dict):
        return 0, 0
    return int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))


def credit(ctx: Any, prompt: int, completion: int) -> None:
    """Mirror the official counters on ``ctx`` (programs may read them) and log them like the package."""
    ctx.add_prompt_token_count(prompt)
    ctx.add_output_token_count(completion)
    write_log(
        ctx.get_log_file_path(),
        f"Prompt tokens: {prompt}, Output tokens: {completion}, Total tokens: {ctx.get_total_token_count()}",
    )


def guarded(chat: Callable[[list, int], list], messages: list, n: int, ctx: Any = None) -> list[str]:
    """Call a parent-side ``chat`` and turn its OfficialFailure into the official exception.

    The counters on ``ctx`` get the call's tokens even when the token guard trips (officially they are added
    before the check raises).
    """
    before = tokens_used(chat)
    try:
        return list(chat(messages, n))
    except OfficialFailure as failure:
        raise official_exception(failure.reason, failure.message) from None
    finally:
        if ctx is not None:
            after = tokens_used(chat)
            credit(ctx, after[0] - before[0], after[1] - before[1])
