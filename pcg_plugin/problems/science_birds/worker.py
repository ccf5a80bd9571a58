"""Per-process resources of a run (LLM backend, response store, classifier, physics), loaded once and lazily."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin._util.devices import threads_per_worker
from pcg_plugin.llm.scripted import load_callable  # re-exported: its home was here
from pcg_plugin.problems.science_birds.editions import edition
from pcg_plugin.problems.science_birds.settings import Settings
from pcg_plugin.problems.science_birds.submissions import Submission

CONTEXT_KEY = pytest.StashKey["WorkerContext"]()


@dataclass
class WorkerContext:
    """Everything an item needs besides its own identity; one per pytest process (controller or xdist worker)."""

    settings: Settings
    run_dir: Path
    workers: int = 1
    classify_service: Any = None
    # submission name -> {"site_dirs": [str], "problems": [str]}: prepared by the controller's pre-flight
    environments: dict[str, dict[str, Any]] = field(default_factory=dict)
    stats: dict[str, float] = field(default_factory=dict)
    _cache: dict[str, Any] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)  # trials in flight: one of each, made once

    def site_dirs(self, sub: Submission) -> tuple[Path, ...]:
        """The submission's installed requirements, then its edition's official environment (empty when there
        are none or requirements are off); raises
        EnvironmentProblem, naming module and requirement line, when they cannot be met."""
        from pcg_plugin.errors import EnvironmentProblem

        env = self.environments.get(sub.name) or {}
        if env.get("problems"):
            raise EnvironmentProblem("; ".join(env["problems"]))
        return tuple(Path(d) for d in env.get("site_dirs", ()))

    @property
    def wants_embedding(self) -> bool:
        """2025 diversity uses the ViT CLS embedding; 2023/2024 use the 26 probabilities."""
        return edition(self.settings.edition).diversity_vector == "embedding"

    @property
    def function_prefix(self) -> str:
        """The 2023 scripts extracted ``ab_drop`` calls; 2024 and 2025 extract ``drop_block``."""
        return edition(self.settings.edition).function

    def _once(self, key: str, make: Any) -> Any:
        with self._lock:
            if key not in self._cache:
                t = time.perf_counter()
                self._cache[key] = make()
                self.stats[f"load_{key}_s"] = time.perf_counter() - t
            return self._cache[key]

    @property
    def physics(self) -> Any:
        def make() -> Any:
            from pcg_plugin.problems.science_birds.level.physics import PhysicsSettings

            return PhysicsSettings(settle_time=self.settings.settle_time)

        return self._once("physics", make)

    def classifier(self) -> Any:
        """THE one place the classifier is acquired (a one-line swap for another factory)."""

        def make() -> Any:
            from pcg_plugin.problems.science_birds.classify import classifier_for_run

            s = self.settings
            return classifier_for_run(
                model=s.classifier,
                device=s.device,
                mode=s.classify_mode,
                workers=self.workers,
                run_dir=self.run_dir,
                service=self.classify_service,
            )

        return self._once("classifier", make)

    def _model(self, model: str | None) -> str | None:
        """The model one item talks to: its own in a several-model run, else the run's (possibly None)."""
        return model if model is not None else self.settings.model

    @staticmethod
    def _key(name: str, model: str | None) -> str:
        """Cache key of a per-model resource; a one-model run keeps the plain key (its facts are unchanged)."""
        return name if model is None else f"{name}:{model}"

    def backend(self, model: str | None = None) -> Any:
        """The LLM backend (one per model in a several-model run); ``scripted`` takes its responder from
        ``--pcg-model module:callable``."""

        def make() -> Any:
            s, spec = self.settings, self.settings.spec(self._model(model))
            if spec.backend == "scripted":
                from pcg_plugin.llm.scripted import ScriptedBackend

                return ScriptedBackend(load_callable(spec.name))
            from pcg_plugin.llm import make_backend

            return make_backend(
                spec.backend,
                model=spec.name or None,
                base_url=s.base_url,
                device=s.device,
                threads=threads_per_worker(self.workers),
                constrain=s.constrain,
                function=self.function_prefix,
            )

        return self._once(self._key("backend", model), make)

    def profile(self, model: str | None = None) -> Any:
        def make() -> Any:
            from pcg_plugin.problems.science_birds.editions import profile_for

            s, spec = self.settings, self.settings.spec(self._model(model))
            name = None if spec.backend == "scripted" else spec.name or None
            return profile_for(s.edition, model=name, base_url=s.base_url)

        return self._once(self._key("profile", model), make)

    def store(self) -> Any:
        def make() -> Any:
            from pcg_plugin.llm.store import open_store

            assert self.settings.store is not None
            return open_store(self.settings.store)

        return self._once("store", make)

    def trial_chat(self, sub: Submission, letter: str, trial: int, seed: int, model: str | None = None) -> Any:
        """A TrialChat for one trial, keyed by the item's identity and its model (store first, replay in order)."""
        from pcg_plugin.llm.session import TrialChat
        from pcg_plugin.llm.store import TrialKey

        profile, backend = self.profile(model), self.backend(model)
        key = TrialKey(self.settings.edition, self.key_model(model), sub.name, sub.files_hash, letter, trial)
        return TrialChat(key, backend=backend, profile=profile, store=self.store(), mode=self.settings.record)

    def usage_of(self, chat: Any, model: str | None = None) -> dict[str, Any]:
        """A trial's token usage in results.json terms, with the list-price cost where the model has one."""
        from pcg_plugin.llm.estimate import usage_cost

        u = dict(chat.usage)
        prompt, completion = int(u.get("prompt_tokens", 0)), int(u.get("completion_tokens", 0))
        paid = int(u.get("paid", 0))
        cost = usage_cost(self.key_model(model), prompt, completion) if paid else 0.0
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "calls": int(u.get("calls", 0)),
            "replayed_calls": int(u.get("replayed", 0)),
            "paid_calls": paid,
            "retries": int(u.get("retries", 0)),
            "cost_usd": cost,
        }

    def key_model(self, model: str | None = None) -> str:
        """The model that really answers, so stored responses of the offline default or a scripted double are
        never replayed as if the edition's official model had written them (in a several-model run, each
        item's own model: the response store keeps the models apart)."""
        spec = self.settings.spec(self._model(model))
        if spec.backend == "scripted":
            return f"scripted:{spec.name}"
        backend_model = getattr(self._cache.get(self._key("backend", model)), "model", None)
        return str(backend_model or getattr(self.profile(model), "model", None) or self._model(model) or "")

    def facts(self) -> dict[str, Any]:
        """Identity of what this process loaded (digests, model), for the run's provenance."""
        out: dict[str, Any] = {}
        if "classifier" in self._cache:
            clf = self._cache["classifier"]
            out["classifier"] = {"name": getattr(clf, "name", None), "digest": getattr(clf, "digest", None)}
        if "physics" in self._cache:
            phys = self._cache["physics"]
            out["physics"] = {
                "digest": phys.digest(),
                "damage": bool(getattr(phys, "damage", False)),
                "settle_time": phys.settle_time,
            }
        models = self.settings.models if self.settings.multi_model else ()
        lead = models[0] if models else None  # several models share all but the model: the first stands for them
        prof = self._cache.get(self._key("profile", lead))
        if prof is not None:
            out["profile"] = {k: _plain(getattr(prof, k, None)) for k in PROFILE_FIELDS}
        be = self._cache.get(self._key("backend", lead))
        if be is not None:
            out["backend"] = {
                "name": getattr(be, "name", type(be).__name__),
                "offline_default": bool(getattr(be, "is_offline_default", False)),
                "per_trial_seed": bool(getattr(be, "accepts_seed", False)),
                "constrain": getattr(be, "constrain", "off"),
            }
            out["model"] = self.key_model(lead)
            if models:
                out["models"] = {m: self.key_model(m) for m in models}
                out["model"] = ",".join(out["models"].values())
        return out


PROFILE_FIELDS = ("model", "base_url", "temperature", "seed", "max_time", "token_limit")


def _plain(value: Any) -> Any:
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def worker_context(config: pytest.Config) -> WorkerContext:
    return config.stash[CONTEXT_KEY]
