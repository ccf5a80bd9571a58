"""The Gemini generateContent REST API on loopback: ``loopback_llm.serve(state, loopback_gemini.WIRE)`` answers
``POST /{version}/models/{model}:generateContent`` as the ``google-genai`` SDK expects, with any ``FakeOpenAI``'s
answers and faults.

A request reads as an OpenAI-style body (``systemInstruction`` first as a system message, ``model`` turns as
``assistant``, ``n`` from ``generationConfig.candidateCount``); ``empty_choices`` is a blocked prompt (no
candidates, ``promptFeedback.blockReason`` SAFETY), ``null_content`` candidates blocked for safety (no parts); a
``status`` fault's body is Google's error object (429 ``RESOURCE_EXHAUSTED`` with a ``RetryInfo`` delay from the
fault's Retry-After; a fourth item of the fault is a ``QuotaFailure`` quota id)."""

from __future__ import annotations

import re
from typing import Any

STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
ROUTE = re.compile(r"^/[\w.]+/models/([^/:]+):generateContent$")


def text_of(content: Any) -> str:
    """A Content's parts as text."""
    parts = content.get("parts", []) if isinstance(content, dict) else []
    return "".join(p.get("text", "") for p in parts if isinstance(p, dict))


class GeminiWire:
    name = "gemini"

    def base_url(self, root: str) -> str:
        return root  # the SDK appends /{api_version}/models/...

    def chat(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        route = ROUTE.match(path.split("?")[0])
        if route is None:
            return None
        system = body.get("systemInstruction")
        messages = [{"role": "system", "content": text_of(system)}] if system is not None else []
        for content in body.get("contents", []):
            role = "assistant" if content.get("role") == "model" else "user"
            messages.append({"role": role, "content": text_of(content)})
        config = body.get("generationConfig") or {}
        return {"model": route.group(1), **config, "messages": messages, "n": int(config.get("candidateCount", 1))}

    def refusal(self, raw: dict[str, Any]) -> str | None:
        """The API's own check the harness must meet: contents, each with a role the API knows."""
        contents = raw.get("contents") or []
        if not contents:
            return "contents is not specified"
        if not {c.get("role") for c in contents} <= {"user", "model"}:
            return "Please use a valid role: user, model."
        return None

    def error(self, status: int, headers: dict[str, str], extra: Any = None) -> dict[str, Any]:
        details: list[dict[str, Any]] = []
        if extra:
            details.append(
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [{"quotaMetric": "generate_content_requests", "quotaId": extra}],
                }
            )
        if "Retry-After" in headers:
            details.append(
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{headers['Retry-After']}s"}
            )
        status_name = STATUSES.get(status, "UNKNOWN")
        return {"error": {"code": status, "message": f"injected {status}", "status": status_name, "details": details}}

    def malformed(self) -> bytes:
        return b'{"candidates": [{"content": {"parts": [{"te'

    def reply(self, body: dict[str, Any], choices: list[str | None], usage: tuple[int, int]) -> dict[str, Any]:
        p, c = usage
        meta = {
            "promptTokenCount": p,
            "candidatesTokenCount": c * len(choices),
            "totalTokenCount": p + c * len(choices),
        }
        if not choices:
            return {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": meta, "modelVersion": body["model"]}
        candidates = [
            {"index": i, "finishReason": "SAFETY"}
            if t is None
            else {"index": i, "content": {"role": "model", "parts": [{"text": t}]}, "finishReason": "STOP"}
            for i, t in enumerate(choices)
        ]
        return {"candidates": candidates, "usageMetadata": meta, "modelVersion": body["model"]}


WIRE = GeminiWire()
