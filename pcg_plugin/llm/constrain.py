"""Grammar-constrained decoding for in-process models: every answer ends in one fenced block of the problem's form.

Two forms: ``drop_block`` (Science Birds, below) and ``content`` (a PCG Benchmark variant: its content kind's
``answer_regex``, e.g. a block of exactly H rows of W tile codes; the caller passes the regex). What follows
describes drop_block; the free-text budget and the fast-forwarding work the same for both.

A 135M model rarely writes the fenced ``drop_block`` block on its own. Under this constraint it still chooses every
token (how much to say first, block types, columns, how many lines), but decoding only allows text of the form

    free text without backticks, then ```[python]\\n, then 1..MAX_LINES lines fn('b11'|'b13'|'b31', 0..19)\\n, then ```

where ``fn`` is the edition's function (``drop_block``; ``ab_drop`` in 2023). The grammar is matched token by
token by llguidance (why that library: docs/models.md). On top of the grammar a token budget keeps every
answer complete: the free text gets at most ``FREE_TEXT_TOKENS`` tokens, and once the remaining tokens could not
finish another line the block is closed; both work by allowing only backtick tokens where the grammar allows one.
"""

from __future__ import annotations

import inspect
import re
import threading
from typing import Any

from pcg_plugin.errors import InfrastructureError

CONSTRAIN_MODES = ("drop_block", "content", "off")
BLOCK_TYPES = ("b11", "b13", "b31")
MAX_LINES = 20
FREE_TEXT_TOKENS = 24
# The longest line, "drop_block('b31', 19)\n", is 22 characters, so it never takes more than 22 tokens; one more
# for the closing fence and one for the end-of-sequence token.
WRAP_UP_TOKENS = 24


def answer_budget(regex: str) -> int:
    """The most new tokens an answer in ``regex``'s language can take: the free-text budget, then at most one token
    a character of the rest (the answers are ASCII, and no tokenizer needs more than a token a character; SmolLM2
    takes one a digit). Generation stops when the grammar completes, so a generous budget costs nothing, while a
    short one cuts a long level off before its closing fence."""
    try:
        import re._parser as regex_parser  # Python 3.11+
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse as regex_parser

    fenced = regex.split("```", 1)
    widest = regex_parser.parse("```" + fenced[1]).getwidth()[1] if len(fenced) == 2 else len(regex)
    return FREE_TEXT_TOKENS + widest + 8  # 8: the end of the answer and a little slack


def answer_regex(function: str = "drop_block", max_lines: int = MAX_LINES) -> str:
    """The regular language of a constrained answer (see the module docstring)."""
    types = "|".join(BLOCK_TYPES)
    line = rf"{re.escape(function)}\('({types})', (1?[0-9])\)\n"
    return rf"[^`]*```(python)?\n({line}){{1,{max_lines}}}```"


def resolve_mode(
    value: str | None,
    *,
    backend: str | None,
    offline: bool,
    model: str | None,
    official_model: str | None = None,
    edition: str = "",
    on: str = "drop_block",
) -> str:
    """``--pcg-constrain``: ``on`` (the problem's form: drop_block, content) by default for the offline default
    model only; only in-process models can be constrained, and never the edition's official model
    (``official_model``: its answers must stay its own)."""
    if value is None:
        return on if offline else "off"
    if value not in (on, "off"):
        raise ValueError(f"--pcg-constrain: {value!r} is not one of {on}, off for this problem")
    if value != "off":
        if not (offline or backend == "transformers"):
            raise ValueError(
                f"--pcg-constrain {value} needs an in-process model (--pcg-backend offline or "
                "transformers); HTTP backends and the official models are never constrained"
            )
        if model and model == official_model:
            raise ValueError(
                f"--pcg-constrain {value}: {model} is the {edition} edition's official model, "
                "whose answers are never constrained"
            )
    return value


_VOCABS: dict[int, tuple[Any, Any, Any]] = {}
_VOCABS_LOCK = threading.Lock()


def grammar_vocab(tok: Any) -> tuple[Any, Any]:
    """llguidance's view of a fast Hugging Face tokenizer and the tokens holding a backtick (how a fence starts
    or ends); about 1 s to build, so once per tokenizer."""
    with _VOCABS_LOCK:
        if id(tok) not in _VOCABS:
            try:
                import llguidance.hf
            except ImportError as exc:
                raise InfrastructureError(
                    "--pcg-constrain drop_block needs llguidance: pip install -e '.[offline-llm]' "
                    "(or --pcg-constrain off)"
                ) from exc
            _VOCABS[id(tok)] = (tok, llguidance.hf.from_tokenizer(tok), backtick_tokens(tok))
        return _VOCABS[id(tok)][1:]


def backtick_tokens(tok: Any) -> Any:
    """A bool tensor over the tokenizer's ids: the tokens whose text contains a backtick."""
    import torch

    vocab = tok.get_vocab()
    out = torch.zeros(max(vocab.values()) + 1, dtype=torch.bool)
    for text, idx in vocab.items():
        if "`" in tok.convert_tokens_to_string([text]):
            out[idx] = True
    return out


def unpack_bitmask(bitmask: Any, vocab_size: int) -> Any:
    """llguidance's int32 bitmask (rows x ceil(V/32), bit i of word w = token 32w+i) -> bool rows x V."""
    import torch

    bits = (bitmask.unsqueeze(-1) >> torch.arange(32, dtype=torch.int32)) & 1
    return bits.reshape(bitmask.shape[0], -1)[:, :vocab_size].bool()


class AnswerGrammar:
    """One answer's grammar state: which tokens may come next, and which text is forced."""

    def __init__(
        self,
        tok: Any,
        *,
        function: str = "drop_block",
        max_new_tokens: int,
        free_text_tokens: int = FREE_TEXT_TOKENS,
        max_lines: int = MAX_LINES,
        regex: str | None = None,
    ) -> None:
        """``regex``: the whole answer's language (a PCG Benchmark variant's); None: drop_block lines of
        ``function``."""
        self.ll, self.backticks = grammar_vocab(tok)  # first: says how to install llguidance when it is missing
        import llguidance

        self.matcher = llguidance.LLMatcher(
            self.ll, llguidance.LLMatcher.grammar_from_regex(regex or answer_regex(function, max_lines)), log_level=0
        )
        if self.matcher.is_error():
            raise InfrastructureError(f"constrained decoding: the grammar was refused: {self.matcher.get_error()}")
        self.max_new_tokens, self.free_text_tokens = max_new_tokens, free_text_tokens
        self.eos = int(tok.eos_token_id)
        self.generated = 0
        self.fenced = False  # free text has no backticks, so the first backtick token opens the fence
        self.mask_seconds, self.steps = 0.0, 0  # mask time and sampled tokens (scripts/bench/bench_constrain.py)

    @property
    def done(self) -> bool:
        return self.matcher.is_stopped()

    def allowed(self, vocab: int) -> Any:
        """A bool row over the model's ``vocab`` logits: the grammar's mask, narrowed to backtick tokens (close
        the block, or open it after the free-text budget) where the budget says so and the grammar allows one."""
        import time

        import llguidance.numpy as lln  # not llguidance.torch: its torch.compile kernel (unused here) imports
        import torch  # torch's inductor at import, which warns about torch.jit.script_method on every process

        t = time.perf_counter()
        mask = lln.allocate_token_bitmask(1, self.ll.vocab_size)
        lln.fill_next_token_bitmask(self.matcher, mask, 0)
        bitmask = torch.from_numpy(mask)
        allowed = torch.zeros(vocab, dtype=torch.bool)
        n = min(vocab, self.ll.vocab_size)
        allowed[:n] = unpack_bitmask(bitmask, n)[0]
        remaining = self.max_new_tokens - self.generated
        if remaining <= WRAP_UP_TOKENS or (not self.fenced and self.generated >= self.free_text_tokens):
            backticks = torch.zeros(vocab, dtype=torch.bool)
            m = min(vocab, len(self.backticks))
            backticks[:m] = self.backticks[:m]
            closing = allowed & backticks
            if bool(closing.any()):
                allowed = closing
        self.mask_seconds += time.perf_counter() - t
        self.steps += 1
        return allowed

    def consume(self, tokens: list[int]) -> None:
        for token in tokens:
            if not self.matcher.consume_token(token):
                raise InfrastructureError(
                    f"constrained decoding: token {token} left the grammar: {self.matcher.get_error()}"
                )
            self.generated += 1
            self.fenced = self.fenced or (token < len(self.backticks) and bool(self.backticks[token]))

    def forced(self) -> list[int]:
        """The tokens the grammar forces next (llguidance's fast-forward), within the token budget."""
        if self.done:
            return []
        forced = list(self.matcher.compute_ff_tokens())
        if self.eos in forced:  # the end of the answer is sampled like any other stop, never fed to the model
            forced = forced[: forced.index(self.eos)]
        return forced[: max(0, self.max_new_tokens - self.generated)]


def warpers(sampling: dict[str, float]) -> Any:
    """transformers' own temperature, top-k and top-p warpers, in generate()'s order."""
    from transformers import LogitsProcessorList, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

    out = LogitsProcessorList()
    temperature = float(sampling.get("temperature", 1.0))
    if temperature != 1.0:
        out.append(TemperatureLogitsWarper(temperature))
    if int(sampling.get("top_k", 0) or 0) > 0:
        out.append(TopKLogitsWarper(int(sampling["top_k"])))
    if float(sampling.get("top_p", 1.0)) < 1.0:
        out.append(TopPLogitsWarper(float(sampling["top_p"])))
    return out


def cache_keyword(model: Any) -> str:
    """The name of the KV cache, in the model's forward and in its output: ``cache`` since transformers 5.x
    deprecated ``past_key_values`` (a FutureWarning on every forward pass), ``past_key_values`` before."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def generate(
    model: Any,
    tok: Any,
    input_ids: Any,
    *,
    function: str = "drop_block",
    max_new_tokens: int,
    sampling: dict[str, float] | None,
    fast_forward: bool = True,
    regex: str | None = None,
) -> tuple[list[int], AnswerGrammar]:
    """One answer under the grammar, sampled token by token with the model's KV cache.

    ``sampling`` (temperature, top_k, top_p: what the backend would pass to ``generate``) None is greedy
    decoding. Where the grammar allows a single continuation (``_block('b`` after
    ``drop``), ``fast_forward`` appends those tokens without sampling them, in one forward pass: the text is the
    same as sampling them one by one (each would be the only allowed token), at a fraction of the passes.
    Returns the new tokens (the end-of-sequence token excluded) and the grammar state (for its timings).
    """
    import torch

    grammar = AnswerGrammar(tok, function=function, max_new_tokens=max_new_tokens, regex=regex)
    warp = warpers(sampling) if sampling is not None else None
    out_tokens: list[int] = []
    feed, past = input_ids, None
    cache = cache_keyword(model)
    while not grammar.done and grammar.generated < max_new_tokens:
        with torch.inference_mode():
            out = model(input_ids=feed, use_cache=True, **{cache: past})
        past = getattr(out, cache)
        logits = out.logits[:, -1, :].float()
        logits = logits.masked_fill(~grammar.allowed(int(logits.shape[-1])).to(logits.device), float("-inf"))
        if warp is None:
            token = int(logits.argmax(-1))
        else:
            scores = warp(feed, logits)
            token = int(torch.multinomial(torch.softmax(scores, dim=-1), 1))
        grammar.consume([token])
        if token == grammar.eos:
            break  # not part of the answer
        step = [token, *(grammar.forced() if fast_forward else [])]
        grammar.consume(step[1:])
        out_tokens.extend(step)
        if grammar.done:
            break  # the closing fence: the matcher allows nothing but the end
        feed = torch.tensor([step], dtype=input_ids.dtype, device=input_ids.device)
    return out_tokens, grammar
