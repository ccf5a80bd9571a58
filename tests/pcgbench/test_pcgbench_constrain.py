"""The offline default's answer grammar on PCG Benchmark variants (`--pcg-constrain content`): whatever an
in-process model samples under a variant's `answer_regex` is a reply that parses into a content the variant
accepts, within the token room the kind asks for; and the option resolves per problem."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names
from pcg_plugin.problems.pcgbench.settings import resolve

KEY = {"OPENAI_API_KEY": "sk-test"}


def test_the_content_grammar_is_on_for_the_offline_default_only(tmp_path: Path) -> None:
    assert resolve("binary-v0", {}, rootdir=tmp_path, env={}).constrain == "content"
    assert resolve("binary-v0", {"pcg_model": "m"}, rootdir=tmp_path, env=KEY).constrain == "off"
    assert resolve("binary-v0", {"pcg_constrain": "off"}, rootdir=tmp_path, env={}).constrain == "off"
    with pytest.raises(ValueError, match="not one of content, off"):
        resolve("binary-v0", {"pcg_constrain": "drop_block"}, rootdir=tmp_path, env={})
    with pytest.raises(ValueError, match="needs an in-process model"):
        resolve("binary-v0", {"pcg_constrain": "content", "pcg_model": "m"}, rootdir=tmp_path, env=KEY)


@pytest.fixture(scope="module")
def tok() -> Any:
    pytest.importorskip("llguidance")
    pytest.importorskip("gguf")
    from transformers import AutoTokenizer

    from pcg_plugin.llm.transformers_backend import offline_default

    path, _ = offline_default()._converted()
    return AutoTokenizer.from_pretrained(path)


@pytest.fixture(scope="module")
def random_model(tok: Any) -> Any:
    """A test double: a one-layer Llama with random weights over SmolLM2's vocabulary."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
    )
    return LlamaForCausalLM(config).eval()


@pytest.mark.parametrize(
    "name",
    [
        "sokoban-v0",
        *(
            pytest.param(n, marks=pytest.mark.slow)  # ~30 s each
            for n in ("binary-v0", "zelda-v0", "building-v0")
        ),
    ],
)
def test_a_random_model_under_the_grammar_writes_a_content_the_variant_accepts(tok, random_model, name):
    import torch

    from pcg_plugin.llm import constrain

    kind = get_problem(name).content
    ids = tok.apply_chat_template(
        [{"role": "user", "content": f"Design a {name} level."}],
        add_generation_prompt=True,
        return_tensors="pt",
        return_dict=True,
    )["input_ids"]
    torch.manual_seed(1)
    toks, grammar = constrain.generate(
        random_model,
        tok,
        ids,
        regex=kind.answer_regex(),
        max_new_tokens=constrain.answer_budget(kind.answer_regex()),
        sampling={"temperature": 1.0},
    )
    text = tok.decode(toks)
    assert grammar.done and re.fullmatch(kind.answer_regex(), text), text
    content, problem = kind.parse(text)
    assert problem is None and evaluate_item(get_problem(name), content)["valid"]


GRAMMAR_VARIANTS = [n for n in names() if get_problem(n).content.answer_regex()]


@pytest.mark.parametrize("name", GRAMMAR_VARIANTS)
def test_the_token_budget_holds_the_longest_level_the_variant_shows(tok, name):
    """The offline default's answer budget fits every example and sampled content as the real tokenizer counts
    it (SmolLM2 takes a token a digit: Lode Runner's two-digit pattern codes, smb's slice ids and talakat's
    spawner values did not fit the earlier hand estimates, so those answers were cut off before their fence)."""
    import numpy as np

    from pcg_plugin.llm.constrain import FREE_TEXT_TOKENS, answer_budget

    problem = get_problem(name)
    kind = problem.content
    room = answer_budget(kind.answer_regex()) - FREE_TEXT_TOKENS
    for content in [*problem.examples, *(kind.sample(np.random.default_rng(seed)) for seed in range(3))]:
        shown = kind.show(content)
        assert re.fullmatch(kind.answer_regex(), shown)  # what the budget is computed from is what a reply writes
        assert len(tok.encode(shown, add_special_tokens=False)) <= room


def test_the_budget_is_the_free_text_then_a_token_a_character_of_the_widest_answer():
    from pcg_plugin.llm.constrain import FREE_TEXT_TOKENS, answer_budget

    assert answer_budget("[^`]*```\n([0-1]{3}\n){2}```") == FREE_TEXT_TOKENS + (3 + 1 + 4 * 2 + 3) + 8
    assert answer_budget("[^`]*```json\n(1|22|333)\n```") == FREE_TEXT_TOKENS + (8 + 3 + 1 + 3) + 8
