"""``--pcg-backend anthropic``: Claude through the official ``anthropic`` SDK (Messages API), with the guarantees of
the OpenAI path: the SDK never retries (the session does, in one place), each reply's body is read here as it
came, a reply without text is the provider's fault, and every failure is one of the LLM error family."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from pcg_plugin._util import jsontext
from pcg_plugin._util.jsontext import LONE_SURROGATE
from pcg_plugin.errors import AccessDenied, EmptyReply, LLMError
from pcg_plugin.llm.base import ChatResult
from pcg_plugin.llm.wire import (
    ACCESS_STATUSES,
    PaidAhead,
    Provider,
    client_error,
    count,
    mapping,
    retry_after_seconds,
    split_chat,
    status_error,
    texts_of,
    wait_for,
)

if TYPE_CHECKING:
    from pcg_plugin.llm.profiles import Profile

KEY_ENV = "ANTHROPIC_API_KEY"
# The Messages API requires max_tokens; the official editions sent none (OpenAI's server default: as much as the
# context allows). 8192 is well within what every Claude 4 model may write in one reply (32K to 128K); a problem's
# own cap (clemcore's max_tokens) is sent as it is.
DEFAULT_MAX_TOKENS = 8192
SPEND_LIMIT_CODES = ("enforced_spend_limit_reached",)  # the account's monthly cap: no retry will help
# The SDK 2.x sends anthropic-version 2026-10-21, which refuses temperature, top_p and top_k (400, even at 1.0; the
# SDK's create() has no such parameters): the edition's sampling is not sent, the model's own applies.
NOT_SENT = ("temperature", "top_p", "top_k", "seed")


def request_body(messages: list[dict], params: dict[str, Any], model: str) -> dict[str, Any]:
    """The Messages API body of an OpenAI-style request: the system messages as the top-level ``system``, the
    rest alternating ``user``/``assistant``, ``max_tokens`` always set, ``stop`` as ``stop_sequences``; the
    sampling parameters (``NOT_SENT``) have nowhere to go and are left out."""
    chat = split_chat(messages)
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": int(params.get("max_tokens") or DEFAULT_MAX_TOKENS),
        "messages": [{"role": role, "content": text} for role, text in chat.turns],
    }
    if chat.system is not None:
        body["system"] = chat.system
    stop = params.get("stop")
    if stop:
        body["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    return body


def reply(doc: Any) -> ChatResult:
    """One Messages API reply (its JSON, as received) as a one-choice result: the text blocks joined; a reply with
    no text block (a refusal, an empty ``content``, a body that is no message) is the provider's fault."""
    if not isinstance(doc, dict) or not isinstance(doc.get("content"), list):
        raise EmptyReply(f"the server's reply is not a Messages API message: {str(doc)[:200]!r}")
    texts = texts_of([b.get("text") for b in doc["content"] if isinstance(b, dict) and b.get("type") == "text"])
    if texts is None:
        raise EmptyReply(
            f"the provider's reply holds no text (stop_reason {doc.get('stop_reason')!r}): its fault, not the "
            "model's answer"
        )
    usage = mapping(doc.get("usage"))
    prompt = sum(count(usage, k) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    return ChatResult(["".join(texts)], prompt, count(usage, "output_tokens"))


def map_error(exc: Exception) -> LLMError:
    """anthropic exceptions -> the LLM error family: 429 rate limits and 529 overloads are retried (with the
    server's Retry-After), a spend limit is the harness's account (never retried, never the team's answer), other
    4xx of the request are the team's."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        status, code, message = exc.status_code, getattr(exc, "error_code", None), str(exc)
        if code in SPEND_LIMIT_CODES or (status == 400 and "spend limit" in message.lower()):
            return AccessDenied(f"{status}: the account's spend limit is reached (not the team's fault): {message}")
        retry_after = retry_after_seconds(getattr(exc.response, "headers", None))
        return status_error(status, message, retry_after=retry_after, access=(*ACCESS_STATUSES, 402))
    timed_out, unreachable = isinstance(exc, anthropic.APITimeoutError), isinstance(exc, anthropic.APIConnectionError)
    return client_error(exc, "timeout" if timed_out else "connection" if unreachable else None)


class AnthropicBackend(Provider):
    """Messages API calls; ``n`` choices are ``n`` calls (the API has no ``n``). With a ``base_url`` (a gateway, the
    tests' loopback fake) the key may be absent (``"not-used"``); otherwise ``ANTHROPIC_API_KEY``."""

    name = "anthropic"
    base_env, key_envs = "ANTHROPIC_BASE_URL", (KEY_ENV,)

    def __init__(self, *, model: str | None = None, base_url: str | None = None, api_key: str | None = None) -> None:
        super().__init__(model=model, base_url=base_url, api_key=api_key)
        self._ahead = PaidAhead()

    def _make(self) -> Any:
        import anthropic

        if not self.api_key:
            raise AccessDenied(f"no {KEY_ENV} and no base URL: set one for --pcg-backend anthropic")
        kwargs: dict[str, Any] = {"api_key": self.api_key, "max_retries": 0}
        if self.base_url:
            kwargs["base_url"] = self.base_url
        return anthropic.Anthropic(**kwargs)

    def complete(self, messages: list[dict], *, n: int, profile: Profile, timeout: float | None = None) -> ChatResult:
        body = request_body(messages, profile.request_params(), self.model or profile.model)
        wait = wait_for(profile, timeout)
        digest = hashlib.sha256(json.dumps([body, n], sort_keys=True, default=str).encode()).hexdigest()
        return self._ahead.collect(digest, n, lambda: self._once(body, wait))

    def _once(self, body: dict[str, Any], wait: float) -> ChatResult:
        try:
            if LONE_SURROGATE.search(json.dumps(body, ensure_ascii=False)):
                return reply(json.loads(_post_escaped(self._client(), body, wait)))
            raw = self._client().messages.with_raw_response.create(**body, timeout=wait)
            return reply(json.loads(raw.text()))
        except Exception as exc:  # every client failure becomes one of our typed errors
            raise map_error(exc) from exc


def _post_escaped(client: Any, body: dict[str, Any], timeout: float) -> str:
    """The same request with the JSON written here: a message holding a lone surrogate (a reply that came back so,
    now in the history) goes as its ``\\uXXXX`` escape, which the SDK's own UTF-8 encoding cannot write."""
    import httpx2

    options = {"timeout": timeout, "headers": {"Content-Type": "application/json"}}
    response = client.post(
        "/v1/messages", cast_to=httpx2.Response, content=jsontext.dumps(body).encode(), options=options
    )
    return str(response.text)
