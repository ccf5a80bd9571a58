"""The official path: the ``openai`` package against OpenAI or any OpenAI-compatible server (vLLM, Ollama ...)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from pcg_plugin.errors import BadRequest, ConnectionFailed, LLMError, RateLimited, ServerError, Timeout
from pcg_plugin.llm.base import ChatResult

if TYPE_CHECKING:
    from pcg_plugin.llm.profiles import Profile

_UNSET = object()


def retry_after_seconds(headers: Any) -> float | None:
    """``Retry-After`` (seconds) or OpenAI's ``retry-after-ms``; an HTTP date or garbage gives None."""
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            continue
    return None


def map_error(exc: Exception) -> LLMError:
    """openai exceptions -> our LLMError family (429 is RateLimited, never a 5xx)."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return Timeout(f"no answer within the client timeout: {exc}")
    if isinstance(exc, openai.APIConnectionError):
        return ConnectionFailed(f"cannot reach the model server: {exc}")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status == 429:
            return RateLimited(f"429 rate limited: {exc.message}",
                               retry_after=retry_after_seconds(getattr(exc.response, "headers", None)))  # fmt: skip
        if status >= 500:
            return ServerError(f"{status} server error: {exc.message}")
        return BadRequest(f"{status}: {exc.message}")
    return LLMError(f"{type(exc).__name__}: {exc}")


class OpenAIBackend:
    """Chat completions exactly as the official packages sent them; retries are left to the session (max_retries=0).

    With a ``base_url`` the key is ``"not-used"`` unless one is set (llms4pcg 2.0.x); otherwise ``OPENAI_API_KEY``.
    """

    is_offline_default = False

    def __init__(self, *, model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                 name: str = "openai") -> None:  # fmt: skip
        self.name = name
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or ("not-used" if self.base_url else None)
        self._clients: dict[float | None, Any] = {}

    def _client(self, timeout: float | None) -> Any:
        if timeout not in self._clients:
            import openai

            if not self.api_key:
                raise BadRequest("no OPENAI_API_KEY and no base URL: set one, or use the offline default")
            kwargs: dict[str, Any] = {"api_key": self.api_key, "max_retries": 0}
            if timeout is not None:  # llms4pcg 2.0.1 passed none, so the client's own default applies
                kwargs["timeout"] = timeout
            if self.base_url:
                kwargs["base_url"] = self.base_url
            self._clients[timeout] = openai.OpenAI(**kwargs)
        return self._clients[timeout]

    def complete(self, messages: list[dict], *, n: int, profile: Profile) -> ChatResult:
        params = profile.request_params()
        if self.model:
            params["model"] = self.model
        try:
            resp = self._client(profile.client_timeout).chat.completions.create(messages=messages, n=n, **params)
        except Exception as exc:  # noqa: BLE001 - every client failure becomes one of our typed errors
            raise map_error(exc) from exc
        choices = [(c.message.content or "") for c in sorted(resp.choices, key=lambda c: c.index)]
        usage = resp.usage
        return ChatResult(choices, int(getattr(usage, "prompt_tokens", 0) or 0),
                          int(getattr(usage, "completion_tokens", 0) or 0))  # fmt: skip
