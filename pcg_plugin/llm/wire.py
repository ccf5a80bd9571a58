"""What the provider backends share. All three: the key and base URL, the client timeout, and their failures as
the LLM error family (an HTTP status means the same from every provider). Anthropic and Gemini: an OpenAI-style
chat as their message shapes (the system prompt apart, consecutive turns of one role merged), one SDK client made
once, and the answers of a multi-call ``n`` kept across the session's retry so that a fault on call k does not pay
again for the k-1 answers before it."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pcg_plugin.errors import (
    AccessDenied,
    BadRequest,
    ConnectionFailed,
    EmptyReply,
    LLMError,
    RateLimited,
    ServerError,
    Timeout,
)
from pcg_plugin.llm.base import ChatResult

if TYPE_CHECKING:
    from pcg_plugin.llm.profiles import Profile

# A call's wait where the edition set none: 600 s, the openai client's own (openai>=1, and openai<1's request
# default: the editions' "client default") and the anthropic SDK's (10 minutes); the Gemini SDK sets none.
CLIENT_DEFAULT_TIMEOUT = 600.0
SYSTEM_ROLES = ("system", "developer")  # OpenAI's two names for the instructions above the conversation
ACCESS_STATUSES = (401, 403, 404)  # the harness's key, access or model name: never the team's request


def endpoint(
    base_url: str | None, api_key: str | None, base_env: str, key_envs: tuple[str, ...]
) -> tuple[str | None, str | None]:
    """A provider's (base URL, key): the arguments, else the environment's (``key_envs`` in order). With a base
    URL (a gateway, a local server, the tests' fake) the key may be absent: ``"not-used"``."""
    url = base_url or os.environ.get(base_env) or None
    found = next((os.environ[k] for k in key_envs if os.environ.get(k)), None)
    return url, api_key or found or ("not-used" if url else None)


class Provider:
    """A backend that calls a provider's SDK (Anthropic, Gemini): the model, the base URL and key (``endpoint``, from
    ``base_env`` and ``key_envs``), and one SDK client made on first use (``_make``), then shared by the trials in
    flight: made once, under a lock (a replaced one would close itself under a trial still using it)."""

    name: str
    base_env: str
    key_envs: tuple[str, ...]
    is_offline_default = False
    accepts_timeout = True

    def __init__(self, *, model: str | None = None, base_url: str | None = None, api_key: str | None = None) -> None:
        self.model = model
        self.base_url, self.api_key = endpoint(base_url, api_key, self.base_env, self.key_envs)
        self._client_made: Any = None
        self._making = threading.Lock()

    def _client(self) -> Any:
        with self._making:
            if self._client_made is None:
                self._client_made = self._make()
            return self._client_made

    def _make(self) -> Any:
        raise NotImplementedError


def text_of(content: Any) -> str:
    """A message's content as text: a string as it is, OpenAI content parts as their text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)


@dataclass(frozen=True)
class Turns:
    """A chat as vendors other than OpenAI take it: the system text (None: none given) and the turns, each
    ``(role, text)`` with role ``user`` or ``assistant``, no two neighbours of one role."""

    system: str | None
    turns: tuple[tuple[str, str], ...]


def split_chat(messages: list[dict]) -> Turns:
    """System and developer messages become the system text (joined by a blank line, in order); every other role
    but ``assistant`` speaks as the user; neighbouring turns of one role are joined by a blank line, since both
    APIs want the roles to alternate. A conversation of system messages alone (a game master's opening) has them
    as its one user turn: both APIs refuse a request without a turn, where OpenAI's answers it."""
    system: list[str] = []
    turns: list[tuple[str, str]] = []
    for message in messages:
        role, text = str(message.get("role", "user")), text_of(message.get("content"))
        if role in SYSTEM_ROLES:
            system.append(text)
            continue
        role = "assistant" if role == "assistant" else "user"
        if turns and turns[-1][0] == role:
            turns[-1] = (role, turns[-1][1] + "\n\n" + text)
        else:
            turns.append((role, text))
    if not turns and system:  # both APIs need a turn; OpenAI's answers a conversation of system messages alone
        return Turns(None, (("user", "\n\n".join(system)),))
    return Turns("\n\n".join(system) if system else None, tuple(turns))


def wait_for(profile: Profile, timeout: float | None) -> float:
    """Seconds one call may wait: the edition's client timeout (the client's default where it set none), cut to
    what the trial has left (``timeout``, from the session)."""
    official = profile.client_timeout if profile.client_timeout is not None else CLIENT_DEFAULT_TIMEOUT
    return official if timeout is None else min(official, timeout)


class PaidAhead:
    """The answers of an ``n``-choice request already paid, one call at a time, when a later call failed: the
    session retries the whole request, and the retry asks only for what is missing. One entry per thread (a
    trial in flight is one thread), replaced by its next request, so it never grows."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[int, tuple[str, list[ChatResult]]] = {}

    def collect(self, request: str, n: int, call: Callable[[], ChatResult]) -> ChatResult:
        """``n`` one-choice results of ``call`` as one result (usage summed); those paid before a failure of an
        earlier try of the same ``request`` (a digest) are reused."""
        me = threading.get_ident()
        with self._lock:
            held = self._held.get(me)
            done = list(held[1]) if held is not None and held[0] == request else []
            self._held[me] = (request, done)
        while len(done) < n:
            done.append(call())
            with self._lock:
                self._held[me] = (request, list(done))
        with self._lock:
            self._held.pop(me, None)
        return ChatResult(
            [r.choices[0] if r.choices else None for r in done],
            sum(r.prompt_tokens for r in done),
            sum(r.completion_tokens for r in done),
        )


TIMEOUT_CLASSES = ("TimeoutException", "TimeoutError")
TRANSPORT_CLASSES = ("TransportError", "NetworkError", "ProtocolError", "ConnectionError", "ClientConnectorError")


def transport_fault(exc: BaseException) -> str | None:
    """``"timeout"`` or ``"connection"`` for an HTTP library's own failure (httpx and its successor httpx2 name
    their classes alike, so the names are read, not the classes imported), None for anything else."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & set(TIMEOUT_CLASSES):
        return "timeout"
    if names & set(TRANSPORT_CLASSES):
        return "connection"
    return None


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


def client_error(exc: Exception, kind: str | None) -> LLMError:
    """A failure with no HTTP status as the LLM error family: no answer in time (``kind`` ``"timeout"``, as the
    SDK's classes say), the server out of reach (``"connection"``), a 200 whose body is cut short or not JSON (the
    provider's fault); an LLM error raised on the way is passed on, anything else is a bare LLMError."""
    if isinstance(exc, LLMError):
        return exc
    if kind == "timeout":
        return Timeout(f"no answer within the client timeout: {exc}")
    if kind == "connection":
        return ConnectionFailed(f"cannot reach the model server: {exc}")
    if isinstance(exc, json.JSONDecodeError):
        return EmptyReply(f"the server's reply is not valid JSON: {exc}")
    return LLMError(f"{type(exc).__name__}: {exc}")


def status_error(
    status: int,
    message: str,
    *,
    retry_after: float | None = None,
    access: tuple[int, ...] = ACCESS_STATUSES,
    timeout_408: bool = True,
) -> LLMError:
    """An HTTP error status as the LLM error family, alike for every provider: 429 is RateLimited (retried after
    ``retry_after``, never a 5xx), 408 the server's timeout (``timeout_408``; the OpenAI path has it a bad request),
    5xx the server's, the ``access`` statuses the harness's key, access or model name (AccessDenied), any other 4xx
    the request's (BadRequest, the team's)."""
    if status == 429:
        return RateLimited(f"429 rate limited: {message}", retry_after=retry_after)
    if status == 408 and timeout_408:
        return Timeout(f"408 the server timed out: {message}")
    if status >= 500:
        return ServerError(f"{status} server error: {message}")
    if status in access:
        return AccessDenied(
            f"{status}: the model server refuses the harness (check the key, the access and the model name): {message}"
        )
    return BadRequest(f"{status}: {message}")


def mapping(value: Any) -> dict[str, Any]:
    """``value`` when a reply's field is the JSON object it should be, else an empty one (a reply is read as
    received: any field may be missing or of another type)."""
    return value if isinstance(value, dict) else {}


def count(usage: dict[str, Any], key: str) -> int:
    """A token count of a reply's usage: a whole number above 0, else 0 (never a bool, a string or a negative)."""
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def texts_of(values: list[Any]) -> list[str] | None:
    """``values`` when it is a non-empty list of strings, else None (no text to answer with)."""
    return values if values and all(isinstance(v, str) for v in values) else None
