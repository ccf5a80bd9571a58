"""Pre-flight estimate of a paid run: calls x tokens x submissions x letters x trials, and its cost."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pcg_plugin._util.prices import current as prices


@dataclass(frozen=True)
class Estimate:
    """What a run will ask for at most, before replayed trials are subtracted."""

    submissions: int
    letters: int
    trials: int
    calls_per_trial: float
    prompt_tokens_per_call: float
    completion_tokens_per_call: float
    model: str
    replayable_trials: int = 0

    @property
    def trials_to_pay(self) -> int:
        return max(0, self.submissions * self.letters * self.trials - self.replayable_trials)

    @property
    def calls(self) -> float:
        return self.trials_to_pay * self.calls_per_trial

    @property
    def prompt_tokens(self) -> float:
        return self.calls * self.prompt_tokens_per_call

    @property
    def completion_tokens(self) -> float:
        return self.calls * self.completion_tokens_per_call

    @property
    def cost_usd(self) -> float | None:
        return prices().cost(self.model, self.prompt_tokens, self.completion_tokens)  # type: ignore[arg-type]

    def text(self) -> str:
        cost = "unknown price (local or unlisted model)" if self.cost_usd is None else f"~${self.cost_usd:,.2f}"
        tokens = self.prompt_tokens + self.completion_tokens
        return (
            f"pre-flight estimate: {self.submissions} submissions x {self.letters} letters x {self.trials} trials"
            f" = {self.submissions * self.letters * self.trials} trials ({self.replayable_trials} already recorded)"
            f"; {self.calls:,.0f} calls x ({self.prompt_tokens_per_call:,.0f} prompt + "
            f"{self.completion_tokens_per_call:,.0f} completion tokens) = {tokens:,.0f} tokens on {self.model}: {cost}"
        )


def tokens_in(chars: int) -> int:
    """Tokens of a message of ``chars`` characters, as a model would report them: about 4 characters a token, and
    4 tokens of framing per message (no tokenizer of every model is at hand; the rule is within tens of percent)."""
    return chars // 4 + 4


def with_known_prompts(per_call: float, submissions: int, known: Sequence[float]) -> float:
    """The mean prompt tokens of a call over ``submissions`` when the prompts of some are known (a 2023 prompt
    file is the message): those count as they are, the others as ``per_call``."""
    if not known or submissions <= 0:
        return per_call
    known = list(known)[:submissions]
    return (sum(known) + (submissions - len(known)) * per_call) / submissions


def usage_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Dollars a usage cost at the listed price; None for models without a price (local servers)."""
    return prices().cost(model, prompt_tokens, completion_tokens)


def require_price(model: str, *, paid: bool = True) -> tuple[float, float] | None:
    """The model's price, which a spending cap (``--pcg-max-cost``) needs to count a call: a paid model without one
    is refused (``CostCapReached``), naming it and ``--pcg-prices``; None for a free in-process one."""
    price = prices().price(model)
    if price is None and paid:
        from pcg_plugin.errors import CostCapReached

        raise CostCapReached(unknown_price_text(model))
    return price


def unknown_price_text(model: str) -> str:
    return (
        f"--pcg-max-cost: the model {model!r} has no price in the price table, so no call can be counted against "
        "the cap: give its price with --pcg-prices FILE (USD per million tokens, "
        '{"models": {"name": [input, output]}}) or leave the cap out; nothing was run and no model was called'
    )


def estimate_run(
    *,
    submissions: int,
    letters: int,
    trials: int,
    model: str,
    calls_per_trial: float = 1.0,
    prompt_tokens_per_call: float = 1000.0,
    completion_tokens_per_call: float = 300.0,
    replayable_trials: int = 0,
) -> Estimate:
    """Defaults are a single-turn prompt of ~750 words and a ~20-line answer; pass measured figures when known."""
    return Estimate(
        submissions,
        letters,
        trials,
        calls_per_trial,
        prompt_tokens_per_call,
        completion_tokens_per_call,
        model,
        replayable_trials,
    )


def estimate_from_store(
    store: object,
    *,
    submissions: int,
    letters: int,
    trials: int,
    model: str,
    edition: str,
    known_prompt_tokens: Sequence[float] = (),
) -> Estimate:
    """Per-call figures from what the store already recorded for this edition (defaults when it has none); the
    prompt tokens of the submissions whose prompt is known (``known_prompt_tokens``) count as they are."""
    calls = trials_n = prompt = completion = 0
    done = 0
    for rec in store.trials(edition=edition, model=model):  # type: ignore[attr-defined]
        trials_n += 1
        done += rec.status in ("complete", "failed")
        for c in rec.calls:
            calls += 1
            prompt += c.prompt_tokens
            completion += c.completion_tokens
    default = estimate_run(submissions=submissions, letters=letters, trials=trials, model=model)
    per_call = prompt / calls if calls else default.prompt_tokens_per_call
    return estimate_run(
        submissions=submissions,
        letters=letters,
        trials=trials,
        model=model,
        calls_per_trial=calls / max(1, trials_n) if calls else default.calls_per_trial,
        prompt_tokens_per_call=with_known_prompts(per_call, submissions, known_prompt_tokens),
        completion_tokens_per_call=completion / calls if calls else default.completion_tokens_per_call,
        replayable_trials=done,
    )


def preflight_text(
    backend: object,
    store: object,
    *,
    edition: str,
    model: str,
    submissions: int,
    letters: int,
    trials: int,
    mode: str = "once",
    known_prompt_tokens: Sequence[float] = (),
) -> str | None:
    """The line to print before a run that will pay a model; None for local/offline/scripted or replay-only runs."""
    name = getattr(backend, "name", "")
    if mode == "none" or name not in ("openai", "openai-compatible"):
        return None
    est = estimate_from_store(
        store,
        submissions=submissions,
        letters=letters,
        trials=trials,
        model=model,
        edition=edition,
        known_prompt_tokens=known_prompt_tokens,
    )
    return est.text()


PAID_BACKENDS = ("openai", "openai-compatible", "anthropic", "gemini")


def paid_backend(settings: object) -> str | None:
    """The backend a run pays (the auto backend with a key or a base URL is OpenAI's); None: nothing is paid (an
    in-process model, the offline default, the scripted double, a replay with ``--pcg-record none``)."""
    backend = getattr(settings, "backend", None)
    if getattr(settings, "record", "once") == "none" or getattr(settings, "offline_default", False):
        return None
    if backend in (None, "auto"):
        return "openai"
    return str(backend) if backend in PAID_BACKENDS else None


@dataclass(frozen=True)
class SuiteEstimate:
    """A suite's estimate: every problem's collected trials, priced at the per-call figures the store recorded for
    the model (over every problem it answered) or the defaults of ``estimate_run``."""

    problems: tuple[tuple[str, int], ...]  # (problem, its trials collected)
    calls_per_trial: float
    prompt_tokens_per_call: float
    completion_tokens_per_call: float
    model: str

    @property
    def trials(self) -> int:
        return sum(n for _, n in self.problems)

    @property
    def calls(self) -> float:
        return self.trials * self.calls_per_trial

    @property
    def cost_usd(self) -> float | None:
        return prices().cost(
            self.model,
            self.calls * self.prompt_tokens_per_call,  # type: ignore[arg-type]  # estimated token counts are floats
            self.calls * self.completion_tokens_per_call,  # type: ignore[arg-type]
        )

    def text(self) -> str:
        cost = "unknown price (local or unlisted model)" if self.cost_usd is None else f"~${self.cost_usd:,.2f}"
        tokens = self.calls * (self.prompt_tokens_per_call + self.completion_tokens_per_call)
        ran = [(p, n) for p, n in self.problems if n]
        return (
            f"pre-flight estimate over the suite: {len(ran)} problems, {self.trials} trials at most (trials already "
            f"recorded are replayed free); {self.calls:,.0f} calls x ({self.prompt_tokens_per_call:,.0f} prompt + "
            f"{self.completion_tokens_per_call:,.0f} completion tokens) = {tokens:,.0f} tokens on {self.model}: {cost}"
        )


def suite_estimate(problems: Sequence[tuple[str, int]], *, model: str, store: object = None) -> SuiteEstimate:
    """The estimate of a suite's trials (``problems``: each problem with its trials collected); per-call figures
    from every trial the store recorded for ``model`` (any problem), else the defaults."""
    default = estimate_run(submissions=1, letters=1, trials=1, model=model)
    calls = trials_n = prompt = completion = 0
    for rec in store.trials(model=model) if store is not None else ():  # type: ignore[attr-defined]
        trials_n += 1
        for c in rec.calls:
            calls += 1
            prompt += c.prompt_tokens
            completion += c.completion_tokens
    return SuiteEstimate(
        tuple(problems),
        calls / max(1, trials_n) if calls else default.calls_per_trial,
        prompt / calls if calls else default.prompt_tokens_per_call,
        completion / calls if calls else default.completion_tokens_per_call,
        model,
    )


def suite_text(settings: object, problems: Sequence[tuple[str, int]]) -> str | None:
    """The line to print before a suite that pays a model (``settings``: the suite's shared model options)."""
    if paid_backend(settings) is None:
        return None
    model = str(getattr(settings, "model", None) or "the official model")
    store_path = getattr(settings, "store", None)
    store = None
    if store_path is not None and Path(store_path).exists():
        from pcg_plugin.llm.store import ResponseStore

        store = ResponseStore(store_path)
    return "pcg: " + suite_estimate(problems, model=model, store=store).text()
