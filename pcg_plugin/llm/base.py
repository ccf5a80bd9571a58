"""Backend protocol and chat results; the LLM error family every backend raises lives in ``errors``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from pcg_plugin.llm.profiles import Profile


@dataclass(frozen=True)
class ChatResult:
    """The ``n`` choice texts of one chat call and the usage the server reported for it (a backend passes on a
    ``null`` content as ``None``; the session refuses it as the provider's fault)."""

    choices: list[str | None] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0


@runtime_checkable
class Backend(Protocol):
    """Anything that answers an OpenAI-style chat with ``n`` choices and token usage."""

    name: str

    def complete(self, messages: list[dict], *, n: int, profile: Profile) -> ChatResult: ...
