"""A profile: the model, sampling and limits a run's requests and guards use (each competition edition fixed
one: ``pcg_plugin.problems.science_birds.editions.profile_for``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """What a run sends and enforces; ``None`` means "not sent" (the server default applies)."""

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
