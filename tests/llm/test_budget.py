"""The spending cap's ledger (``pcg_plugin/llm/budget.py``): the rule, spent never past the cap under any interleaving
of calls reserving and settling (hypothesis), the shared file across processes, each call's worst case, and
TrialChat refusing a call before it is sent."""

from __future__ import annotations

import json
import multiprocessing
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.errors import CostCapReached, DeadlineExceeded
from pcg_plugin.llm import budget
from pcg_plugin.llm.base import ChatResult
from pcg_plugin.llm.budget import Budget, Decision, Ledger, SharedLedger, decide
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import ResponseStore, TrialKey
from pcg_plugin.problems.science_birds.editions import profile_for

P = profile_for("2024")  # gpt-3.5-turbo-0125: $0.50 / $1.50 per million tokens
MSG = [{"role": "user", "content": "Draw A"}]


def test_the_rule():
    assert decide(100, 0, 0, 100, False) is Decision.GO  # exactly the cap fits
    assert decide(100, 1, 0, 100, False) is Decision.STOP  # past it beside what is spent: never fits
    assert decide(100, 10, 50, 50, False) is Decision.WAIT  # fits once the calls in flight settle
    assert decide(100, 10, 40, 50, False) is Decision.GO
    assert decide(100, 0, 0, 1, True) is Decision.STOP  # stopped: no call starts from now on


# One call: its worst case, what it really costs (at most that), and when in the schedule it settles.
CALLS = st.lists(
    st.tuples(st.integers(1, 60), st.floats(0, 1), st.integers(0, 40)),
    min_size=1,
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(cap=st.integers(1, 400), calls=CALLS)
def test_spent_never_passes_the_cap_under_any_interleaving(cap: int, calls: list[tuple[int, float, int]]) -> None:
    """Calls start in order and each settles some steps later (any interleaving of starts and ends): after every
    step what is spent and held is within the cap, and a call is refused only when it could not fit."""
    ledger = Ledger(cap)
    pending: list[tuple[int, str, int]] = []  # (settles at step, slot, cost)
    for step, (worst, share, delay) in enumerate(calls):
        for due, slot, cost in [p for p in pending if p[0] <= step]:
            ledger.settle(slot, cost)
            pending.remove((due, slot, cost))
        before = ledger.state()
        decision, slot = ledger.reserve(worst)
        if slot is not None:
            pending.append((step + delay, slot, int(worst * share)))
        else:
            assert decision is not Decision.GO
            assert before.stopped or before.spent + before.held + worst > cap
        state = ledger.state()
        assert state.spent + state.held <= cap and state.spent <= cap
    for _, slot, cost in pending:
        ledger.settle(slot, cost)
    assert ledger.state().held == 0 and ledger.state().spent <= cap


@settings(max_examples=100, deadline=None)
@given(cap=st.integers(1, 400), calls=CALLS)
def test_the_shared_ledger_decides_as_the_pure_one(tmp_path_factory, cap, calls):  # type: ignore[no-untyped-def]
    shared, pure = SharedLedger(tmp_path_factory.mktemp("l") / "l.sqlite3", cap), Ledger(cap)
    for worst, share, _ in calls:
        (a, sa), (b, sb) = shared.reserve(worst), pure.reserve(worst)
        assert a is b
        if sa is not None and sb is not None and share > 0.5:  # some settle at once, some stay in flight
            shared.settle(sa, int(worst * share))
            pure.settle(sb, int(worst * share))
        assert shared.state() == pure.state()


def _hammer(path: str, seed: int) -> None:
    """One process of a run: 3 threads, each starting calls until the ledger stops them."""
    import random

    ledger = SharedLedger(path)

    def trials(rng: random.Random) -> None:
        while True:
            worst = rng.randint(5, 30)
            decision, slot = ledger.reserve(worst)
            if decision is Decision.STOP:
                return
            if slot is not None:
                ledger.settle(slot, rng.randint(0, worst))

    threads = [threading.Thread(target=trials, args=(random.Random(seed * 10 + i),)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_processes_and_threads_sharing_the_file_never_pass_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "spending.sqlite3"
    SharedLedger(path, 2000)
    procs = [multiprocessing.get_context("spawn").Process(target=_hammer, args=(str(path), s)) for s in (1, 2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    state = SharedLedger(path).state()
    assert state.stopped and state.held == 0 and 2000 - 30 < state.spent <= 2000


def test_a_reservation_of_a_process_that_died_is_charged_in_full(tmp_path: Path) -> None:
    ledger = SharedLedger(tmp_path / "l.sqlite3", 100)
    proc = multiprocessing.get_context("spawn").Process(target=int)
    proc.start()
    proc.join()
    assert ledger.reserve(30, pid=proc.pid)[0] is Decision.GO  # then the process died mid-call
    assert ledger.reserve(1)[0] is Decision.GO
    assert ledger.state().spent == 30  # its call may have been paid: counted as its worst case


def test_a_calls_worst_case():
    assert budget.prompt_tokens_at_most(MSG) == len("Draw A") + 2 * budget.MESSAGE_FRAMING_TOKENS
    assert budget.prompt_tokens_at_most([{"content": "é"}]) == 2 + 16  # a byte is the most a token can be
    assert budget.reply_tokens_at_most({"max_tokens": 300}, 2) == 600
    assert budget.reply_tokens_at_most({}, 1) == budget.UNBOUNDED_REPLY_TOKENS
    assert budget.worst_case((1.0, 2.0), MSG, {"max_tokens": 10}, 1) == (22 * 1 + 10 * 2) * 1000  # nanodollars
    assert budget.nanodollars(0.1) == 100_000_000 and budget.nanodollars(1e-10) == 1  # rounded up


@pytest.mark.parametrize(
    ("text", "error"), [("0", "above 0"), ("-1", "above 0"), ("ten", "not an amount"), ("nan", "above 0")]
)
def test_a_cap_must_be_dollars_above_0(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        budget.parse_cap(text, "--pcg-max-cost")
    assert budget.parse_cap("$2.5", "--pcg-max-cost") == 2.5 and budget.parse_cap(" ", "x") is None


class Paid:
    """A server double that counts what it was sent."""

    name = "openai"

    def __init__(self) -> None:
        self.sent = 0

    def complete(self, messages, *, n, profile, **kw):  # type: ignore[no-untyped-def]
        self.sent += 1
        return ChatResult(["```\ndrop_block('b11', 1)\n```"] * n, 1000, 1000)


def chat(tmp_path: Path, cap_usd: float, backend: object, trial: int = 1) -> TrialChat:
    held = Budget(SharedLedger(tmp_path / "l.sqlite3", budget.nanodollars(cap_usd)), budget.nanodollars(cap_usd))
    key = TrialKey("2024", "gpt-3.5-turbo-0125", "team", "h", "A", trial)
    return TrialChat(key, backend=backend, profile=P, store=ResponseStore(tmp_path), budget=held)  # type: ignore[arg-type]


def test_a_call_past_the_cap_is_not_sent_and_what_was_paid_is_counted(tmp_path: Path) -> None:
    """At $0.50 / $1.50 a call of 1000 + 1000 tokens costs $0.002; its worst case (16 384 reply tokens) ~$0.0246:
    under a $0.025 cap the first fits, the second no longer does beside the $0.002 spent."""
    server = Paid()
    first = chat(tmp_path, 0.025, server)
    first.chat(MSG)
    assert first.budget.state().spent == 2_000_000 and first.budget.state().held == 0
    with pytest.raises(CostCapReached, match=r"stopped at the cost cap: \$0\.0020 of \$0\.0250"):
        first.chat([*MSG, {"role": "user", "content": "again"}])
    assert server.sent == 1
    with pytest.raises(CostCapReached, match="stopped at the cost cap"):  # stopped: no call starts, however small
        chat(tmp_path, 0.025, server, trial=2).chat([{"role": "user", "content": "x"}])
    assert server.sent == 1


def test_an_unknown_price_is_refused_before_the_call_and_a_local_model_is_free(tmp_path: Path) -> None:
    server = Paid()
    held = Budget(SharedLedger(tmp_path / "l.sqlite3", 10**9), 10**9)
    key = TrialKey("2024", "my-model", "team", "h", "A", 1)
    chat = TrialChat(key, backend=server, profile=P, store=ResponseStore(tmp_path), budget=held)  # type: ignore[arg-type]
    with pytest.raises(CostCapReached, match=r"'my-model' has no price.*--pcg-prices"):
        chat.chat(MSG)
    assert server.sent == 0
    server.name = "transformers"  # an in-process model costs nothing: no price needed
    chat = TrialChat(key, backend=server, profile=P, store=ResponseStore(tmp_path), budget=held)  # type: ignore[arg-type]
    chat.chat(MSG)
    assert server.sent == 1 and held.state().spent == 0


def test_the_price_file_is_what_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "p.json").write_text(json.dumps({"models": {"gpt-3.5-turbo-0125": [1000, 0]}}))
    monkeypatch.setenv("PCG_PRICES", str(tmp_path / "p.json"))
    first = chat(tmp_path, 5.0, Paid())
    first.chat(MSG)
    assert first.budget.state().spent == budget.nanodollars(1000 * 1000 / 1e6)  # $1 for 1000 prompt tokens


def test_a_call_that_fits_once_the_calls_in_flight_settle_waits_for_them(tmp_path: Path) -> None:
    ledger = SharedLedger(tmp_path / "l.sqlite3", 100)
    _, other = ledger.reserve(60)  # a call in flight that may cost up to 60
    assert other is not None
    waits: list[float] = []

    def sleep(seconds: float) -> None:  # while this call waits, the other one is answered for 10
        waits.append(seconds)
        ledger.settle(other, 10)

    held = Budget(ledger, 100, sleep=sleep)
    slot = held.hold(60, "team/A/trial 1", lambda: 100.0)
    assert waits == [budget.WAIT_S] and ledger.state() == budget.State(100, 10, 60, False)
    held.settle(slot, 5e-9)
    assert ledger.state().spent == 15


def test_a_wait_past_the_trials_deadline_errors_the_item_and_stops_nothing(tmp_path: Path) -> None:
    ledger = SharedLedger(tmp_path / "l.sqlite3", 100)
    ledger.reserve(60)
    with pytest.raises(DeadlineExceeded, match="rerun it with --lf"):
        Budget(ledger, 100, sleep=lambda s: None).hold(60, "team/A/trial 1", lambda: 0.0)
    assert not ledger.state().stopped  # the cap is not reached: other trials go on


def test_each_model_entry_is_priced_by_the_model_its_backend_asks_for(monkeypatch) -> None:
    """``openai/gpt-4o`` is priced as gpt-4o; an entry a server answers without a price is refused before any call;
    a scripted entry costs nothing."""
    from types import SimpleNamespace

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ok = SimpleNamespace(backend=None, base_url=None, models=("openai/gpt-4o", "scripted/m:f"), model=None)
    budget._check_prices(ok)
    bad = SimpleNamespace(backend=None, base_url=None, models=("openai/gpt-4o", "openai/no-such-model"), model=None)
    with pytest.raises(pytest.UsageError, match="'no-such-model' has no price"):
        budget._check_prices(bad)
