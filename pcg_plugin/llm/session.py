"""The per-trial chat entry point participant programs reach: official guards, ordered replay, durable recording."""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections.abc import Callable
from typing import Any

from pcg_plugin.core.records import calls
from pcg_plugin.core.session.inflight import slots as cpu
from pcg_plugin.errors import (
    BadRequest,
    DeadlineExceeded,
    EmptyReply,
    InfrastructureError,
    LLMError,
    OfficialFailure,
    Reason,
    RecordingDiverged,
    ReplayMiss,
    StoreWriteFailed,
)
from pcg_plugin.llm import budget as spending
from pcg_plugin.llm.base import Backend, ChatResult
from pcg_plugin.llm.guards import TrialGuard
from pcg_plugin.llm.profiles import Profile, trial_deadline
from pcg_plugin.llm.retry import RetryPolicy, call_with_retry, cause
from pcg_plugin.llm.store import RECORD_MODES, RecordedCall, ResponseStore, TrialKey, TrialRecord, request_hash


class TrialChat:
    """One trial's ``chat(messages, n)``: replays the trial's recorded calls in order, pays only for the rest.

    Modes (VCR style): ``once`` reuses a finished trial as recorded and resumes an unfinished one (a program that
    asks something else than its recording is recorded past the divergence, with a RecordingDiverged warning);
    ``new`` replays what matches and records past a divergence; ``all`` forgets the recording and pays again;
    ``none`` never calls a model (a missing or different call is a ReplayMiss).

    Every wait on the model server is cut to the trial's deadline (``trial_deadline``); a reply without an
    answer (no choices, ``null`` content) is the provider's fault, retried and never stored.
    """

    def __init__(
        self,
        key: TrialKey,
        *,
        backend: Backend,
        profile: Profile,
        store: ResponseStore,
        mode: str = "once",
        limiter: Any = None,
        retry: RetryPolicy | None = None,
        clock: Callable[[], float] = cpu.trial_clock,
        sleep: Callable[[float], None] = time.sleep,
        deadline: float | None = None,
        budget: Any = None,
    ) -> None:
        if mode not in RECORD_MODES:
            raise ValueError(f"record mode {mode!r} is not one of {', '.join(RECORD_MODES)}")
        self.key, self.backend, self.profile, self.store, self.mode = key, backend, profile, store, mode
        if limiter is None:  # PCG_RPM/PCG_TPM/PCG_CONCURRENCY: one limit per endpoint beside the store, all workers
            limiter = endpoint_limiter(store.path.parent, profile.base_url, profile.model)
        self.limiter, self.retry, self._sleep, self._clock = limiter, retry or RetryPolicy(), sleep, clock
        self.budget = budget if budget is not None else spending.current()  # --pcg-max-cost: the run's ledger
        self.deadline = trial_deadline(profile) if deadline is None else float(deadline)
        self._began = clock()  # the deadline counts this run's time only: a resumed trial replays for free
        self.guard = TrialGuard(profile.max_time, profile.token_limit, clock)
        self.usage: dict[str, int] = {
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "calls": 0,
            "replayed": 0,
            "paid": 0,
            "retries": 0,
        }
        self._owner: str | None = None
        if mode == "none":
            record = store.load(key)
        else:
            self._owner = store.claim(key, reset=(mode == "all"))
            record = store.load(key)
        self._record: TrialRecord | None = record
        self._recorded = list(record.calls) if record else []
        self._had_record = record is not None
        self._finished_before = record is not None and record.status in ("complete", "failed")
        self._idx = 0
        self._truncate = False
        self._program_failed = False
        self._program_ran = False  # the program ran in this run (not reused): its calls may differ from the recording
        self.reused_answers: list[str] = []  # every choice of the recorded calls of a program reused as recorded

    @property
    def where(self) -> str:
        return f"{self.key.submission}/{self.key.letter}/trial {self.key.trial}"

    def time_left(self) -> float:
        """Seconds left of the trial's deadline in this run."""
        return self.deadline - (self._clock() - self._began)

    # -- the participant-facing call --------------------------------------------------------------------------
    def chat(self, messages: list[dict], n: int = 1) -> list[str]:
        """``chat_with_chatgpt``/``chat_with_llm`` semantics: the ``content`` of each of the ``n`` choices."""
        try:
            self.guard.check_time()
            request = {**self.profile.request_params(), "n": int(n), "messages": messages}
            digest = request_hash(request)
            replayed = self._replay(digest, request)
            if replayed is not None:
                if replayed.error is not None:  # the server refused this request when it was recorded
                    self._account([], 0, 0, False)
                    raise OfficialFailure(
                        replayed.error.get("message", ""), reason=replayed.error.get("reason", Reason.LLM_BAD_REQUEST)
                    )
                self._note(replayed, paid=False, retries=0)
                return self._account(replayed.choices, replayed.prompt_tokens, replayed.completion_tokens, False)
            # a call sent is paid for: Ctrl-C in this thread waits until its answer is stored (calls.committing;
            # a second Ctrl-C stops at once)
            with calls.committing():
                started = self.guard.elapsed
                retries_before = self.usage["retries"]
                try:
                    result, started, duration = self._pay(messages, int(n))
                except OfficialFailure as refused:  # stored too: a replay is refused the same way, never asks again
                    self._store(
                        RecordedCall(
                            self._idx,
                            digest,
                            request,
                            [],
                            0,
                            0,
                            started,
                            self.guard.elapsed - started,
                            error={"reason": str(refused.reason), "message": refused.message},
                        )
                    )
                    self._account([], 0, 0, True)
                    raise
                call = RecordedCall(
                    self._idx,
                    digest,
                    request,
                    _texts(result),
                    int(result.prompt_tokens),
                    int(result.completion_tokens),
                    started,
                    duration,
                )
                self._store(call)
            self._note(call, paid=True, retries=self.usage["retries"] - retries_before)
            return self._account(call.choices, call.prompt_tokens, call.completion_tokens, True)
        except OfficialFailure as failure:
            self._fail(failure)
            raise
        except InfrastructureError:
            self.close()  # the item errors; whoever reruns it resumes from what was recorded
            raise

    def _store(self, call: RecordedCall) -> None:
        """Commit a paid call before anything uses it (a failed write raises StoreWriteFailed: the run stops)."""
        if self._owner is None:  # released after an infrastructure error the program chose to survive
            self._owner = self.store.claim(self.key)
        with calls.committing():  # written and counted as one: what an interrupted run says it kept
            self.store.record_call(self.key, self._owner, call, truncate=self._truncate)
            self._truncate = False
            calls.stored(1)

    def run_program(self, run: Callable[[], str], *, final_is_result: bool = False) -> str:
        """The participant program's result (its final response, or an episode's opening prompt).

        A trial finished before is reused as recorded (``once``, ``none``): the program is not run again (an
        unseeded program would ask something else), its calls count as replayed, and a recorded failure is
        raised again. Otherwise ``run()`` runs the program (its calls replayed, then paid) and what it returns is
        stored before it is used. ``final_is_result``: the trial's final response is the program's result (a
        store written before results were stored separately)."""
        reused = self._reuse(final_is_result)
        if reused is not None:
            return reused
        self._program_ran = True
        try:
            result = run()
        except OfficialFailure as failure:  # the trial is finished: a rerun raises this again, runs nothing
            self._program_failed = True
            self._fail(failure)
            raise
        if self.mode != "none" and not self.store.broken:
            if self._owner is None:
                self._owner = self.store.claim(self.key)
            self.store.record_program(self.key, self._owner, result, self._idx)
        return result

    def _reuse(self, final_is_result: bool) -> str | None:
        rec = self._record
        if rec is None or self.mode not in ("once", "none") or self._idx:
            return None
        result, calls = rec.program_result, rec.program_calls
        if result is None and final_is_result and rec.status == "complete" and rec.final_response is not None:
            result, calls = rec.final_response, len(rec.calls)
        if rec.status == "failed" and rec.program_result is None:  # the program failed (else a later call did)
            self._program_failed = True
            for call in self._recorded:
                self._account(call.choices, call.prompt_tokens, call.completion_tokens, False, check=False)
            raise OfficialFailure(
                rec.message or f"recorded as failed ({rec.reason})", reason=rec.reason or Reason.OFFICIAL_FAILURE
            )
        if result is None or calls is None or calls > len(self._recorded):
            return None
        for call in self._recorded[:calls]:
            self.guard.credited += call.duration
            self._note(call, paid=False, retries=0)
            self.reused_answers += self._account(call.choices, call.prompt_tokens, call.completion_tokens, False)
        return result

    def _note(self, call: RecordedCall, *, paid: bool, retries: int) -> None:
        """The call, as stored, into the running trial's log (its transcript, the progress line)."""
        from pcg_plugin.llm.estimate import usage_cost

        model = self.key.model or str(call.request.get("model") or "")  # the model that really answered
        cost = usage_cost(model, call.prompt_tokens, call.completion_tokens) if paid else 0.0
        choices = [str(c) for c in call.choices]
        calls.note(
            calls.Call(
                list(call.request.get("messages", [])),
                choices[0] if choices else "",
                call.prompt_tokens,
                call.completion_tokens,
                round(call.duration, 3),
                not paid,
                retries,
                model,
                choices if int(call.request.get("n", 1)) > 1 else None,
                cost,
                self.key.id,
                call.idx,
            )
        )

    def _replay(self, digest: str, request: dict[str, Any]) -> RecordedCall | None:
        """The recorded call at this position when it matches; raise or drop the tail when it does not."""
        where = f"{self.where}, call {self._idx + 1}"
        if self._idx < len(self._recorded):
            rec = self._recorded[self._idx]
            if rec.request_hash == digest:
                self.guard.credited += rec.duration
                return rec
            if self.mode == "none" or (self.mode == "once" and self._strict()):
                raise ReplayMiss(
                    f"{where}: the request differs from the recording (recorded {rec.request_hash[:12]}, now "
                    f"{digest[:12]}; last recorded user message {_last_user(rec.request)!r:.80}); "
                    "use --pcg-record new to record past the divergence"
                )
            if self.mode == "once":
                calls.warn(
                    RecordingDiverged(
                        f"{where}: the program asked something else than the unfinished recording (recorded "
                        f"{rec.request_hash[:12]}, now {digest[:12]}; an unseeded program?); "
                        f"{len(self._recorded) - self._idx} recorded call(s) from here on are dropped and this call "
                        "and the rest are recorded anew"
                    ),
                    stacklevel=3,
                )
            self._recorded = self._recorded[: self._idx]
            self._truncate = True
            return None
        if self.mode == "none":
            what = "no recording of this trial" if not self._had_record else "the recording has no such call"
            raise ReplayMiss(f"{where}: {what} in {self.store.path} and --pcg-record none never calls a model")
        if self.mode == "once" and self._strict():
            rec_status = self._record.status if self._record is not None else None
            if rec_status == "failed" and self._record is not None:  # the failing call was never stored
                raise OfficialFailure(
                    self._record.message or f"recorded as failed ({self._record.reason})",
                    reason=self._record.reason or Reason.OFFICIAL_FAILURE,
                )
            raise ReplayMiss(f"{where}: the finished recording has no such call; use --pcg-record new to add it")
        return None

    def _strict(self) -> bool:
        """A finished recording is replayed strictly (a different call is a ReplayMiss), unless the program ran
        again because the store holds no result of it (a store written before results were stored): that program
        may ask something else, and is recorded past the divergence like an unfinished trial."""
        return self._finished_before and not self._program_ran

    def _pay(self, messages: list[dict], n: int) -> tuple[ChatResult, float, float]:
        if self.store.broken:  # a reply paid now could not be stored: pay for nothing more
            raise StoreWriteFailed(self.store.broken)
        started, t0 = self.guard.elapsed, self._clock()
        extra: dict[str, Any] = {}
        if getattr(self.backend, "accepts_seed", False):
            extra["seed"] = call_seed(self.key, self._idx)
        timed = getattr(self.backend, "accepts_timeout", False)  # a server to wait on: its waits are cut

        def once() -> ChatResult:
            cpu.check(self.where)  # Ctrl-C: the calls already sent are answered, no new one starts
            held = self._hold(messages, n)  # the cap: its worst case reserved before it is sent
            cost: float | None = 0.0
            slot = None
            if self.limiter is not None:
                with cpu.waiting("cap"):  # a rate limit's wait is no work of this process
                    slot = self.limiter.acquire(self._estimate(messages, n), within=self._left("a rate-limit slot"))
            used = 0
            try:
                kwargs = {**extra, "timeout": self._left("an answer")} if timed else extra
                with cpu.waiting() if timed else contextlib.nullcontext():  # a server's answer is awaited, not computed
                    result = self.backend.complete(messages, n=n, profile=self.profile, **kwargs)
                used = int(result.prompt_tokens) + int(result.completion_tokens)
                cost = self._cost(result)
                fault = provider_fault(result)
                if fault is not None:
                    raise EmptyReply(f"the provider's reply holds {fault}: its fault, not the model's answer")
                return result
            finally:
                if slot is not None:
                    self.limiter.release(slot, used)
                if held is not None and self.budget is not None:  # a failed try reports no usage: charged 0
                    self.budget.settle(held, cost)

        def pause(seconds: float) -> None:
            with cpu.waiting("cap"):
                self._sleep(seconds)

        def on_retry(error: LLMError, wait: float) -> None:
            self.usage["retries"] += 1
            calls.waited(cause(error), wait)  # the run counts its retries by cause (summary, report)
            retry_after = getattr(error, "retry_after", None)
            if self.limiter is not None and retry_after:
                self.limiter.pause(float(retry_after))  # every worker waits, not only this one

        def out_of_time(error: LLMError, wait: float) -> bool:
            """A wait past the trial's deadline, or past its official time limit (the server's fault, not the
            team's: no zero), ends the call now as an infrastructure error."""
            left, limit = self.time_left(), f"its {self.deadline:g} s deadline"
            official = self.profile.max_time - self.guard.elapsed
            if official < left:
                left, limit = official, f"its official time limit of {self.profile.max_time:g} s"
            if wait >= left:
                raise DeadlineExceeded(
                    f"{self.where}: {error}; the next try would wait {wait:.1f} s and the trial "
                    f"has {max(left, 0.0):.1f} s left before {limit}: the item errors (rerun it "
                    "with --lf), nothing is stored"
                ) from error
            return False

        try:
            result = call_with_retry(once, self.retry, sleep=pause, deadline=out_of_time, on_retry=on_retry)
        except BadRequest as exc:
            # The participant's request itself is refused (e.g. context too long): per the rules a trial error
            # is an empty response, so the trial fails and scores 0 rather than erroring the run.
            raise OfficialFailure(f"the model refused the request: {exc}", reason=Reason.LLM_BAD_REQUEST) from exc
        return result, started, self._clock() - t0

    def _model(self) -> str:
        return self.key.model or self.profile.model

    def _cost(self, result: ChatResult) -> float | None:
        from pcg_plugin.llm.estimate import usage_cost

        return usage_cost(self._model(), int(result.prompt_tokens), int(result.completion_tokens))

    def _hold(self, messages: list[dict], n: int) -> str | None:
        """Under a spending cap: the call's worst case reserved in the run's ledger (waiting while only calls in
        flight hold the room it needs), or ``CostCapReached``: the call is not sent. None: no cap, or an in-process
        model without a price (it costs nothing)."""
        if self.budget is None:
            return None
        from pcg_plugin.llm.estimate import require_price

        price = require_price(self._model(), paid=getattr(self.backend, "name", "") not in spending.FREE_BACKENDS)
        if price is None:
            return None
        request = {**self.profile.request_params(), "n": n}
        worst = spending.worst_case(price, messages, request, n)
        with cpu.waiting("cap"):  # waiting for calls in flight to settle is no work of this process
            return str(self.budget.hold(worst, self.where, self.time_left))

    def _left(self, what: str) -> float:
        """Seconds left for waiting on ``what``; none left is DeadlineExceeded (before anything is paid)."""
        left = self.time_left()
        if left <= 0:
            raise DeadlineExceeded(
                f"{self.where}: no time left to wait for {what}: the trial used its "
                f"{self.deadline:g} s deadline: the item errors (rerun it with --lf)"
            )
        return left

    def _estimate(self, messages: list[dict], n: int) -> int:
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        return chars // 4 + 256 * n

    def _account(self, choices: list[str], prompt: int, completion: int, paid: bool, check: bool = True) -> list[str]:
        self._idx += 1
        self.usage["calls"] += 1
        self.usage["paid" if paid else "replayed"] += 1
        self.usage["prompt_tokens"] += prompt
        self.usage["completion_tokens"] += completion
        if check:
            self.guard.add_usage(prompt, completion)  # raises token_limit after the response is safely stored
        return list(choices)

    # -- end of trial -----------------------------------------------------------------------------------------
    def finish(self, final_response: str) -> None:
        """The trial ended: mark it complete so ``once`` reuses it, and release it (a program that failed keeps
        the trial failed, with its reason and message, whatever the caller makes of the failure)."""
        rec = self._record
        if self._program_failed:
            self.close()
        elif (
            self._finished_before
            and rec is not None
            and rec.status == "complete"
            and rec.final_response == final_response
            and self._idx == len(self._recorded)
        ):
            self.close()  # replayed as it was: nothing to write again (a huge final response would be)
        elif self.mode != "none":
            self.store.finish(self.key, self._owner, status="complete", final_response=final_response)

    def _fail(self, failure: OfficialFailure) -> None:
        if self.mode != "none" and not self.store.broken:
            self.store.finish(
                self.key, self._owner, status="failed", reason=str(failure.reason), message=failure.message
            )

    def close(self) -> None:
        """Release an unfinished trial (an error outside the guards) so another process may resume it."""
        if self._owner is not None:
            self.store.release(self.key, self._owner)
            self._owner = None


_LIMITERS: dict[tuple[str, str], Any] = {}
_LIMITERS_LOCK = threading.Lock()


def endpoint_limiter(folder: Any, base_url: str | None, model: str) -> Any:
    """This process's limiter for one model endpoint (``ratelimit.endpoint_of``), made once (None: no limit set)."""
    from pcg_plugin.llm.ratelimit import SharedLimiter, endpoint_of

    key = (str(folder), endpoint_of(base_url, model))
    with _LIMITERS_LOCK:  # trials in flight share it
        if key not in _LIMITERS:
            _LIMITERS[key] = SharedLimiter.from_env(folder, endpoint=key[1])
        return _LIMITERS[key]


def provider_fault(result: ChatResult) -> str | None:
    """What makes a reply no answer at all: no choices, or a choice whose content is not text (``null``). An
    empty string is an answer (the model said nothing); these are the provider's glitches."""
    if not result.choices:
        return "no choices"
    for i, choice in enumerate(result.choices):
        if not isinstance(choice, str):
            return f"{'a null' if choice is None else type(choice).__name__} content in choice {i}"
    return None


def _texts(result: ChatResult) -> list[str]:
    """A paid reply's choices as text: ``provider_fault`` refused a reply holding any other, so none is dropped."""
    return [c for c in result.choices if isinstance(c, str)]


def call_seed(key: TrialKey, idx: int) -> int:
    """A deterministic per-call sampling seed for local models, derived from the trial's identity."""
    return int.from_bytes(hashlib.sha256(f"{key.id}:{idx}".encode()).digest()[:4], "big")


def _last_user(request: dict[str, Any]) -> str:
    users = [m.get("content", "") for m in request.get("messages", []) if m.get("role") == "user"]
    return str(users[-1]) if users else ""


def prompt_messages(prompt_text: str, letter: str) -> list[dict]:
    """2023 response-gathering script: every ``<OBJECT>`` becomes the letter in double quotes; one user message."""
    return [{"role": "user", "content": prompt_text.replace("<OBJECT>", f'"{letter}"')}]


def generate_prompt_trial(
    key: TrialKey,
    prompt_text: str,
    letter: str,
    *,
    backend: Backend,
    profile: Profile,
    store: ResponseStore,
    mode: str = "once",
    limiter: Any = None,
) -> str:
    """One 2023 trial: the first choice's text (an empty response is kept, as the official script wrote it)."""
    chat = TrialChat(key, backend=backend, profile=profile, store=store, mode=mode, limiter=limiter)
    choices = chat.chat(prompt_messages(prompt_text, letter), 1)
    response = choices[0] if choices else ""
    chat.finish(response)
    return response
