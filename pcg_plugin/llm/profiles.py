"""Edition profiles: the model, sampling and limits each competition edition fixed (spec §1.1, §1.2, §8)."""

from __future__ import annotations

from dataclasses import dataclass

OFFICIAL_2024_MODEL = "gpt-3.5-turbo-0125"
# 2023 had neither limit; finite stand-ins keep profiles JSON-safe (results files refuse Infinity).
NO_TIME_LIMIT = 1e9
NO_TOKEN_LIMIT = 10**9


@dataclass(frozen=True)
class Profile:
    """What one edition sends and enforces; ``None`` means "not sent" (the server default applies)."""

    edition: str
    model: str
    temperature: float | None
    seed: int | None
    client_timeout: float | None
    max_time: float
    token_limit: int
    base_url: str | None = None

    @property
    def seed_policy(self) -> str:
        return "fixed" if self.seed is not None else "none"

    def request_params(self) -> dict[str, object]:
        """The sampling parameters put in every request, exactly those the official client set."""
        params: dict[str, object] = {"model": self.model}
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.seed is not None:
            params["seed"] = self.seed
        return params


def profile_for(edition: str, *, model: str | None = None, base_url: str | None = None) -> Profile:
    """The official profile of an edition; ``model``/``base_url`` override the model (2025 chooses them)."""
    if edition == "2023":
        # response-gathering-script: openai v3, 'gpt-3.5-turbo', no temperature/seed, no time or token limit.
        return Profile("2023", model or "gpt-3.5-turbo", None, None, None, NO_TIME_LIMIT, NO_TOKEN_LIMIT, base_url)
    if edition == "2024":
        # chatgpt4pcg 1.2.2: T=1, seed 42, client timeout 60 s, max_time 120 s, 25 000 tokens.
        return Profile("2024", model or OFFICIAL_2024_MODEL, 1.0, 42, 60.0, 120.0, 25_000, base_url)
    if edition == "2025":
        # llms4pcg 2.0.1: model/base URL chosen, T=1, seed commented out, no client timeout, 500 s, 25 000 tokens.
        return Profile("2025", model or OFFICIAL_2024_MODEL, 1.0, None, None, 500.0, 25_000, base_url)
    raise ValueError(f"unknown edition {edition!r}: expected 2023, 2024 or 2025")
