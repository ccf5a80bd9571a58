"""The Anthropic and Gemini backends against loopback fakes of their wire formats (tests/loopback_anthropic.py,
tests/loopback_gemini.py), with each SDK pointed at them: the request each API expects, the reply read as
received, faults mapped and retried through the session, ``n`` as n calls, usage priced, one limiter per model."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import loopback_anthropic
import loopback_gemini
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from loopback_llm import FakeOpenAI, serve

from pcg_plugin.core.contract.banner import unofficial
from pcg_plugin.errors import AccessDenied, EmptyReply, LLMError, OfficialFailure, RateLimited
from pcg_plugin.llm import in_flight_default, make_backend, waits_on_a_server
from pcg_plugin.llm.estimate import usage_cost
from pcg_plugin.llm.options import basics
from pcg_plugin.llm.retry import RetryPolicy
from pcg_plugin.llm.session import TrialChat, endpoint_limiter
from pcg_plugin.llm.store import ResponseStore, TrialKey
from pcg_plugin.llm.wire import Turns, split_chat
from pcg_plugin.problems.science_birds.editions import profile_for

anthropic_sdk = pytest.importorskip("anthropic", reason="the anthropic SDK (pip install -e '.[anthropic]')")
genai_sdk = pytest.importorskip("google.genai", reason="the google-genai SDK (pip install -e '.[gemini]')")

from pcg_plugin.llm import anthropic_backend, gemini_backend  # noqa: E402 - after the SDKs are known to be there

WIRES = {"anthropic": loopback_anthropic.WIRE, "gemini": loopback_gemini.WIRE}
MODELS = {"anthropic": "claude-haiku-4-5", "gemini": "gemini-3-flash"}
MSG = [
    {"role": "system", "content": "You draw letters."},
    {"role": "user", "content": "Hello."},
    {"role": "user", "content": "Draw A"},
    {"role": "assistant", "content": "drop_block('b11', 3)"},
    {"role": "system", "content": "Only code."},
    {"role": "user", "content": "Again"},
]


@pytest.fixture(params=["anthropic", "gemini"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server(provider: str) -> Iterator[FakeOpenAI]:
    with serve(FakeOpenAI(), WIRES[provider]) as state:
        yield state


def chat_for(provider: str, server: FakeOpenAI, store: ResponseStore, trial: int = 1, **kw: Any) -> TrialChat:
    profile = profile_for("2024", model=MODELS[provider], base_url=server.url)
    backend = make_backend(provider, model=MODELS[provider], base_url=server.url)
    key = TrialKey("2024", MODELS[provider], "team", "h1", "A", trial)
    return TrialChat(key, backend=backend, profile=profile, store=store, sleep=lambda s: None, **kw)


def test_the_system_prompt_goes_where_each_api_wants_it(provider: str, server: FakeOpenAI, tmp_path: Path) -> None:
    chat_for(provider, server, ResponseStore(tmp_path)).chat(MSG)
    sent = server.wire_requests[0]
    if provider == "anthropic":
        assert sent["system"] == "You draw letters.\n\nOnly code." and sent["max_tokens"] == 8192
        assert sent["messages"] == [
            {"role": "user", "content": "Hello.\n\nDraw A"},
            {"role": "assistant", "content": "drop_block('b11', 3)"},
            {"role": "user", "content": "Again"},
        ]
        assert not {"temperature", "seed", "top_p"} & set(sent)  # API version 2026-10-21 refuses sampling
        assert server.headers[0]["anthropic-version"] == "2026-10-21"
    else:
        assert sent["systemInstruction"]["parts"] == [{"text": "You draw letters.\n\nOnly code."}]
        assert [c["role"] for c in sent["contents"]] == ["user", "model", "user"]
        assert sent["contents"][0]["parts"] == [{"text": "Hello.\n\nDraw A"}]
        assert sent["generationConfig"] == {"temperature": 1.0, "seed": 42}  # the 2024 edition's
        assert server.headers[0]["x-goog-api-key"] == "not-used"


def test_n_choices_are_stored_together_before_use_and_replayed(
    provider: str, server: FakeOpenAI, tmp_path: Path
) -> None:
    """Anthropic has no ``n``: three calls; Gemini asks for three candidates in one. Either way the three answers
    are one stored call, and a replay with ``--pcg-record none`` asks nothing."""
    store = ResponseStore(tmp_path)
    chat = chat_for(provider, server, store)
    out = chat.chat([{"role": "user", "content": "Draw A"}], n=3)
    assert len(server.requests) == (3 if provider == "anthropic" else 1) and len(out) == 3
    assert chat.usage["prompt_tokens"] == (33 if provider == "anthropic" else 11)
    assert chat.usage["completion_tokens"] == 21
    chat.finish(out[0])
    (record,) = store.trials()
    assert record.calls[0].choices == out
    again = chat_for(provider, server, store, mode="none").chat([{"role": "user", "content": "Draw A"}], n=3)
    assert again == out and len(server.requests) == (3 if provider == "anthropic" else 1)


def test_a_fault_within_n_calls_pays_only_for_the_missing_answers(tmp_path: Path) -> None:
    """Anthropic's second of three calls is overloaded: the session's retry asks only for the two missing answers
    (the first, already paid, is kept), and the three are stored as one call."""
    store = ResponseStore(tmp_path)
    with serve(FakeOpenAI(), loopback_anthropic.WIRE) as fake:
        fake.faults = [("sleep", 0), ("status", 529, {})]  # the first call answers, the second is overloaded
        chat = chat_for("anthropic", fake, store)
        out = chat.chat([{"role": "user", "content": "Draw A"}], n=3)
        assert len(out) == 3 and chat.usage["retries"] == 1
        assert len(fake.requests) == 4 and fake.n_answered == 3  # 1 answered + 1 fault + the 2 missing


@pytest.mark.parametrize(
    ("fault", "provider_only"),
    [
        (("status", 429, {"Retry-After": "1"}), None),
        (("status", 529, {}), "anthropic"),
        (("status", 503, {}), None),
        (("null_content",), None),  # a refusal / a candidate blocked for safety
        (("empty_choices",), None),  # no content blocks / a blocked prompt
        (("malformed",), None),
        (("reset_body",), None),
        (("reset",), None),
    ],
)
def test_provider_faults_are_retried_and_never_stored(
    provider: str, server: FakeOpenAI, tmp_path: Path, fault: tuple[Any, ...], provider_only: str | None
) -> None:
    if provider_only and provider != provider_only:
        pytest.skip(f"{fault} is {provider_only}'s")
    server.faults = [fault]
    store = ResponseStore(tmp_path)
    chat = chat_for(provider, server, store)
    out = chat.chat([{"role": "user", "content": "Draw A"}])
    assert out[0].startswith("```") and chat.usage["retries"] == 1 and len(server.requests) == 2
    chat.finish(out[0])
    assert [c.choices for r in store.trials() for c in r.calls] == [out]


def test_trials_in_flight_share_one_client(provider: str, server: FakeOpenAI) -> None:
    """Sixteen threads call a fresh backend at once: one SDK client is made (a second one, replacing the first,
    would close the first's connections under the thread still using it)."""
    from concurrent.futures import ThreadPoolExecutor

    backend = make_backend(provider, model=MODELS[provider], base_url=server.url)
    profile = profile_for("2024", model=MODELS[provider])
    with ThreadPoolExecutor(16) as pool:
        futures = [
            pool.submit(backend.complete, [{"role": "user", "content": f"x{i}"}], n=1, profile=profile)
            for i in range(16)
        ]
        answers = [f.result().choices[0] for f in futures]
    assert all(a.endswith(f"re: x{i}") for i, a in enumerate(answers)) and len(server.requests) == 16


def test_a_reply_holding_a_lone_surrogate_goes_back_escaped(provider: str, server: FakeOpenAI, tmp_path: Path) -> None:
    """A model's reply may hold half an emoji (valid JSON, no valid UTF-8); a game sends it back in the next turn:
    the request goes as JSON's escape, and the server reads the very text the model wrote."""
    half = "drop_block('b11', 3)\ud83d"
    history = [
        {"role": "user", "content": "Draw A"},
        {"role": "assistant", "content": half},
        {"role": "user", "content": "More"},
    ]
    out = chat_for(provider, server, ResponseStore(tmp_path)).chat(history)
    assert out[0].endswith("re: More") and half in json.dumps(server.wire_requests[0], ensure_ascii=False)


def test_a_429_waits_as_long_as_the_server_asks(provider: str, server: FakeOpenAI, tmp_path: Path) -> None:
    server.faults = [("status", 429, {"Retry-After": "7"})]
    backend = make_backend(provider, model=MODELS[provider], base_url=server.url)
    with pytest.raises(RateLimited) as caught:
        backend.complete([{"role": "user", "content": "x"}], n=1, profile=profile_for("2024", model="m"))
    assert caught.value.retry_after == 7.0


@pytest.mark.parametrize("provider_fault", ["anthropic", "gemini"])
def test_an_account_cap_is_not_retried_and_is_not_the_team_s(provider_fault: str, tmp_path: Path) -> None:
    code = "enforced_spend_limit_reached" if provider_fault == "anthropic" else "GenerateRequestsPerDayPerProject"
    with serve(FakeOpenAI(), WIRES[provider_fault]) as fake:
        fake.faults = [("status", 429, {}, code)]
        chat = chat_for(provider_fault, fake, ResponseStore(tmp_path))
        with pytest.raises(AccessDenied, match=r"spend limit|daily quota"):
            chat.chat([{"role": "user", "content": "x"}])
        assert len(fake.requests) == 1 and chat.usage["retries"] == 0


def test_a_refused_request_is_the_team_s_and_stored(provider: str, server: FakeOpenAI, tmp_path: Path) -> None:
    server.faults = [("status", 400, {})]
    with pytest.raises(OfficialFailure, match="the model refused the request"):
        chat_for(provider, server, ResponseStore(tmp_path)).chat([{"role": "user", "content": "x"}])


def test_usage_is_priced_and_each_model_has_its_own_limiter(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert usage_cost("claude-haiku-4-5", 1_000_000, 1_000_000) == pytest.approx(6.0)
    assert usage_cost("gemini-3-flash", 1_000_000, 1_000_000) == pytest.approx(3.5)
    monkeypatch.setenv("PCG_RPM", "60")
    one = endpoint_limiter(tmp_path / "lim", None, "claude-haiku-4-5")
    assert one is endpoint_limiter(tmp_path / "lim", None, "claude-haiku-4-5")
    assert one is not endpoint_limiter(tmp_path / "lim", None, "claude-sonnet-4-6")


def test_the_backends_are_servers_and_need_a_model(provider: str, tmp_path: Path) -> None:
    assert waits_on_a_server(provider, None)
    assert in_flight_default(type("S", (), {"backend": provider, "base_url": None})()) == 16
    with pytest.raises(ValueError, match=f"--pcg-backend {provider} needs --pcg-model"):
        make_backend(provider)
    with pytest.raises(ValueError, match="needs --pcg-model"):
        basics({"pcg_backend": provider}, rootdir=tmp_path, cwd=tmp_path, env={})
    assert not basics({"pcg_backend": provider, "pcg_model": "m"}, rootdir=tmp_path, cwd=tmp_path, env={}).offline
    banner = unofficial({"backend": provider, "model": MODELS[provider]})
    assert banner is not None and banner.startswith("UNOFFICIAL RUN") and MODELS[provider] in banner
    assert unofficial({"backend": "openai"}) is None


def test_without_a_key_or_a_url_the_harness_is_refused(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    backend = make_backend(provider, model=MODELS[provider])
    with pytest.raises(AccessDenied, match=r"no .*KEY"):
        backend.complete([{"role": "user", "content": "x"}], n=1, profile=profile_for("2024"))
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a-key")
    assert make_backend(provider, model="m").api_key == ("a-key" if provider == "anthropic" else "g-key")


# -- the replies as received, whatever they hold -------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(["content", "type", "text", "usage", "candidates", "parts", "thought", "index", "input_tokens"])
REPLYISH = st.recursive(
    st.none() | st.integers(-3, 50) | st.text(max_size=4) | st.just("text"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=14,
)


@settings(max_examples=300, deadline=None)
@given(doc=JSON | REPLYISH)
def test_any_reply_is_an_answer_or_the_provider_s_fault(doc: Any) -> None:
    for read in (anthropic_backend.reply, lambda d: gemini_backend.reply(d, 1)):
        try:
            result = read(doc)
        except EmptyReply:
            continue
        assert result.choices and all(isinstance(c, str) for c in result.choices)
        assert result.prompt_tokens >= 0 and result.completion_tokens >= 0


@given(texts=st.lists(st.text(max_size=8), min_size=1, max_size=3), tokens=st.integers(0, 10**6))
def test_anthropic_text_blocks_are_joined_and_other_blocks_left_out(texts: list[str], tokens: int) -> None:
    blocks = [{"type": "thinking", "thinking": "hm"}] + [{"type": "text", "text": t} for t in texts]
    doc = {"content": blocks, "usage": {"input_tokens": tokens, "cache_read_input_tokens": 2, "output_tokens": 5}}
    result = anthropic_backend.reply(doc)
    assert result.choices == ["".join(texts)] and result.prompt_tokens == tokens + 2 and result.completion_tokens == 5


@given(texts=st.lists(st.text(max_size=8), min_size=1, max_size=4), data=st.data())
def test_gemini_candidates_come_in_index_order_without_thoughts(texts: list[str], data: st.DataObject) -> None:
    order = data.draw(st.permutations(range(len(texts))))
    candidates = [
        {"index": i, "content": {"parts": [{"text": "plan", "thought": True}, {"text": texts[i]}]}} for i in order
    ]
    doc = {
        "candidates": candidates,
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 4, "thoughtsTokenCount": 6},
    }
    result = gemini_backend.reply(doc, len(texts))
    assert result.choices == texts and (result.prompt_tokens, result.completion_tokens) == (3, 10)
    with pytest.raises(EmptyReply, match="candidates of the"):
        gemini_backend.reply(doc, len(texts) + 1)


ROLES = st.sampled_from(["system", "developer", "user", "assistant", "tool"])


@given(st.lists(st.tuples(ROLES, st.text(max_size=6)), max_size=8))
def test_split_chat_keeps_every_word_in_order_and_alternates_roles(messages: list[tuple[str, str]]) -> None:
    chat = split_chat([{"role": r, "content": t} for r, t in messages])
    roles = [r for r, _ in chat.turns]
    assert all(a != b for a, b in itertools.pairwise(roles))
    system = [t for r, t in messages if r in ("system", "developer")]
    spoken = [t for r, t in messages if r not in ("system", "developer")]
    if not spoken and system:  # a conversation of system messages alone: their text is the one user turn
        assert chat == Turns(None, (("user", "\n\n".join(system)),))
        return
    assert chat.system == ("\n\n".join(system) if system else None)
    assert "\n\n".join(t for _, t in chat.turns) == "\n\n".join(spoken)


def test_a_conversation_of_system_messages_alone_is_answered(provider: str, server: FakeOpenAI, tmp_path: Path) -> None:
    """A game master's opening may be one system message: both APIs refuse a request without a turn (the fakes
    do too), so it goes as the user's."""
    out = chat_for(provider, server, ResponseStore(tmp_path)).chat([{"role": "system", "content": "You answer."}])
    assert out[0].endswith("re: You answer.") and len(server.requests) == 1


def test_the_error_mapping_names_a_daily_quota_and_reads_retry_info() -> None:
    details = {"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34s"}]}}
    assert gemini_backend.retry_delay(details) == 34.0 and gemini_backend.retry_delay({}) is None
    assert isinstance(anthropic_backend.map_error(json.JSONDecodeError("x", "", 0)), EmptyReply)
    assert type(gemini_backend.map_error(RuntimeError("?"))) is LLMError
    assert RetryPolicy().max_attempts == 6  # the bound every provider fault is retried to
