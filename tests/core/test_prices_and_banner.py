"""The price table (a data file, --pcg-prices), the rate-limit options beside their variables, the trial record's
columns and the unofficial-run banner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pcg_plugin._util import prices
from pcg_plugin.core.contract.banner import unofficial
from pcg_plugin.core.records import trials
from pcg_plugin.llm.estimate import usage_cost
from pcg_plugin.llm.options import export_limits


def test_the_shipped_table_prices_current_models_and_cites_its_source():
    table = prices.load()
    assert table.price("gpt-4o-mini") == (0.15, 0.60) and table.price("gpt-3.5-turbo-0125") == (0.50, 1.50)
    assert table.cost("gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    doc = json.loads(prices.DEFAULT_FILE.read_text())
    assert doc["source"] and doc["retrieved"]
    assert table.cost("my-local-model", 10, 10) is None and prices.cost_text(None) == "unknown price"


def test_a_price_file_replaces_the_table_and_a_bad_one_names_itself(tmp_path: Path, monkeypatch):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"models": {"house-model": [2, 4]}}))
    monkeypatch.setenv(prices.ENV, str(path))
    assert usage_cost("house-model", 500_000, 250_000) == pytest.approx(2.0)
    assert usage_cost("gpt-4o-mini", 1, 1) is None  # the file replaces the table, it does not extend it
    path.write_text("{}")
    with pytest.raises(ValueError, match=str(path)):
        prices.load(path)


def test_rate_limit_and_price_options_set_the_variables_every_process_reads(tmp_path: Path):
    env: dict[str, str] = {}
    (tmp_path / "p.json").write_text(json.dumps({"models": {}}))
    export_limits({"pcg_rpm": "60", "pcg_tpm": "90000", "pcg_prices": "p.json", "pcg_concurrency": None}, tmp_path, env)
    assert env == {"PCG_RPM": "60", "PCG_TPM": "90000", "PCG_PRICES": str(tmp_path / "p.json")}
    with pytest.raises(ValueError, match="--pcg-rpm: 'fast' is not a number"):
        export_limits({"pcg_rpm": "fast"}, tmp_path, {})
    with pytest.raises(ValueError, match="--pcg-tpm: 0 must be above 0"):
        export_limits({"pcg_tpm": "0"}, tmp_path, {})
    with pytest.raises(ValueError, match="--pcg-prices: price table"):
        export_limits({"pcg_prices": "missing.json"}, tmp_path, {})


def test_a_trial_row_is_the_twelve_columns_then_the_problems_own():
    row = trials.row(
        problem="p",
        submission="s",
        model="gpt-4o-mini",
        target="A",
        trial=2,
        score=0.5,
        reason=None,
        usage={"calls": 1, "prompt_tokens": 1_000_000, "completion_tokens": 0},
        own={"quality": 1, "score": 7},
    )
    assert list(row) == [*trials.COLUMNS, "quality", "own_score"]
    (priced,) = trials.priced([row], prices.load())
    assert priced["cost_usd"] == pytest.approx(0.15)
    (unpriced,) = trials.priced([{**row, "model": "local"}], prices.load())
    assert unpriced["cost_usd"] is None


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"backend": "scripted"}, "a test double"),
        ({"backend": None, "offline_default": True}, "the offline default LLM"),
        ({"backend_used": {"name": "offline", "offline_default": True}}, "the offline default LLM"),
        ({"backend": "openai", "offline_default": False}, None),
        ({"backend": "openai", "offline_default": True}, None),  # an explicit backend: a real model answered
        ({"backend": None, "model": "openai/gpt-4o,scripted/m:f"}, "a test double"),  # one entry is a double
        ({"backend": None, "model": "openai/gpt-4o,anthropic/claude-sonnet-4-5"}, "Anthropic's Claude"),
        ({"backend": None, "model": "openai/gpt-4o,meta-llama/Llama-3.3-70B-Instruct"}, None),
    ],
)
def test_the_banner_says_who_answered(settings, words):
    text = unofficial(settings)
    assert (text is None) if words is None else (text.startswith("UNOFFICIAL RUN") and words in text)


def test_the_rate_limit_options_reach_the_environment_of_a_real_run(tmp_path: Path, monkeypatch):
    """What a run's settings do with ``--pcg-rpm``: the variable the workers and the limiter read is set in this
    process, over one already set (Science Birds resolved its options against ``os.environ`` itself, so the
    option only reached a copy, and no run was limited)."""
    import os

    from pcg_plugin.problems.pcgbench.settings import resolve as bench
    from pcg_plugin.problems.science_birds.settings import resolve as birds

    for resolve in (birds, lambda raw, **kw: bench("binary-v0", raw, **kw)):
        monkeypatch.setenv("PCG_RPM", "1")
        resolve({"pcg_rpm": "60", "pcg_backend": "scripted", "pcg_model": "m"}, rootdir=tmp_path)
        assert os.environ["PCG_RPM"] == "60"
