"""LLM backends with the official guards, the per-trial response store, and the offline default model."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

BACKEND_KINDS = ("openai", "openai-compatible", "anthropic", "gemini", "transformers", "offline", "scripted")


SERVER_KINDS = ("openai", "openai-compatible", "anthropic", "gemini")  # the backends whose answers come from a server
NATIVE_KINDS = ("anthropic", "gemini")  # hosted APIs of other vendors, through their own SDKs (docs/providers.md)


# The backends an entry of --pcg-model may name as its prefix (``openai/gpt-4o``): every kind that serves a named
# model (the offline default serves only its own, so ``offline/...`` stays a model name).
MODEL_PREFIXES = tuple(kind for kind in BACKEND_KINDS if kind != "offline")


@dataclass(frozen=True)
class ModelSpec:
    """One entry of ``--pcg-model``: ``entry`` as given (the item level, ``-k model_<entry>``), the ``backend``
    that serves it (its prefix's, else the run's ``--pcg-backend``; None: auto) and the model ``name`` that backend
    is asked for (for ``scripted``: the ``module:function`` of the double)."""

    entry: str
    backend: str | None
    name: str


def parse_model(entry: str, run_backend: str | None = None) -> ModelSpec:
    """``BACKEND/MODEL`` when the text before the first ``/`` is a known backend (the convention of inspect_ai and
    LiteLLM; the rest, slashes included, is the model), else ``MODEL`` served by ``run_backend``; a ValueError names
    an entry with a backend and no model."""
    entry = entry.strip()
    head, sep, rest = entry.partition("/")
    if sep and head in MODEL_PREFIXES:
        if not rest.strip():
            raise ValueError(f"--pcg-model: {entry!r} names the backend {head} but no model after the '/'")
        return ModelSpec(entry, head, rest.strip())
    return ModelSpec(entry, None if run_backend in (None, "auto") else run_backend, entry)


def waits_on_a_server(backend: str | None, base_url: str | None, env: Any = None) -> bool:
    """Whether a run's answers come from a server (a hosted API, an OpenAI-compatible one), so that its trials spend
    most of their time waiting and keeping several in flight pays (``core.session.inflight``'s default); an in-process
    model
    or the scripted double leaves nothing to wait for."""
    if backend in (None, "auto"):
        return wants_openai(base_url, env)
    return backend in SERVER_KINDS


def in_flight_default(settings: Any) -> int:
    """``--pcg-in-flight``'s default for a run with these settings: ``core.session.inflight.DEFAULT`` when its model is
    a
    server, 1 when nothing is waited for."""
    from pcg_plugin.core.session.inflight import DEFAULT

    return DEFAULT if waits_on_a_server(getattr(settings, "backend", None), getattr(settings, "base_url", None)) else 1


def wants_openai(base_url: str | None, env: Any = None) -> bool:
    """Auto: an API key or a base URL means the OpenAI path; otherwise the offline default."""
    env = os.environ if env is None else env
    return bool(base_url or env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_KEY"))


def make_backend(
    kind: str | None,
    *,
    model: str | None = None,
    base_url: str | None = None,
    device: str = "auto",
    few_shot: bool | None = None,
    threads: int | None = None,
    constrain: str = "off",
    function: str = "drop_block",
    answer_regex: str | None = None,
) -> Any:
    """Build a backend by kind; ``None`` = auto (key/URL -> openai, else the offline SmolLM2 default); ``anthropic``
    and ``gemini`` need a ``model`` (``native_backend``).

    ``few_shot`` (offline only) prepends the documented worked example; default from ``PCG_OFFLINE_FEW_SHOT``.
    ``threads`` caps torch's threads for in-process models on the CPU (one xdist worker's share of the cores).
    ``constrain`` (``drop_block``/``off``) generates in-process answers under the drop_block grammar, with the
    edition's ``function`` name; ``content`` under ``answer_regex`` (a PCG Benchmark variant's answer form); an
    HTTP backend cannot be constrained and refuses it.
    """
    if few_shot is None:
        few_shot = os.environ.get("PCG_OFFLINE_FEW_SHOT", "").strip().lower() in ("1", "true", "yes", "on")
    if kind is None:
        kind = "openai" if wants_openai(base_url) else "offline"
    if constrain != "off" and kind in (*SERVER_KINDS, "scripted"):
        raise ValueError(
            f"--pcg-constrain {constrain} needs an in-process model (--pcg-backend offline or transformers)"
        )
    if kind == "openai":
        from pcg_plugin.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(model=model, base_url=base_url)
    if kind == "openai-compatible":
        from pcg_plugin.llm.openai_backend import OpenAIBackend

        url = base_url or os.environ.get("OPENAI_BASE_URL")
        if not url:
            raise ValueError("--pcg-backend openai-compatible needs --pcg-base-url (e.g. http://localhost:11434/v1)")
        return OpenAIBackend(model=model, base_url=url, name="openai-compatible")
    if kind in NATIVE_KINDS:
        return native_backend(kind, model, base_url)
    if kind == "transformers":
        from pcg_plugin.llm.transformers_backend import TransformersBackend

        if not model:
            raise ValueError("--pcg-backend transformers needs --pcg-model <folder or hub id>")
        path = model
        gguf = None
        if model.endswith(".gguf"):
            from pathlib import Path

            path, gguf = str(Path(model).parent), Path(model).name
        return TransformersBackend(
            path,
            device=device,
            gguf_file=gguf,
            threads=threads,
            constrain=constrain,
            function=function,
            answer_regex=answer_regex,
        )
    if kind == "offline":
        from pcg_plugin.llm.transformers_backend import offline_default

        return offline_default(
            device=device,
            few_shot=few_shot,
            threads=threads,
            constrain=constrain,
            function=function,
            answer_regex=answer_regex,
        )
    if kind == "scripted":
        from pcg_plugin.llm.scripted import ScriptedBackend

        return ScriptedBackend(lambda messages, n: [""] * n)
    raise ValueError(f"unknown backend {kind!r}: expected one of {', '.join(BACKEND_KINDS)}")


def native_backend(kind: str, model: str | None, base_url: str | None) -> Any:
    """The Anthropic or Gemini backend (``kind``); the model is named (no edition's official model is theirs) and
    the SDK is an optional extra, so a missing one says which extra to install."""
    if not model:
        raise ValueError(f"--pcg-backend {kind} needs --pcg-model (e.g. {EXAMPLE_MODELS[kind]})")
    try:
        if kind == "anthropic":
            from pcg_plugin.llm.anthropic_backend import AnthropicBackend

            __import__("anthropic")
            return AnthropicBackend(model=model, base_url=base_url)
        from pcg_plugin.llm.gemini_backend import GeminiBackend

        __import__("google.genai")
        return GeminiBackend(model=model, base_url=base_url)
    except ImportError as exc:
        raise ValueError(
            f"--pcg-backend {kind} needs its SDK: pip install 'pytest-pcg[{kind}]' ({exc.name} is missing)"
        ) from exc


EXAMPLE_MODELS = {"anthropic": "claude-sonnet-4-6", "gemini": "gemini-3-flash"}
