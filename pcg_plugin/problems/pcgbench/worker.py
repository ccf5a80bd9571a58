"""Per-process resources of a PCG Benchmark run (LLM backend, profile, response store), loaded once and lazily."""

from __future__ import annotations

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

    @property
    def store_edition(self) -> str:
        """The response store's first key: the problem and the pinned benchmark semantics."""
        return f"pcgbench/{self.settings.problem}@{PINNED_COMMIT}"

    @once_property
    def backend(self) -> Any:
        """The LLM backend, made once per process (``scripted``: the responder of ``--pcg-model module:callable``)."""
        t = time.perf_counter()
        try:
            return self._make_backend()
        finally:
            self.stats["load_backend_s"] = time.perf_counter() - t

    def _make_backend(self) -> Any:
        s, spec = self.settings, self.settings.spec(None)  # the one model: its BACKEND/ prefix, else --pcg-backend
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

    def key_model(self) -> str:
        """The model that really answers (a scripted double is never replayed as a real model)."""
        s, spec = self.settings, self.settings.spec(None)
        if spec.backend == "scripted":
            return f"scripted:{spec.name}"
        return str(getattr(self.backend, "model", None) or spec.name or s.model or "")

    @once_property
    def profile(self) -> Any:
        """What every request sends and the guards enforce (see the constants above)."""
        from pcg_plugin.llm.profiles import Profile

        return Profile(
            self.store_edition,
            self.key_model(),
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

    def trial_chat(self, submission: str, files_hash: str, instance: str, trial: int) -> Any:
        """A TrialChat keyed by the trial's identity: every response stored before it is used, replayed in order."""
        from pcg_plugin.llm.session import TrialChat
        from pcg_plugin.llm.store import TrialKey

        key = TrialKey(self.store_edition, self.key_model(), submission, files_hash, instance, trial)
        return TrialChat(key, backend=self.backend, profile=self.profile, store=self.store, mode=self.settings.record)

    def facts(self) -> dict[str, Any]:
        """What this process loaded, for results.json."""
        if "backend" not in self.__dict__:  # no trial ran here: nothing loaded
            return {}
        be = self.backend
        return {
            "backend": {
                "name": getattr(be, "name", type(be).__name__),
                "offline_default": bool(getattr(be, "is_offline_default", False)),
                "constrain": getattr(be, "constrain", "off"),
            },
            "model": self.key_model(),
        }


def bench_context(config: pytest.Config) -> BenchContext:
    return config.stash[CONTEXT_KEY]
