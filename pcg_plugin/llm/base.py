"""Backend protocol, chat results and the LLM error family every backend raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pcg_plugin.errors import InfrastructureError

if TYPE_CHECKING:
    from pcg_plugin.llm.profiles import Profile


@dataclass(frozen=True)
class ChatResult:
    """The ``n`` choice texts of one chat call and the usage the server reported for it."""

    choices: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0


class LLMError(InfrastructureError):
    """A model call failed; ``transient`` errors are retried, the rest fail the trial's item."""

    transient = False


class RateLimited(LLMError):
    """HTTP 429: back off for ``retry_after`` seconds (when the server says) and try again; not a 5xx."""

    transient = True

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ServerError(LLMError):
    """HTTP 5xx (the official 2023 script retried these)."""

    transient = True


class Timeout(LLMError):
    """The client timeout expired before the server answered."""

    transient = True


class ConnectionFailed(LLMError):
    """No connection (refused, reset, DNS)."""

    transient = True


class BadRequest(LLMError):
    """HTTP 4xx other than 429: retrying cannot help (bad model name, context too long, bad key)."""


@runtime_checkable
class Backend(Protocol):
    """Anything that answers an OpenAI-style chat with ``n`` choices and token usage."""

    name: str

    def complete(self, messages: list[dict], *, n: int, profile: Profile) -> ChatResult: ...
