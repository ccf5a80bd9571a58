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


def test_a_suite_is_estimated_over_every_problem_at_the_per_call_figures_the_store_has() -> None:
    """Every problem's trials count, at what the store recorded for the model over any problem (2 calls a trial
    of 500 + 100 tokens here), and nothing is estimated for a run that pays no model."""
    from types import SimpleNamespace as NS

    from pcg_plugin.llm.estimate import paid_backend, suite_estimate, suite_text

    call = NS(prompt_tokens=500, completion_tokens=100)

    class Store:
        def trials(self, *, model: str):
            assert model == "gpt-4o"
            return [NS(calls=[call, call])] * 3

    est = suite_estimate(
        [("pcgbench/binary-v0", 18), ("pcgbench/smb-v0", 6), ("imagegame", 0)], model="gpt-4o", store=Store()
    )
    assert (est.trials, est.calls) == (24, 48)
    assert est.cost_usd == pytest.approx((48 * 500 * 2.50 + 48 * 100 * 10.00) / 1e6)
    assert est.text().startswith("pre-flight estimate over the suite: 2 problems, 24 trials at most")
    assert suite_estimate([("a", 10)], model="gpt-4o").calls == 10  # no store: one call a trial
    paid = NS(backend="openai-compatible", record="once", offline_default=False, model="gpt-4o", store=None)
    assert paid_backend(paid) == "openai-compatible"
    assert paid_backend(NS(backend=None, record="once", offline_default=False)) == "openai"
    for unpaid in ({"backend": "scripted"}, {"record": "none"}, {"backend": None, "offline_default": True}):
        assert suite_text(NS(**{**vars(paid), **unpaid}), [("a", 10)]) is None
    assert "~$0.11" in (suite_text(paid, [("a", 10), ("b", 10)]) or "")  # 20 x (1,000 x 2.50 + 300 x 10.00) / 1e6
