"""The pre-flight estimate reads the real size of the prompts it knows (pcg_plugin/llm/estimate.py)."""

from __future__ import annotations

import re

import loopback_llm
import pytest

from pcg_plugin.llm.store import ResponseStore


def test_known_prompts_count_as_they_are_and_the_others_as_the_per_call_figure(tmp_path) -> None:
    from pcg_plugin.llm.estimate import estimate_from_store, tokens_in, with_known_prompts

    assert tokens_in(5_000_000) == 1_250_004
    assert with_known_prompts(1000, 2, [1_250_004]) == pytest.approx((1_250_004 + 1000) / 2)
    assert with_known_prompts(1000, 3, []) == 1000
    est = estimate_from_store(
        ResponseStore(tmp_path),
        submissions=1,
        letters=26,
        trials=10,
        model="gpt-3.5-turbo-0125",
        edition="2024",
        known_prompt_tokens=[1_250_004],
    )
    assert est.prompt_tokens == 260 * 1_250_004  # 260 calls of the 5 MB prompt, not 260 x 1,000
    assert est.cost_usd == pytest.approx((260 * 1_250_004 * 0.5 + 260 * 300 * 1.5) / 1e6)


def test_a_5_mb_prompt_is_estimated_at_its_size_before_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("PCG_CACHE_DIR", str(pytester.path / "cache"))
    (pytester.path / "submissions").mkdir()
    (pytester.path / "submissions" / "huge.txt").write_text("Draw <OBJECT> with blocks. " + "x" * 5_000_000)
    with loopback_llm.serve(loopback_llm.FakeOpenAI()) as server:
        result = pytester.runpytest(
            "submissions",
            "--pcg-backend",
            "openai",
            "--pcg-base-url",
            server.url,
            "--pcg-model",
            "gpt-3.5-turbo-0125",
            "--pcg-letters",
            "A,B",
            "--pcg-trials",
            "1",
            "--pcg-out",
            "out",
            "--pcg-store",
            "store",
            "--co",
            "-p",
            "no:cacheprovider",
        )
        assert server.bodies == []
    line = next(line for line in result.outlines if "pre-flight estimate" in line)
    prompt = int(re.search(r"\(([\d,]+) prompt", line).group(1).replace(",", ""))
    assert prompt == (len("Draw <OBJECT> with blocks. ") + 5_000_000) // 4 + 4  # about 4 characters a token; not 1,000
