"""Benchmark grammar-constrained decoding on the offline default model (SmolLM2-135M, CPU).

Two parts:
  --libraries  the per-token cost of computing the next-token mask for the drop_block language, for each
               structured-generation library that is installed (llguidance, xgrammar, outlines-core,
               lm-format-enforcer, transformers-cfg), on one fixed answer; a library that fails says why.
  --generate   end-to-end generation: ms per generated token free (model.generate), under the grammar token by
               token, and under the grammar with llguidance's fast-forward of forced tokens (what the plugin uses).

    OMP_NUM_THREADS=1 python scripts/bench/bench_constrain.py --libraries --generate --calls 6
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pcg_plugin.llm.constrain import answer_regex

ANSWER = (
    "To build the letter I, stack vertical bars.\n```python\ndrop_block('b13', 10)\ndrop_block('b13', 10)\n"
    "drop_block('b31', 10)\ndrop_block('b11', 9)\n```"
)
PROMPT = (
    "Build the uppercase letter {letter} out of blocks with drop_block('b11'|'b13'|'b31', x) calls, x from 0 "
    "to 19, in one code block fenced by triple backticks."
)


def _llguidance(tok: Any, regex: str, ids: list[int]) -> list[float]:
    import llguidance
    import llguidance.hf
    import llguidance.torch as llt

    matcher = llguidance.LLMatcher(llguidance.hf.from_tokenizer(tok), llguidance.LLMatcher.grammar_from_regex(regex))
    bitmask = llt.allocate_token_bitmask(1, len(tok))
    times = []
    for token in ids:
        t = time.perf_counter()
        llt.fill_next_token_bitmask(matcher, bitmask, 0)
        times.append(time.perf_counter() - t)
        assert matcher.consume_token(token), matcher.get_error()
    return times


def _xgrammar(tok: Any, regex: str, ids: list[int]) -> list[float]:
    import xgrammar as xgr

    info = xgr.TokenizerInfo.from_huggingface(tok, vocab_size=len(tok))
    matcher = xgr.GrammarMatcher(xgr.GrammarCompiler(info).compile_regex(regex))
    bitmask = xgr.allocate_token_bitmask(1, len(tok))
    times = []
    for token in ids:
        t = time.perf_counter()
        matcher.fill_next_token_bitmask(bitmask)
        times.append(time.perf_counter() - t)
        assert matcher.accept_token(token)
    return times


def _outlines_core(tok: Any, regex: str, ids: list[int]) -> list[float]:
    from outlines_core import Guide, Index, Vocabulary

    vocab: dict[str, list[int]] = {}
    for text, idx in tok.get_vocab().items():
        if idx != tok.eos_token_id:  # decoded text: outlines-core does not undo byte-level BPE for a hand-made one
            vocab.setdefault(tok.convert_tokens_to_string([text]), []).append(idx)
    guide = Guide(Index(regex, Vocabulary(tok.eos_token_id, vocab)))
    times = []
    for token in ids:
        t = time.perf_counter()
        allowed = guide.get_tokens()
        times.append(time.perf_counter() - t)
        assert token in allowed
        guide.advance(token)
    return times


def _lm_format_enforcer(tok: Any, regex: str, ids: list[int]) -> list[float]:
    from lmformatenforcer import RegexParser, TokenEnforcer
    from lmformatenforcer.tokenenforcer import TokenEnforcerTokenizerData

    try:
        import lmformatenforcer.integrations.transformers  # noqa: F401 - only to see whether it imports here
    except ImportError as exc:
        print(
            f"  (its transformers integration does not import under transformers 5: {exc}; "
            "tokenizer data built here the way it would)"
        )
    zero = tok.encode("0")[-1]
    regular = []
    for idx in range(len(tok)):
        if idx in tok.all_special_ids:
            continue
        after_zero, alone = tok.decode([zero, idx])[1:], tok.decode([idx])
        regular.append((idx, after_zero, len(after_zero) > len(alone)))
    data = TokenEnforcerTokenizerData(
        regular, lambda t: tok.decode(t).rstrip("\ufffd"), tok.eos_token_id, False, len(tok)
    )
    enforcer = TokenEnforcer(data, RegexParser(regex))
    times, prefix = [], []
    for token in ids:
        t = time.perf_counter()
        allowed = enforcer.get_allowed_tokens(prefix)
        times.append(time.perf_counter() - t)
        assert token in getattr(allowed, "allowed_tokens", allowed)
        prefix.append(token)
    return times


def _transformers_cfg(tok: Any, regex: str, ids: list[int]) -> list[float]:
    import torch
    from transformers_cfg.generation.logits_process import GrammarConstrainedLogitsProcessor
    from transformers_cfg.grammar_utils import IncrementalGrammarConstraint

    grammar = r"""root ::= text "```" lang "\n" line+ "```"
text ::= [^`]*
lang ::= "python" | ""
line ::= "drop_block('" ty "', " num ")\n"
ty ::= "b11" | "b13" | "b31"
num ::= [0-9] | "1" [0-9]"""
    proc = GrammarConstrainedLogitsProcessor(IncrementalGrammarConstraint(grammar, "root", tok))
    times, seq = [], torch.tensor([[tok.bos_token_id or 0]])
    for token in ids:
        t = time.perf_counter()
        scores = proc(seq, torch.zeros(1, len(tok)))
        times.append(time.perf_counter() - t)
        assert scores[0, token] > -1e9
        seq = torch.cat([seq, torch.tensor([[token]])], dim=1)
    return times


LIBRARIES: dict[str, Callable[[Any, str, list[int]], list[float]]] = {
    "llguidance": _llguidance,
    "xgrammar": _xgrammar,
    "outlines-core": _outlines_core,
    "lm-format-enforcer": _lm_format_enforcer,
    "transformers-cfg": _transformers_cfg,
}


def bench_libraries(tok: Any) -> None:
    regex, ids = answer_regex("drop_block"), tok.encode(ANSWER)
    print(f"mask per token over {len(ids)} tokens of one answer (vocabulary {len(tok)}), setup included once:")
    for name, run in LIBRARIES.items():
        t = time.perf_counter()
        try:
            times = run(tok, regex, ids)
        except Exception as exc:  # noqa: BLE001 - a library that does not work here is a result, not a crash
            print(f"  {name:20s} FAILED: {type(exc).__name__}: {str(exc)[:160]}")
            continue
        total = time.perf_counter() - t
        print(
            f"  {name:20s} {1000 * statistics.mean(times):8.3f} ms mean, {1000 * statistics.median(times):8.3f} ms "
            f"median, {1000 * max(times):8.2f} ms max; setup + run {total:.2f} s"
        )


def bench_generate(calls: int, max_new_tokens: int) -> None:
    import torch

    from pcg_plugin.llm import constrain
    from pcg_plugin.llm.transformers_backend import OFFLINE_SAMPLING, offline_default

    tok, model = offline_default(threads=torch.get_num_threads())._load()
    modes = ("free", "grammar", "grammar+fast-forward")
    per_token: dict[str, list[float]] = {m: [] for m in modes}
    mask_ms: dict[str, list[float]] = {m: [] for m in modes}
    for i in range(calls + 1):
        letter = "ILTHEX"[i % 6]
        ids = tok.apply_chat_template(
            [{"role": "user", "content": PROMPT.format(letter=letter)}],
            add_generation_prompt=True,
            return_tensors="pt",
            return_dict=True,
        )
        for mode in modes:
            torch.manual_seed(i)
            t = time.perf_counter()
            if mode == "free":
                with torch.inference_mode():
                    out = model.generate(
                        **ids,
                        max_new_tokens=max_new_tokens,
                        do_sample=True,
                        pad_token_id=tok.eos_token_id,
                        **OFFLINE_SAMPLING,
                    )
                n = int(out.shape[1] - ids["input_ids"].shape[1])
            else:
                toks, grammar = constrain.generate(
                    model,
                    tok,
                    ids["input_ids"],
                    function="drop_block",
                    max_new_tokens=max_new_tokens,
                    sampling=OFFLINE_SAMPLING,
                    fast_forward=mode.endswith("fast-forward"),
                )
                n = len(toks)
                mask_ms[mode].append(1000 * grammar.mask_seconds / max(1, grammar.steps))
            dt = time.perf_counter() - t
            if i == 0:
                continue  # warm-up
            per_token[mode].append(1000 * dt / max(1, n))
            print(f"call {i} {letter} {mode:22s} {n:4d} tokens {dt:6.2f} s {1000 * dt / max(1, n):7.1f} ms/token")
    print(f"median ms per generated token over {calls} calls (torch threads {torch.get_num_threads()}):")
    for mode in modes:
        extra = f", mask {statistics.median(mask_ms[mode]):.2f} ms per sampled token" if mask_ms[mode] else ""
        print(f"  {mode:22s} {statistics.median(per_token[mode]):7.1f} ms/token{extra}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--libraries", action="store_true", help="compare the libraries' mask cost per token")
    ap.add_argument("--generate", action="store_true", help="free vs constrained generation, ms per token")
    ap.add_argument("--calls", type=int, default=6)
    ap.add_argument("--max-new-tokens", type=int, default=160)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1, as one of two xdist workers)")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    if args.libraries:
        from pcg_plugin.llm.transformers_backend import offline_default

        bench_libraries(offline_default()._load()[0])
    if args.generate:
        bench_generate(args.calls, args.max_new_tokens)
    if not (args.libraries or args.generate):
        ap.error("choose --libraries and/or --generate")


if __name__ == "__main__":
    main()
