"""The openai backend against a real local HTTP server: exact requests per edition, usage, injected faults."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pcg_plugin.errors import BadRequest, InfrastructureError, OfficialFailure, RateLimited, ServerError, Timeout
from pcg_plugin.llm import make_backend
from pcg_plugin.llm.openai_backend import OpenAIBackend
from pcg_plugin.llm.session import TrialChat, generate_prompt_trial
from pcg_plugin.llm.store import ResponseStore, TrialKey
from pcg_plugin.llm.wire import retry_after_seconds
from pcg_plugin.problems.science_birds.editions import profile_for

MSG = [{"role": "system", "content": "You draw letters."}, {"role": "user", "content": "Draw A"}]


def key(trial: int = 1, letter: str = "A", edition: str = "2024") -> TrialKey:
    return TrialKey(edition, "m", "team", "h1", letter, trial)


@pytest.fixture
def store(tmp_path):
    return ResponseStore(tmp_path / "store")


def test_2024_request_is_the_official_one(fake_openai, store):
    backend = OpenAIBackend(base_url=fake_openai.url, api_key="sk-test")
    chat = TrialChat(key(), backend=backend, profile=profile_for("2024"), store=store)
    out = chat.chat(MSG, n=2)
    body = fake_openai.bodies[0]
    assert body["model"] == "gpt-3.5-turbo-0125"
    assert body["temperature"] == 1 and body["seed"] == 42 and body["n"] == 2
    assert body["messages"] == MSG
    assert fake_openai.headers[0]["authorization"] == "Bearer sk-test"
    assert len(out) == 2 and out[0].startswith("```")
    assert chat.usage["prompt_tokens"] == 11 and chat.usage["completion_tokens"] == 14


def test_2025_sends_no_seed_and_the_chosen_model_with_a_dummy_key(fake_openai, store, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    profile = profile_for("2025", model="qwen2.5:32b-instruct-fp16", base_url=fake_openai.url)
    backend = make_backend(None, model=profile.model, base_url=fake_openai.url)
    TrialChat(key(edition="2025"), backend=backend, profile=profile, store=store).chat(MSG)
    body = fake_openai.bodies[0]
    assert "seed" not in body and body["temperature"] == 1 and body["model"] == "qwen2.5:32b-instruct-fp16"
    assert fake_openai.headers[0]["authorization"] == "Bearer not-used"  # llms4pcg 2.0.x with a local URL


def test_2023_sends_one_user_message_with_the_quoted_letter_and_no_sampling_params(fake_openai, store):
    backend = OpenAIBackend(base_url=fake_openai.url, api_key="k")
    text = generate_prompt_trial(
        key(edition="2023", letter="B"),
        "Draw <OBJECT> now, <OBJECT>!",
        "B",
        backend=backend,
        profile=profile_for("2023"),
        store=store,
    )
    body = fake_openai.bodies[0]
    assert body["messages"] == [{"role": "user", "content": 'Draw "B" now, "B"!'}]
    assert body["model"] == "gpt-3.5-turbo" and "temperature" not in body and "seed" not in body
    assert text.startswith("```")


def test_error_mapping_429_is_rate_limited_with_retry_after_and_500_is_a_server_error(fake_openai):
    backend = OpenAIBackend(base_url=fake_openai.url, api_key="k")
    p = profile_for("2024")
    fake_openai.faults = [("status", 429, {"Retry-After": "3"}), ("status", 503, {}), ("status", 400, {})]
    with pytest.raises(RateLimited) as rl:
        backend.complete(MSG, n=1, profile=p)
    assert rl.value.retry_after == 3.0 and not isinstance(rl.value, ServerError)
    with pytest.raises(ServerError):
        backend.complete(MSG, n=1, profile=p)
    with pytest.raises(BadRequest):
        backend.complete(MSG, n=1, profile=p)


def test_client_timeout_and_connection_reset_are_transient(fake_openai):
    backend = OpenAIBackend(base_url=fake_openai.url, api_key="k")
    p = replace(profile_for("2024"), client_timeout=0.3)
    fake_openai.faults = [("sleep", 1.0)]
    with pytest.raises(Timeout):
        backend.complete(MSG, n=1, profile=p)
    fake_openai.faults = [("reset",)]
    with pytest.raises(InfrastructureError) as err:
        backend.complete(MSG, n=1, profile=p)
    assert err.value.transient


def test_retries_respect_retry_after_then_succeed_and_record_once(fake_openai, store):
    slept: list[float] = []
    backend = OpenAIBackend(base_url=fake_openai.url, api_key="k")
    profile = replace(profile_for("2024"), client_timeout=0.3)
    fake_openai.faults = [("status", 429, {"Retry-After": "7"}), ("status", 500, {}), ("sleep", 1.0), ("reset",)]
    chat = TrialChat(key(), backend=backend, profile=profile, store=store, sleep=slept.append)
    assert chat.chat(MSG)[0].startswith("```")
    assert len(fake_openai.bodies) == 5 and chat.usage["retries"] == 4
    assert slept[0] >= 7.0 and all(s < 7.0 for s in slept[1:])  # only the 429 carried a wait
    assert len(store.load(key()).calls) == 1  # retries are not recorded as calls


def test_out_of_retries_errors_the_item_and_a_bad_request_fails_the_trial(fake_openai, store):
    backend = OpenAIBackend(base_url=fake_openai.url, api_key="k")
    fake_openai.faults = [("status", 500, {})] * 10
    chat = TrialChat(key(1), backend=backend, profile=profile_for("2024"), store=store, sleep=lambda s: None)
    with pytest.raises(ServerError):
        chat.chat(MSG)
    fake_openai.faults = [("status", 400, {})]
    chat = TrialChat(key(2), backend=backend, profile=profile_for("2024"), store=store)
    with pytest.raises(OfficialFailure) as failure:
        chat.chat(MSG)
    assert failure.value.reason == "llm_bad_request"


def test_token_limit_over_http_fails_after_the_response_is_stored(fake_openai, store):
    fake_openai.usage = (20_000, 6_000)
    backend = OpenAIBackend(base_url=fake_openai.url, api_key="k")
    chat = TrialChat(key(), backend=backend, profile=profile_for("2024"), store=store)
    with pytest.raises(OfficialFailure) as failure:
        chat.chat(MSG)
    assert failure.value.reason == "token_limit"
    record = store.load(key())
    assert record.status == "failed" and len(record.calls) == 1  # paid, kept, never paid again


def test_retry_after_header_forms():
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after_seconds(None) is None


# -- a provider's worst replies (issue 38): never the team's answer, never paid twice ------------------------------


@pytest.mark.parametrize(
    "fault",
    [
        ("empty_choices",),
        ("null_content",),
        ("malformed",),
        ("html",),
        ("reset_body",),
        ("reset",),
        ("status", 503, {}),
        ("status", 429, {}),
    ],
)
def test_a_reply_that_is_no_answer_is_retried_and_only_the_answer_is_stored(fake_openai, store, fault):
    fake_openai.faults = [fault, fault]
    chat = TrialChat(
        key(),
        backend=OpenAIBackend(base_url=fake_openai.url, api_key="k"),
        profile=profile_for("2024"),
        store=store,
        sleep=lambda s: None,
    )
    answer = chat.chat(MSG)
    assert answer[0].startswith("```") and chat.usage["retries"] == 2
    assert len(fake_openai.bodies) == 3 and fake_openai.n_answered == 1
    assert [c.choices for c in store.load(key()).calls] == [answer]  # answered = stored


def test_an_empty_string_content_is_the_models_answer(fake_openai, store):
    fake_openai.faults = [("reply", "")]
    chat = TrialChat(
        key(), backend=OpenAIBackend(base_url=fake_openai.url, api_key="k"), profile=profile_for("2024"), store=store
    )
    assert chat.chat(MSG) == [""] and len(fake_openai.bodies) == 1
    assert store.load(key()).calls[0].choices == [""]


def test_a_lone_surrogate_reply_comes_back_stored_and_is_sent_back_in_the_history(fake_openai, store):
    fake_openai.faults = [("reply", "half \ud83d")]
    backend = OpenAIBackend(base_url=fake_openai.url, api_key="k")
    chat = TrialChat(key(), backend=backend, profile=profile_for("2024"), store=store)
    (first,) = chat.chat(MSG)
    assert first == "half \ud83d"
    history = [*MSG, {"role": "assistant", "content": first}, {"role": "user", "content": "go on"}]
    chat.chat(history)
    assert fake_openai.bodies[1]["messages"][2]["content"] == "half \ud83d"  # sent as its JSON escape
    assert fake_openai.bodies[1]["model"] == fake_openai.bodies[0]["model"] and fake_openai.bodies[1]["seed"] == 42
    chat.finish(first)
    again = TrialChat(key(), backend=backend, profile=profile_for("2024"), store=ResponseStore(store.path))
    assert again.chat(MSG) == [first] and len(again.chat(history)) == 1 and len(fake_openai.bodies) == 2


def test_a_huge_reply_is_stored_whole(fake_openai, store):
    huge = "y" * 5_000_000
    fake_openai.faults = [("reply", huge)]
    chat = TrialChat(
        key(), backend=OpenAIBackend(base_url=fake_openai.url, api_key="k"), profile=profile_for("2024"), store=store
    )
    assert chat.chat(MSG) == [huge] and ResponseStore(store.path).load(key()).calls[0].choices == [huge]


def test_a_hung_server_is_given_up_at_the_trials_deadline(fake_openai, store):
    import time

    from pcg_plugin.errors import DeadlineExceeded

    fake_openai.faults = [("hang",)]
    chat = TrialChat(
        key(),
        backend=OpenAIBackend(base_url=fake_openai.url, api_key="k"),
        profile=profile_for("2025"),
        store=store,
        deadline=1.0,
    )
    t0 = time.monotonic()
    with pytest.raises(DeadlineExceeded, match="rerun it with --lf"):
        chat.chat(MSG)
    assert time.monotonic() - t0 < 5.0 and len(fake_openai.bodies) == 1
    assert store.load(key()).calls == []


@pytest.mark.parametrize("status", [401, 403, 404])
def test_a_server_refusing_the_harness_is_no_teams_zero_and_nothing_is_stored(fake_openai, store, status):
    from pcg_plugin.errors import AccessDenied

    fake_openai.faults = [("status", status, {})]
    backend = OpenAIBackend(base_url=fake_openai.url, api_key="k")
    chat = TrialChat(key(), backend=backend, profile=profile_for("2024"), store=store)
    with pytest.raises(AccessDenied, match="refuses the harness"):
        chat.chat(MSG)
    assert store.load(key()).calls == [] and store.load(key()).status == "open"
    again = TrialChat(key(), backend=backend, profile=profile_for("2024"), store=store)  # the key fixed: a rerun
    assert again.chat(MSG)[0].startswith("```")
