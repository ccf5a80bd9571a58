"""``chat_with_chatgpt`` / ``chat_with_llm``: log, then ask the context's transport (which enforces the guards)."""

from __future__ import annotations

from time import perf_counter

from pcg_plugin.sandbox.official_api.logfile import write_log
from pcg_plugin.sandbox.official_api.models import TrialContext


def chat_with_chatgpt(ctx: TrialContext, messages: list, n: int = 1) -> list[str]:
    """The ``content`` of each of the ``n`` choices; TimeoutError/ValueError when a guard trips (official)."""
    transport = getattr(ctx, "_transport", None)
    if transport is None:
        raise RuntimeError("this TrialContext has no chat transport: run it through run_evaluation or pcg")
    choices = list(transport(messages, n))
    elapsed = perf_counter() - ctx.get_start_time()
    write_log(ctx.get_log_file_path(), f"Time elapsed: {elapsed:.2f} s")
    write_log(ctx.get_log_file_path(), f"Messages: {messages}")
    write_log(ctx.get_log_file_path(), f"Responses: {choices}")
    return choices


def chat_with_llm(ctx: TrialContext, messages: list, n: int = 1) -> list[str]:
    """The 2025 name of the same call (llms4pcg 2.0.x)."""
    return chat_with_chatgpt(ctx, messages, n)
