"""Every provider's failures as the LLM error family, status by status (``llm.wire.status_error``, shared): what
the session retries (a 429 after the server's wait, a 5xx, a timeout), what is the harness's account
(AccessDenied: key, access, model name, spend limit) and what is the team's request (BadRequest), each with the
message a user reads. The three SDKs' own exception classes are built here, as each SDK raises them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pcg_plugin import errors

openai_sdk = pytest.importorskip("openai")
anthropic_sdk = pytest.importorskip("anthropic", reason="the anthropic SDK (pip install -e '.[anthropic]')")
genai_errors = pytest.importorskip("google.genai.errors", reason="the google-genai SDK (pip install -e '.[gemini]')")
httpx2 = pytest.importorskip("httpx2")

from pcg_plugin.llm import anthropic_backend, gemini_backend, openai_backend  # noqa: E402 - after the SDKs

STATUSES = (400, 401, 402, 403, 404, 408, 422, 429, 500, 503, 529)
COMMON: dict[int, type[errors.LLMError]] = {400: errors.BadRequest, 422: errors.BadRequest}
COMMON |= {401: errors.AccessDenied, 403: errors.AccessDenied, 404: errors.AccessDenied}
COMMON |= {429: errors.RateLimited, 500: errors.ServerError, 503: errors.ServerError, 529: errors.ServerError}
# where the providers differ: Anthropic's 402 is the account's (billing), OpenAI's path has a 408 the request's
EXPECTED = {
    "openai": {**COMMON, 402: errors.BadRequest, 408: errors.BadRequest},
    "anthropic": {**COMMON, 402: errors.AccessDenied, 408: errors.Timeout},
    "gemini": {**COMMON, 402: errors.BadRequest, 408: errors.Timeout},
}
REQUEST = httpx2.Request("POST", "https://models.example/v1/chat")


def status_exception(provider: str, status: int) -> Exception:
    """The exception the provider's SDK raises for an HTTP ``status`` (the 429 asking for a 3-second wait)."""
    if provider == "gemini":
        details = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"}] if status == 429 else []
        body = {"error": {"code": status, "message": "nope", "status": "STATUS", "details": details}}
        return genai_errors.APIError(status, body)
    sdk = openai_sdk if provider == "openai" else anthropic_sdk
    response = httpx2.Response(status, headers={"retry-after": "3"}, request=REQUEST)
    return sdk.APIStatusError("nope", response=response, body=None)


MAPS = {"openai": openai_backend.map_error, "anthropic": anthropic_backend.map_error}
MAPS["gemini"] = gemini_backend.map_error


@pytest.mark.parametrize("provider", sorted(EXPECTED))
@pytest.mark.parametrize("status", STATUSES)
def test_each_status_is_the_same_error_from_every_provider_but_where_they_differ(provider: str, status: int) -> None:
    error = MAPS[provider](status_exception(provider, status))
    assert type(error) is EXPECTED[provider][status]
    assert str(error).startswith(f"{status}") and "nope" in str(error)
    if isinstance(error, errors.RateLimited):
        assert error.retry_after == 3.0 and str(error).startswith("429 rate limited: ")
    if isinstance(error, errors.AccessDenied):
        assert "refuses the harness (check the key, the access and the model name)" in str(error)
    if isinstance(error, errors.Timeout):
        assert str(error).startswith("408 the server timed out: ")


def test_the_accounts_own_limits_are_never_retried() -> None:
    """A spend limit (Anthropic) or a daily quota (Gemini) is the harness's account: AccessDenied, not a 429 to
    wait out."""
    response = httpx2.Response(400, request=REQUEST)
    spent = anthropic_sdk.APIStatusError("You have reached your spend limit", response=response, body=None)
    assert isinstance(anthropic_backend.map_error(spent), errors.AccessDenied)
    daily = {"error": {"details": [{"quotaId": "GenerateRequestsPerDayPerProject"}], "status": "RESOURCE_EXHAUSTED"}}
    error = gemini_backend.map_error(genai_errors.APIError(429, daily))
    assert isinstance(error, errors.AccessDenied) and "daily quota" in str(error)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_timeout_and_an_unreachable_server_are_the_connections(provider: str) -> None:
    sdk = openai_sdk if provider == "openai" else anthropic_sdk
    assert isinstance(MAPS[provider](sdk.APITimeoutError(request=REQUEST)), errors.Timeout)
    assert isinstance(MAPS[provider](sdk.APIConnectionError(request=REQUEST)), errors.ConnectionFailed)


@pytest.mark.parametrize("provider", sorted(EXPECTED))
def test_a_body_not_json_is_the_providers_and_anything_else_a_bare_llm_error(provider: str) -> None:
    cut: Any = json.JSONDecodeError("Expecting value", "{", 1)
    assert isinstance(MAPS[provider](cut), errors.EmptyReply)
    other = MAPS[provider](RuntimeError("odd"))
    assert type(other) is errors.LLMError and str(other) == "RuntimeError: odd"
