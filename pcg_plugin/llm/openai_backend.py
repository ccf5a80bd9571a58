"""The official path: the ``openai`` package against OpenAI or any OpenAI-compatible server (vLLM, Ollama ...)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pcg_plugin._util import jsontext
from pcg_plugin._util.jsontext import LONE_SURROGATE
from pcg_plugin.errors import AccessDenied, EmptyReply, LLMError
from pcg_plugin.llm.base import ChatResult
from pcg_plugin.llm.wire import client_error, endpoint, retry_after_seconds, status_error, wait_for

if TYPE_CHECKING:
    from pcg_plugin.llm.profiles import Profile


def map_error(exc: Exception) -> LLMError:
    """openai exceptions -> our LLMError family (``wire.status_error``: 429 is RateLimited, never a 5xx; a 408 is
    a bad request here, as it always was on this path)."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        retry_after = retry_after_seconds(getattr(exc.response, "headers", None))
        return status_error(exc.status_code, exc.message, retry_after=retry_after, timeout_408=False)
    timed_out, unreachable = isinstance(exc, openai.APITimeoutError), isinstance(exc, openai.APIConnectionError)
    return client_error(exc, "timeout" if timed_out else "connection" if unreachable else None)


class OpenAIBackend:
    """Chat completions exactly as the official packages sent them; retries are left to the session (max_retries=0).

    With a ``base_url`` the key is ``"not-used"`` unless one is set (llms4pcg 2.0.x); otherwise ``OPENAI_API_KEY``.
    Each call's timeout is the edition's client timeout (the client's default where it set none), cut to what
    the trial has left (``timeout``, from the session). A ``null`` content is passed on as ``None``: the session
    judges it the provider's fault.
    """

    is_offline_default = False
    accepts_timeout = True

    def __init__(
        self, *, model: str | None = None, base_url: str | None = None, api_key: str | None = None, name: str = "openai"
    ) -> None:
        self.name = name
        self.model = model
        self.base_url, self.api_key = endpoint(base_url, api_key, "OPENAI_BASE_URL", ("OPENAI_API_KEY",))
        self._clients: dict[float | None, Any] = {}

    def _client(self, timeout: float | None) -> Any:
        if timeout not in self._clients:
            import openai

            if not self.api_key:
                raise AccessDenied("no OPENAI_API_KEY and no base URL: set one, or use the offline default")
            kwargs: dict[str, Any] = {"api_key": self.api_key, "max_retries": 0}
            if timeout is not None:  # llms4pcg 2.0.1 passed none, so the client's own default applies
                kwargs["timeout"] = timeout
            if self.base_url:
                kwargs["base_url"] = self.base_url
            self._clients[timeout] = openai.OpenAI(**kwargs)
        return self._clients[timeout]

    def complete(self, messages: list[dict], *, n: int, profile: Profile, timeout: float | None = None) -> ChatResult:
        params = profile.request_params()
        if self.model:
            params["model"] = self.model
        wait = wait_for(profile, timeout)
        client = self._client(profile.client_timeout)
        try:
            if LONE_SURROGATE.search(json.dumps(messages, ensure_ascii=False)):
                resp = _post_escaped(client, {"messages": messages, "n": n, **params}, wait)
            else:
                resp = client.chat.completions.create(messages=messages, n=n, timeout=wait, **params)
        except Exception as exc:  # every client failure becomes one of our typed errors
            raise map_error(exc) from exc
        return chat_result(resp)


def _post_escaped(client: Any, body: dict[str, Any], timeout: float) -> Any:
    """The same request with the JSON written here: a message holding a lone surrogate (a reply that came back
    so, now in the history) goes as its ``\\uXXXX`` escape, which the client's own UTF-8 encoding cannot write."""
    from openai.types.chat import ChatCompletion

    data, opts = jsontext.dumps(body).encode(), {"timeout": timeout, "headers": {"Content-Type": "application/json"}}
    try:
        return client.post("/chat/completions", cast_to=ChatCompletion, content=data, options=opts)
    except TypeError:  # an openai before `content=` takes the raw bytes as `body`
        return client.post("/chat/completions", cast_to=ChatCompletion, body=data, options=opts)


def _position(pair: tuple[int, Any]) -> int:
    index = getattr(pair[1], "index", None)
    return index if isinstance(index, int) else pair[0]


def chat_result(resp: Any) -> ChatResult:
    """The choices' contents in index order (``None`` kept for a ``null`` one) and the usage; a body that is no
    chat completion (a proxy's HTML page, a JSON without choices) is the provider's fault."""
    choices = getattr(resp, "choices", None)
    if not isinstance(choices, list):
        raise EmptyReply(f"the server's reply is not a chat completion: {str(resp)[:200]!r}")
    texts = [
        getattr(getattr(c, "message", None), "content", None) for _, c in sorted(enumerate(choices), key=_position)
    ]
    usage = getattr(resp, "usage", None)
    return ChatResult(
        texts, int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)
    )
