"""Per-process resources of an episode run (the picture game, GameEval): one backend per model, the response
store, the rate limiter, a program's installed requirements, and clembench-style sampling."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from pcg_plugin._util.devices import threads_per_worker
from pcg_plugin._util.trial_dirs import owned_temp_dir
from pcg_plugin.llm.profiles import Profile

CONTEXT_KEY = pytest.StashKey["EpisodeContext"]()
TEMPERATURE = 0.0  # clemcore's default, the one the benchmark runs used
# what every request of an episode sends, recorded in the run's settings so that the gate compares it like for like
SAMPLING = {"temperature": TEMPERATURE, "seed_policy": "none"}
NO_LIMIT_TOKENS = 10**12  # clembench sets no per-episode token or time limit


@dataclass(frozen=True)
class GameProfile(Profile):
    """clembench's sampling: temperature 0 and ``max_tokens`` per reply (no seed, no time or token limit)."""

    max_tokens: int | None = None

    def request_params(self) -> dict[str, object]:
        params = super().request_params()
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        return params


@dataclass
class EpisodeContext:
    """What an episode needs besides its own identity; a problem subclasses it to name its ``edition`` (the
    response store's key) and, where it must, to change how a backend is made."""

    settings: Any  # the problem's Settings: backend, model, base_url, device, max_tokens, store
    run_dir: Path
    workers: int = 1
    environments: dict[str, dict[str, Any]] = field(default_factory=dict)  # the pre-flight's, by submission
    _cache: dict[str, Any] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)  # trials in flight: each made once
    edition: ClassVar[str] = "episode"

    def site_dirs(self, sub: Any) -> tuple[Path, ...]:
        """A program's installed requirements (empty when it has none); raises EnvironmentProblem, naming
        module and requirement line, when they cannot be met."""
        from pcg_plugin.errors import EnvironmentProblem

        env = self.environments.get(sub.name) or {}
        if env.get("problems"):
            raise EnvironmentProblem("; ".join(env["problems"]))
        return (Path(env["site_dir"]),) if env.get("site_dir") else ()

    def program_text(self, kind: str, sub: Any, chat: Any, *, letter: str, trial: int, model: str | None) -> str:
        """What a participant's role program returns for its target (``letter``): run in the sandbox, in a trial
        folder of its own (``kind``), with its installed requirements, its chat calls through ``chat`` (the stored
        chat of the role's model, ``model``). Stored once it returned: a rerun plays on from it, the program not
        run again."""
        from pcg_plugin.sandbox.run import run_program_trial

        def run() -> str:
            with owned_temp_dir(kind) as work:
                return run_program_trial(
                    sub.entry,
                    letter=letter,
                    chat=chat.chat,
                    workdir=Path(work),
                    team=sub.name,
                    trial=trial,
                    root=sub.path,
                    site_dirs=self.site_dirs(sub),
                    model=self.key_model(model),
                )

        return str(chat.run_program(run))

    def model_name(self, sub_model: str | None) -> str | None:
        """The model a submission plays with: its manifest's, else the run's."""
        return sub_model or self.settings.model

    def backend(self, model: str | None) -> Any:
        key = f"backend:{model}"
        with self._lock:
            return self._backend(key, model)

    def _backend(self, key: str, model: str | None) -> Any:
        """The backend of a model entry: its ``BACKEND/`` prefix's, else the run's (``RunSettings.spec``)."""
        if key not in self._cache:
            s = self.settings
            spec = s.spec(model)
            if spec.backend == "scripted":
                from pcg_plugin.llm.scripted import ScriptedBackend, load_callable

                self._cache[key] = ScriptedBackend(load_callable(spec.name), model=f"scripted:{spec.name}")
            else:
                from pcg_plugin.llm import make_backend

                self._cache[key] = make_backend(
                    spec.backend,
                    model=spec.name or None,
                    base_url=s.base_url,
                    device=s.device,
                    threads=threads_per_worker(self.workers),
                )
        return self._cache[key]

    def key_model(self, model: str | None) -> str:
        """The model that really answers (the offline default is stored under its own name, never as another's)."""
        return str(getattr(self.backend(model), "model", None) or self.settings.spec(model).name or model or "")

    def profile(self, model: str | None) -> GameProfile:
        return GameProfile(
            edition=self.edition,
            model=self.key_model(model),
            temperature=TEMPERATURE,
            seed=None,
            client_timeout=None,
            max_time=math.inf,
            token_limit=NO_LIMIT_TOKENS,
            base_url=self.settings.base_url,
            max_tokens=self.settings.max_tokens,
        )

    def store(self) -> Any:
        with self._lock:
            if "store" not in self._cache:
                from pcg_plugin.llm.store import open_store

                assert self.settings.store is not None
                self._cache["store"] = open_store(self.settings.store)
            return self._cache["store"]

    def facts(self) -> dict[str, Any]:
        with self._lock:
            backends = {k.split(":", 1)[1]: v for k, v in self._cache.items() if k.startswith("backend:")}
        return {
            "models": {str(m): str(getattr(b, "model", m)) for m, b in backends.items()},
            "backends": sorted({getattr(b, "name", type(b).__name__) for b in backends.values()}),
        }


def context(config: pytest.Config) -> Any:
    """This process's context (the one episode problem of the run put it there)."""
    return config.stash[CONTEXT_KEY]
