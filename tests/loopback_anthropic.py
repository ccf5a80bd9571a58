"""The Anthropic Messages API on loopback: ``loopback_llm.serve(state, loopback_anthropic.WIRE)`` answers
``POST /v1/messages`` as the ``anthropic`` SDK expects, with any ``FakeOpenAI``'s answers and faults.

A request reads as an OpenAI-style body (the top-level ``system`` first as a system message, ``n`` 1: the API has
none); ``empty_choices`` is a message with no content blocks, ``null_content`` a refusal (``stop_reason``
``refusal``, no text); a ``status`` fault's body is the API's error object (529 ``overloaded_error``, 429
``rate_limit_error``; a fourth item of the fault, e.g. ``"enforced_spend_limit_reached"``, is its
``error.details.error_code``)."""

from __future__ import annotations

import itertools
from typing import Any

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def text_of(content: Any) -> str:
    """A Messages API content (a string or blocks) as text."""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


class AnthropicWire:
    name = "anthropic"

    def base_url(self, root: str) -> str:
        return root  # the SDK appends /v1/messages

    def chat(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        if path.rstrip("/") != "/v1/messages":
            return None
        system = body.get("system")
        messages = [{"role": "system", "content": text_of(system)}] if system is not None else []
        messages += [{"role": m.get("role"), "content": text_of(m.get("content"))} for m in body.get("messages", [])]
        rest = {k: v for k, v in body.items() if k not in ("system", "messages")}
        return {**rest, "messages": messages, "n": 1}

    def refusal(self, raw: dict[str, Any]) -> str | None:
        """The API's own checks the harness must meet: a turn at least, roles alternating, a max_tokens."""
        messages = raw.get("messages") or []
        roles = [m.get("role") for m in messages]
        if not messages:
            return "messages: at least one message is required"
        if any(a == b for a, b in itertools.pairwise(roles)) or not set(roles) <= {"user", "assistant"}:
            return f"messages: roles must alternate between user and assistant, got {roles}"
        if not isinstance(raw.get("max_tokens"), int):
            return "max_tokens: Field required"
        if set(raw) & {"temperature", "top_p", "top_k"}:
            return "temperature: Extra inputs are not permitted"
        return None

    def error(self, status: int, headers: dict[str, str], extra: Any = None) -> dict[str, Any]:
        error: dict[str, Any] = {"type": ERROR_TYPES.get(status, "api_error"), "message": f"injected {status}"}
        if extra:
            error["details"] = {"error_code": extra}
        return {"type": "error", "error": error, "request_id": "req_test"}

    def malformed(self) -> bytes:
        return b'{"id": "msg_test", "type": "message", "content": [{"type": "te'

    def reply(self, body: dict[str, Any], choices: list[str | None], usage: tuple[int, int]) -> dict[str, Any]:
        text = choices[0] if choices else None
        return {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [] if text is None else [{"type": "text", "text": text}],
            "stop_reason": "refusal" if choices and text is None else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1] if choices else 0},
        }


WIRE = AnthropicWire()
