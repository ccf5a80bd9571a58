"""The openai backend against a real local HTTP server: exact requests per edition, usage, injected faults."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pcg_plugin.errors import InfrastructureError, OfficialFailure
from pcg_plugin.llm import make_backend
from pcg_plugin.errors import BadRequest, RateLimited, ServerError, Timeout
from pcg_plugin.llm.openai_backend import OpenAIBackend, retry_after_seconds
from pcg_plugin.problems.science_birds.editions import profile_for
from pcg_plugin.llm.session import TrialChat, generate_prompt_trial
from pcg_plugin.llm.store import ResponseStore, TrialKey

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
    text = generate_prompt_trial(key(edition="2023", letter="B"), "Draw <OBJECT> now, <OBJECT>!", "B",
                                 backend=backend, profile=profile_for("2023"), store=store)  # fmt: skip
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
