"""A Science Birds, a PCG Benchmark and a GameEval run on ``--pcg-backend anthropic`` and ``--pcg-backend gemini``,
each vendor's SDK pointed at a loopback fake of its wire format (tests/loopback_anthropic.py,
tests/loopback_gemini.py): every request the server received is a call in the store, and a rerun with
``--pcg-record none`` sends nothing and scores the same. The runs are real ``python -m pytest`` processes
(tests/fault_cases.py lays out each competition)."""

from __future__ import annotations

from pathlib import Path

import pytest

SDK = {"anthropic": "anthropic", "gemini": "google.genai"}
SLOW = pytest.mark.slow


# The default command runs each provider on GameEval; the others are `slow` (Science Birds goes through the same
# provider code; the OpenAI wire's runs of it are everywhere else):
# a PCG Benchmark run on each provider, every reply stored and replayed without a request, is also the clean team of
# tests/sandbox/test_faults.py's native-provider suite (its first and third runs), and Gemini's Science Birds run
# goes through the same problem as Anthropic's.
@pytest.mark.parametrize(
    ("provider", "problem"),
    [
        pytest.param("anthropic", "sb2024", marks=SLOW),
        pytest.param("anthropic", "pcgbench", marks=SLOW),
        ("anthropic", "gameeval"),
        pytest.param("gemini", "sb2024", marks=SLOW),
        pytest.param("gemini", "pcgbench", marks=SLOW),
        ("gemini", "gameeval"),
    ],
)
def test_a_run_on_a_native_provider_stores_every_reply_and_replays_without_a_request(
    tmp_path: Path, provider: str, problem: str
) -> None:
    pytest.importorskip(SDK[provider], reason=f"the {provider} SDK (pip install -e '.[{provider}]') is not installed")
    from fault_cases import PROBLEMS, PROVIDER_MODELS, FaultServer, outcomes, run_pytest, scores, serve

    p = PROBLEMS[problem]
    args = p.setup(tmp_path, {"t1": None}, {"trials": 2})
    with serve(FaultServer(p.answer), provider) as server:
        first = run_pytest(tmp_path, server, p, args, "out1", cache=False, provider=provider)
        assert first.returncode == 0, first.output[-3000:]
        assert first.requests == first.answered == first.recorded > 0  # requests received = calls stored
        assert all(o == ["ok", "ok"] for o in outcomes(first.results).values()), outcomes(first.results)
        assert "UNOFFICIAL RUN" in first.output and PROVIDER_MODELS[provider] in str(first.results)
        assert first.results is not None and first.results["settings"]["backend"] == provider

        again = run_pytest(tmp_path, server, p, args, "out2", "--pcg-record", "none", cache=False, provider=provider)
        assert again.returncode == 0, again.output[-3000:]
        assert again.requests == 0 and again.recorded == first.recorded
        assert outcomes(again.results) == outcomes(first.results) and scores(again.results) == scores(first.results)
