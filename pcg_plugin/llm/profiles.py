"""A profile: the model, sampling and limits a run's requests and guards use (each competition edition fixed
one: ``pcg_plugin.problems.science_birds.editions.profile_for``)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

DEADLINE_ENV = "PCG_TRIAL_DEADLINE"
DEADLINE_MARGIN_S = 60.0  # past the official time limit, as the sandbox gives a program (SandboxLimits.for_max_time)
UNLIMITED_DEADLINE_S = 1800.0  # a trial no rule limits in time (an episode): half an hour of waiting on a server


@dataclass(frozen=True)
class Profile:
    """What a run sends and enforces; ``None`` means "not sent" (the server default applies).

    ``deadline``: seconds a trial may spend in one run before every wait on the model server is cut (see
    ``trial_deadline``); None: the official time limit plus ``DEADLINE_MARGIN_S``."""

    edition: str
    model: str
    temperature: float | None
    seed: int | None
    client_timeout: float | None
    max_time: float
    token_limit: int
    base_url: str | None = None
    deadline: float | None = None

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


def trial_deadline(profile: Profile, env: Mapping[str, str] | None = None) -> float:
    """Seconds one trial may run in one run (counted from its start there; replayed calls cost nothing) before
    a call to the model server is cut: each call's timeout and each Retry-After or rate-limit wait is cut to what
    is left, and a wait longer than that is an infrastructure error at once (the item errors; ``--lf`` resumes
    it). ``PCG_TRIAL_DEADLINE`` overrides every problem's; else the profile's own, else its official time limit
    plus a minute (a call may start just before the limit), else half an hour."""
    env = os.environ if env is None else env
    text = env.get(DEADLINE_ENV, "").strip()
    if text:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{DEADLINE_ENV} must be a number of seconds, got {text!r}") from None
        if not value > 0:
            raise ValueError(f"{DEADLINE_ENV} must be more than 0 seconds, got {text!r}")
        return value
    if profile.deadline is not None:
        return float(profile.deadline)
    if math.isfinite(profile.max_time):
        return profile.max_time + DEADLINE_MARGIN_S
    return UNLIMITED_DEADLINE_S
