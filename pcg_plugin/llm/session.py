"""The per-trial chat entry point participant programs reach: official guards, ordered replay, durable recording."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

from pcg_plugin.core import calls
from pcg_plugin.errors import BadRequest, InfrastructureError, OfficialFailure, Reason, ReplayMiss
from pcg_plugin.llm.base import Backend, ChatResult
from pcg_plugin.llm.guards import TrialGuard
from pcg_plugin.llm.profiles import Profile
from pcg_plugin.llm.retry import RetryPolicy, call_with_retry
from pcg_plugin.llm.store import RECORD_MODES, RecordedCall, ResponseStore, TrialKey, request_hash


class TrialChat:
    """One trial's ``chat(messages, n)``: replays the trial's recorded calls in order, pays only for the rest.

    Modes (VCR style): ``once`` replays a finished trial strictly and resumes an unfinished one; ``new`` replays
    what matches and records past a divergence; ``all`` forgets the recording and pays again; ``none`` never
    calls a model (a missing or different call is a ReplayMiss).
    """

    def __init__(self, key: TrialKey, *, backend: Backend, profile: Profile, store: ResponseStore,
                 mode: str = "once", limiter: Any = None, retry: RetryPolicy | None = None,
                 clock: Callable[[], float] = time.perf_counter,
                 sleep: Callable[[float], None] = time.sleep) -> None:  # fmt: skip
        if mode not in RECORD_MODES:
            raise ValueError(f"record mode {mode!r} is not one of {', '.join(RECORD_MODES)}")
        self.key, self.backend, self.profile, self.store, self.mode = key, backend, profile, store, mode
        if limiter is None:  # PCG_RPM/PCG_TPM/PCG_CONCURRENCY: one limit beside the store for all workers
            limiter = _env_limiter(store.path.parent)
        self.limiter, self.retry, self._sleep, self._clock = limiter, retry or RetryPolicy(), sleep, clock
        self.guard = TrialGuard(profile.max_time, profile.token_limit, clock)
        self.usage: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0, "replayed": 0,
                                      "paid": 0, "retries": 0}  # fmt: skip
        self._owner: str | None = None
        if mode == "none":
            record = store.load(key)
        else:
            self._owner = store.claim(key, reset=(mode == "all"))
            record = store.load(key)
        self._recorded = list(record.calls) if record else []
        self._had_record = record is not None
        self._finished_before = record is not None and record.status in ("complete", "failed")
        self._idx = 0
        self._truncate = False

    # -- the participant-facing call --------------------------------------------------------------------------
    def chat(self, messages: list[dict], n: int = 1) -> list[str]:
        """``chat_with_chatgpt``/``chat_with_llm`` semantics: the ``content`` of each of the ``n`` choices."""
        try:
            self.guard.check_time()
            request = {**self.profile.request_params(), "n": int(n), "messages": messages}
            digest = request_hash(request)
            replayed = self._replay(digest, request)
            if replayed is not None:
                self._note(replayed, paid=False, retries=0)
                return self._account(replayed.choices, replayed.prompt_tokens, replayed.completion_tokens, False)
            retries_before = self.usage["retries"]
            result, started, duration = self._pay(messages, int(n))
            call = RecordedCall(self._idx, digest, request, list(result.choices), int(result.prompt_tokens),
                                int(result.completion_tokens), started, duration)  # fmt: skip
            if self._owner is None:  # released after an infrastructure error the program chose to survive
                self._owner = self.store.claim(self.key)
            self.store.record_call(self.key, self._owner, call, truncate=self._truncate)
            self._truncate = False
            self._note(call, paid=True, retries=self.usage["retries"] - retries_before)
            return self._account(call.choices, call.prompt_tokens, call.completion_tokens, True)
        except OfficialFailure as failure:
            self._fail(failure.reason)
            raise
        except InfrastructureError:
            self.close()  # the item errors; whoever reruns it resumes from what was recorded
            raise

    def _note(self, call: RecordedCall, *, paid: bool, retries: int) -> None:
        """The call, as stored, into the running trial's log (its transcript, the progress line)."""
        from pcg_plugin.llm.estimate import usage_cost

        model = self.key.model or str(call.request.get("model") or "")  # the model that really answered
        cost = usage_cost(model, call.prompt_tokens, call.completion_tokens) if paid else 0.0
        choices = [str(c) for c in call.choices]
        calls.note(calls.Call(list(call.request.get("messages", [])), choices[0] if choices else "",
                              call.prompt_tokens, call.completion_tokens, round(call.duration, 3), not paid,
                              retries, model, choices if int(call.request.get("n", 1)) > 1 else None, cost,
                              self.key.id, call.idx))  # fmt: skip

    def _replay(self, digest: str, request: dict[str, Any]) -> RecordedCall | None:
        """The recorded call at this position when it matches; raise or drop the tail when it does not."""
        where = f"{self.key.submission}/{self.key.letter}/trial {self.key.trial}, call {self._idx + 1}"
        if self._idx < len(self._recorded):
            rec = self._recorded[self._idx]
            if rec.request_hash == digest:
                self.guard.credited += rec.duration
                return rec
            if self.mode == "none" or (self.mode == "once" and self._finished_before):
                raise ReplayMiss(
                    f"{where}: the request differs from the recording (recorded {rec.request_hash[:12]}, now "
                    f"{digest[:12]}; last recorded user message {_last_user(rec.request)!r:.80}); "
                    "use --pcg-record new to record past the divergence"
                )
            self._recorded = self._recorded[: self._idx]
            self._truncate = True
            return None
        if self.mode == "none":
            what = "no recording of this trial" if not self._had_record else "the recording has no such call"
            raise ReplayMiss(f"{where}: {what} in {self.store.path} and --pcg-record none never calls a model")
        if self.mode == "once" and self._finished_before:
            raise ReplayMiss(f"{where}: the finished recording has no such call; use --pcg-record new to add it")
        return None

    def _pay(self, messages: list[dict], n: int) -> tuple[ChatResult, float, float]:
        started, t0 = self.guard.elapsed, self._clock()
        extra: dict[str, Any] = {}
        if getattr(self.backend, "accepts_seed", False):
            extra["seed"] = call_seed(self.key, self._idx)

        def once() -> ChatResult:
            slot = self.limiter.acquire(self._estimate(messages, n)) if self.limiter is not None else None
            used = 0
            try:
                result = self.backend.complete(messages, n=n, profile=self.profile, **extra)
                used = int(result.prompt_tokens) + int(result.completion_tokens)
                return result
            finally:
                if slot is not None:
                    self.limiter.release(slot, used)

        def on_retry(error: Exception, wait: float) -> None:
            self.usage["retries"] += 1
            retry_after = getattr(error, "retry_after", None)
            if self.limiter is not None and retry_after:
                self.limiter.pause(float(retry_after))  # every worker waits, not only this one

        def out_of_time(wait: float) -> bool:
            return self.guard.elapsed + wait > self.profile.max_time

        try:
            result = call_with_retry(once, self.retry, sleep=self._sleep, deadline=out_of_time, on_retry=on_retry)
        except BadRequest as exc:
            # The participant's request itself is refused (e.g. context too long): per the rules a trial error
            # is an empty response, so the trial fails and scores 0 rather than erroring the run.
            raise OfficialFailure(f"the model refused the request: {exc}", reason=Reason.LLM_BAD_REQUEST) from exc
        return result, started, self._clock() - t0

    def _estimate(self, messages: list[dict], n: int) -> int:
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        return chars // 4 + 256 * n

    def _account(self, choices: list[str], prompt: int, completion: int, paid: bool) -> list[str]:
        self._idx += 1
        self.usage["calls"] += 1
        self.usage["paid" if paid else "replayed"] += 1
        self.usage["prompt_tokens"] += prompt
        self.usage["completion_tokens"] += completion
        self.guard.add_usage(prompt, completion)  # raises token_limit after the response is safely stored
        return list(choices)

    # -- end of trial -----------------------------------------------------------------------------------------
    def finish(self, final_response: str) -> None:
        """The trial succeeded: mark it complete so ``once`` reuses it, and release it."""
        if self.mode != "none":
            self.store.finish(self.key, self._owner, status="complete", final_response=final_response)

    def _fail(self, reason: str) -> None:
        if self.mode != "none":
            self.store.finish(self.key, self._owner, status="failed", reason=reason)

    def close(self) -> None:
        """Release an unfinished trial (an error outside the guards) so another process may resume it."""
        if self._owner is not None:
            self.store.release(self.key, self._owner)
            self._owner = None


_LIMITERS: dict[str, Any] = {}


def _env_limiter(folder: Any) -> Any:
    if str(folder) not in _LIMITERS:
        from pcg_plugin.llm.ratelimit import SharedLimiter

        _LIMITERS[str(folder)] = SharedLimiter.from_env(folder)
    return _LIMITERS[str(folder)]


def call_seed(key: TrialKey, idx: int) -> int:
    """A deterministic per-call sampling seed for local models, derived from the trial's identity."""
    return int.from_bytes(hashlib.sha256(f"{key.id}:{idx}".encode()).digest()[:4], "big")


def _last_user(request: dict[str, Any]) -> str:
    users = [m.get("content", "") for m in request.get("messages", []) if m.get("role") == "user"]
    return str(users[-1]) if users else ""


def prompt_messages(prompt_text: str, letter: str) -> list[dict]:
    """2023 response-gathering script: every ``<OBJECT>`` becomes the letter in double quotes; one user message."""
    return [{"role": "user", "content": prompt_text.replace("<OBJECT>", f'"{letter}"')}]


def generate_prompt_trial(key: TrialKey, prompt_text: str, letter: str, *, backend: Backend, profile: Profile,
                          store: ResponseStore, mode: str = "once", limiter: Any = None) -> str:  # fmt: skip
    """One 2023 trial: the first choice's text (an empty response is kept, as the official script wrote it)."""
    chat = TrialChat(key, backend=backend, profile=profile, store=store, mode=mode, limiter=limiter)
    choices = chat.chat(prompt_messages(prompt_text, letter), 1)
    response = choices[0] if choices else ""
    chat.finish(response)
    return response
