"""Official exceptions for guard failures: timeout -> TimeoutError, token limit -> ValueError (py-pkg 1.2.2)."""

from __future__ import annotations

from pcg_plugin.errors import OfficialFailure


def official_exception(reason: str, message: str) -> Exception:
    """What ``chat_with_chatgpt`` raises inside the program, so programs that catch it behave as officially."""
    if reason == "timeout":
        return TimeoutError(message)
    if reason == "token_limit":
        return ValueError(message)
    return RuntimeError(f"{reason}: {message}")


def guarded(chat, messages: list, n: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Call a parent-side ``chat`` and turn its OfficialFailure into the official exception."""
    try:
        return list(chat(messages, n))
    except OfficialFailure as failure:
        raise official_exception(failure.reason, failure.message) from None
