"""Per-process resources of a PCG Benchmark run (LLM backend, profile, response store), loaded once and lazily."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin._util.devices import threads_per_worker
from pcg_plugin._util.once import once_property
from pcg_plugin.problems.pcgbench import PINNED_COMMIT
from pcg_plugin.problems.pcgbench.settings import BenchSettings

CONTEXT_KEY = pytest.StashKey["BenchContext"]()
# No competition fixed these: the 2024 ChatGPT4PCG guards (T=1, 60 s client timeout, 120 s and 25 000 tokens a
# trial), without its fixed seed so that trials of one instance can differ (diversity is scored).
TEMPERATURE, CLIENT_TIMEOUT, MAX_TIME, TOKEN_LIMIT = 1.0, 60.0, 120.0, 25_000
# recorded in the run's settings (outputs.py) so that the gate compares them like for like
SAMPLING = {"temperature": TEMPERATURE, "seed_policy": "none"}
FREE_ANSWER_TOKENS = 400  # arcade's rule set (no answer language): about 5 tokens a key and value, 60 values


@dataclass
class BenchContext:
    """Everything a trial needs besides its own identity; one per pytest process."""

    settings: BenchSettings
    run_dir: Path
    workers: int = 1
    stats: dict[str, float] = field(default_factory=dict)
    _backends: dict[str | None, Any] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def store_edition(self) -> str:
        """The response store's first key: the problem and the pinned benchmark semantics."""
        return f"pcgbench/{self.settings.problem}@{PINNED_COMMIT}"

    def backend(self, model: str | None = None) -> Any:
        """The LLM backend of a model entry (None: the run's one model), made once per process (``scripted``: the
        responder of ``--pcg-model scripted/module:callable``)."""
        with self._lock:
            if model not in self._backends:
                t = time.perf_counter()
                try:
                    self._backends[model] = self._make_backend(model)
                finally:
                    self.stats["load_backend_s"] = self.stats.get("load_backend_s", 0.0) + time.perf_counter() - t
            return self._backends[model]

    def _make_backend(self, model: str | None) -> Any:
        s, spec = self.settings, self.settings.spec(model)  # the entry's BACKEND/ prefix, else --pcg-backend
        if spec.backend == "scripted":
            from pcg_plugin.llm.scripted import ScriptedBackend, load_callable

            return ScriptedBackend(load_callable(spec.name))
        from pcg_plugin.problems.pcgbench.bench.registry import get_problem

        threads = threads_per_worker(self.workers)
        language = get_problem(s.problem).content.answer_regex()
        regex = language if s.constrain == "content" else None
        if s.offline_default or s.backend == "offline":
            from pcg_plugin.llm.constrain import answer_budget
            from pcg_plugin.llm.transformers_backend import offline_default

            # room for the longest answer the variant's language allows (free or constrained), never less than
            # the default; a kind without a language (arcade's rule set) gets the room of its JSON object
            tokens = max(160, answer_budget(language) if language else FREE_ANSWER_TOKENS)
            return offline_default(
                device=s.device, threads=threads, max_new_tokens=tokens, constrain=s.constrain, answer_regex=regex
            )
        from pcg_plugin.llm import make_backend

        return make_backend(
            spec.backend,
            model=spec.name or None,
            base_url=s.base_url,
            device=s.device,
            threads=threads,
            constrain=s.constrain,
            answer_regex=regex,
        )

    def key_model(self, model: str | None = None) -> str:
        """The model that really answers (a scripted double is never replayed as a real model): each model of a
        several-model run is stored under its own name."""
        s, spec = self.settings, self.settings.spec(model)
        if spec.backend == "scripted":
            return f"scripted:{spec.name}"
        return str(getattr(self.backend(model), "model", None) or spec.name or model or s.model or "")

    def profile(self, model: str | None = None) -> Any:
        """What every request sends and the guards enforce (see the constants above)."""
        from pcg_plugin.llm.profiles import Profile

        return Profile(
            self.store_edition,
            self.key_model(model),
            TEMPERATURE,
            None,
            CLIENT_TIMEOUT,
            MAX_TIME,
            TOKEN_LIMIT,
            base_url=self.settings.base_url,
        )

    @once_property
    def store(self) -> Any:
        from pcg_plugin.llm.store import open_store

        assert self.settings.store is not None
        return open_store(self.settings.store)

    def trial_chat(self, submission: str, files_hash: str, instance: str, trial: int, model: str | None = None) -> Any:
        """A TrialChat keyed by the trial's identity and its model: every response stored before it is used,
        replayed in order."""
        from pcg_plugin.llm.session import TrialChat
        from pcg_plugin.llm.store import TrialKey

        key = TrialKey(self.store_edition, self.key_model(model), submission, files_hash, instance, trial)
        return TrialChat(
            key, backend=self.backend(model), profile=self.profile(model), store=self.store, mode=self.settings.record
        )

    def facts(self) -> dict[str, Any]:
        """What this process loaded, for results.json (several models: each one's name, joined by ``,``)."""
        if not self._backends:  # no trial ran here: nothing loaded
            return {}
        models = list(self._backends)
        be = self._backends[models[0]]
        return {
            "backend": {
                "name": getattr(be, "name", type(be).__name__),
                "offline_default": bool(getattr(be, "is_offline_default", False)),
                "constrain": getattr(be, "constrain", "off"),
            },
            "model": ",".join(self.key_model(m) for m in self.settings.models) if len(models) > 1 else self.key_model(),
        }


def bench_context(config: pytest.Config) -> BenchContext:
    return config.stash[CONTEXT_KEY]
