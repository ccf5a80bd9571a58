"""``--pcg-backend gemini``: Gemini through the official ``google-genai`` SDK (generateContent), with the guarantees
of the OpenAI path: the SDK never retries (the session does), each reply's body is read here as it came (the
SDK's ``should_return_http_response``), a candidate blocked for safety or without text is the provider's fault,
and every failure is one of the LLM error family."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from pcg_plugin.errors import AccessDenied, EmptyReply, LLMError
from pcg_plugin.llm.base import ChatResult
from pcg_plugin.llm.wire import (
    Provider,
    client_error,
    count,
    mapping,
    split_chat,
    status_error,
    texts_of,
    transport_fault,
    wait_for,
)

if TYPE_CHECKING:
    from pcg_plugin.llm.profiles import Profile

KEY_ENVS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")  # in this order (the SDK itself prefers GOOGLE_API_KEY)
DAILY = re.compile(r"per ?day", re.IGNORECASE)  # a daily quota's id: no retry within a trial will help


def request_parts(messages: list[dict], params: dict[str, Any], n: int) -> tuple[list[dict], dict[str, Any]]:
    """(contents, config) of an OpenAI-style request: the system messages as ``system_instruction``, the other
    turns as ``user``/``model`` contents, ``n`` as ``candidate_count`` (sent only above 1), the seed, temperature
    and a problem's ``max_tokens`` as the API names them."""
    chat = split_chat(messages)
    contents = [{"role": "model" if r == "assistant" else "user", "parts": [{"text": t}]} for r, t in chat.turns]
    config: dict[str, Any] = {}
    if chat.system is not None:
        config["system_instruction"] = chat.system
    for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("seed", "seed")):
        if params.get(ours) is not None:
            config[theirs] = params[ours]
    if params.get("max_tokens") is not None:
        config["max_output_tokens"] = params["max_tokens"]
    stop = params.get("stop")
    if stop:
        config["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    if n > 1:
        config["candidate_count"] = n
    return contents, config


def reply(doc: Any, n: int) -> ChatResult:
    """One generateContent reply (its REST JSON, as received): each candidate's text parts joined (thoughts left
    out), in index order. No candidates (a blocked prompt), fewer than asked, or a candidate without text (blocked
    for safety, recitation ...) is the provider's fault, never the model's answer."""
    if not isinstance(doc, dict):
        raise EmptyReply(f"the server's reply is not a generateContent response: {str(doc)[:200]!r}")
    candidates = doc.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        feedback = mapping(doc.get("promptFeedback"))
        raise EmptyReply(
            f"the provider's reply holds no candidates (prompt blocked: {feedback.get('blockReason')!r}): its "
            "fault, not the model's answer"
        )
    if len(candidates) < n:
        raise EmptyReply(f"the provider's reply holds {len(candidates)} candidates of the {n} asked for")
    texts: list[str | None] = []
    for position, cand in sorted(enumerate(candidates), key=lambda p: _index(p[1], p[0])):
        parts = mapping(mapping(cand).get("content")).get("parts")
        said = texts_of(
            [p.get("text") for p in parts or [] if isinstance(p, dict) and not p.get("thought") and "text" in p]
            if isinstance(parts, list)
            else []
        )
        if said is None:
            reason = mapping(cand).get("finishReason")
            raise EmptyReply(
                f"the provider's candidate {position} holds no text (finishReason {reason!r}): its fault, not "
                "the model's answer"
            )
        texts.append("".join(said))
    usage = mapping(doc.get("usageMetadata"))
    completion = count(usage, "candidatesTokenCount") + count(usage, "thoughtsTokenCount")  # thoughts are billed
    return ChatResult(texts[:n], count(usage, "promptTokenCount"), completion)


def _index(cand: Any, position: int) -> int:
    index = cand.get("index") if isinstance(cand, dict) else None
    return index if isinstance(index, int) else position


def retry_delay(details: Any) -> float | None:
    """The wait a 429's ``google.rpc.RetryInfo`` asks for (``"34s"``, ``"1.5s"``), in seconds; None without one."""
    found = re.search(r'"retryDelay":\s*"([\d.]+)s"', json.dumps(details, default=str))
    return float(found.group(1)) if found else None


def map_error(exc: Exception) -> LLMError:
    """google-genai exceptions -> the LLM error family: 429 RESOURCE_EXHAUSTED per minute is retried after its
    RetryInfo delay, a daily quota is the harness's account (never retried), 5xx are retried, other 4xx of the
    request are the team's; the HTTP library's resets and timeouts are the connection's."""
    from google.genai import errors

    if isinstance(exc, errors.APIError):
        status, message = int(exc.code or 0), f"{exc.status}: {exc.message}"
        if status == 429 and DAILY.search(json.dumps(exc.details, default=str)):
            return AccessDenied(f"429 the account's daily quota is spent (not the team's fault): {message}")
        return status_error(status, message, retry_after=retry_delay(exc.details) if status == 429 else None)
    return client_error(exc, transport_fault(exc))


class GeminiBackend(Provider):
    """generateContent calls, ``n`` choices as one call's ``candidate_count``. With a ``base_url`` (a gateway, the
    tests' loopback fake) the key may be absent (``"not-used"``); otherwise ``GEMINI_API_KEY`` or
    ``GOOGLE_API_KEY``."""

    name = "gemini"
    base_env, key_envs = "GOOGLE_GEMINI_BASE_URL", KEY_ENVS

    def _make(self) -> Any:
        from google import genai
        from google.genai import types

        if not self.api_key:
            raise AccessDenied(f"no {' or '.join(KEY_ENVS)} and no base URL: set one for --pcg-backend gemini")
        options = types.HttpOptions(base_url=self.base_url) if self.base_url else None
        return genai.Client(api_key=self.api_key, vertexai=False, http_options=options)

    def complete(self, messages: list[dict], *, n: int, profile: Profile, timeout: float | None = None) -> ChatResult:
        from google.genai import types

        contents, config = request_parts(messages, profile.request_params(), n)
        millis = max(1, round(wait_for(profile, timeout) * 1000))
        try:
            resp = self._client().models.generate_content(
                model=self.model or profile.model,
                contents=contents,
                config=types.GenerateContentConfig(
                    **config, http_options=types.HttpOptions(timeout=millis), should_return_http_response=True
                ),
            )
            raw = getattr(resp.sdk_http_response, "body", None)
            return reply(json.loads(raw or "null"), n)
        except Exception as exc:  # every client failure becomes one of our typed errors
            raise map_error(exc) from exc
