"""ScriptedBackend: the clearly named test double (canned or computed answers, optional seeded faults)."""

from __future__ import annotations

import importlib
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pcg_plugin.errors import ConnectionFailed, InfrastructureError, LLMError, RateLimited, ServerError, Timeout
from pcg_plugin.llm.base import ChatResult

if TYPE_CHECKING:
    from pcg_plugin.llm.profiles import Profile

FAULT_KINDS = ("429", "500", "timeout", "reset")
Usage = tuple[int, int] | Callable[[list[dict], list[str]], tuple[int, int]]


def approx_usage(messages: list[dict], choices: list[str]) -> tuple[int, int]:
    """Token counts of the size a real model would report (about 4 characters a token, 4 per message), so a
    program's use of the token limit shows against a double as it would against the model."""
    from pcg_plugin.llm.estimate import tokens_in

    prompt = sum(tokens_in(len(str(m.get("content", "")))) for m in messages)
    return prompt, sum(len(c) // 4 + 1 for c in choices)


@dataclass(frozen=True)
class Faults:
    """Fail each call with probability ``rate``, choosing among ``kinds``; seeded so a test is repeatable."""

    rate: float = 0.0
    kinds: tuple[str, ...] = FAULT_KINDS
    seed: int = 0
    retry_after: float | None = 0.0


def make_fault(kind: str, retry_after: float | None = None) -> LLMError:
    if kind == "429":
        return RateLimited("scripted 429 Too Many Requests", retry_after=retry_after)
    if kind == "500":
        return ServerError("scripted 500 Internal Server Error")
    if kind == "timeout":
        return Timeout("scripted client timeout")
    if kind == "reset":
        return ConnectionFailed("scripted connection reset")
    raise ValueError(f"unknown fault kind {kind!r}: expected one of {', '.join(FAULT_KINDS)}")


class ScriptedBackend:
    """Answers with ``responder(messages, n)`` or with the given responses in turn; never calls a real model.

    ``usage`` is the (prompt, completion) tokens reported per call (completion per choice), or a function of
    the messages and choices (``approx_usage``)."""

    name = "scripted"
    is_offline_default = False

    def __init__(
        self,
        responder: Callable[[list[dict], int], list[str]] | Sequence[str],
        *,
        usage: Usage = (10, 20),
        failures: Faults | float | Sequence[str | None] | None = None,
        model: str = "scripted",
    ) -> None:
        self.model = model
        self.usage = usage
        self._responder = responder
        self._lock = threading.Lock()
        self._turn = 0
        self.calls: list[tuple[list[dict], int]] = []
        if isinstance(failures, bool):  # a float to the type checker, and no rate: it used to fail the first call
            raise TypeError("failures: a rate, a Faults or a sequence of fault kinds (None: no faults), not a bool")
        if isinstance(failures, (int, float)):
            failures = Faults(rate=float(failures))  # a bare rate: every fault kind, seed 0
        self._faults: Faults | Sequence[str | None] | None = failures
        self._rng = random.Random(failures.seed) if isinstance(failures, Faults) else None
        self._fault_idx = 0

    def _next_fault(self) -> LLMError | None:
        f = self._faults
        if f is None:
            return None
        if isinstance(f, Faults):
            assert self._rng is not None
            if self._rng.random() < f.rate:
                return make_fault(self._rng.choice(f.kinds), f.retry_after)
            return None
        kind = f[self._fault_idx] if self._fault_idx < len(f) else None
        self._fault_idx += 1
        return make_fault(kind) if kind else None

    def complete(self, messages: list[dict], *, n: int, profile: Profile) -> ChatResult:
        with self._lock:
            fault = self._next_fault()
            if fault is not None:
                raise fault
            self.calls.append(([dict(m) for m in messages], n))
            if callable(self._responder):
                choices = list(self._responder(messages, n))
            else:
                items = list(self._responder)
                if not items:
                    choices = [""] * n
                else:
                    choices = [items[(self._turn + i) % len(items)] for i in range(n)]
                    self._turn += n
        texts: list[str | None] = list(choices)  # as a ChatResult holds them (a real backend may pass a None)
        if callable(self.usage):
            return ChatResult(texts, *self.usage(messages, choices))
        return ChatResult(texts, self.usage[0], self.usage[1] * max(1, n))


def load_callable(spec: str) -> Callable[..., Any]:
    """``package.module:attr`` (``--pcg-backend scripted --pcg-model module:callable``) -> the object; an
    infrastructure error naming the spec otherwise."""
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise InfrastructureError(f"--pcg-backend scripted needs --pcg-model module:callable, got {spec!r}")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise InfrastructureError(f"cannot load the scripted responder {spec!r}: {exc}") from exc
