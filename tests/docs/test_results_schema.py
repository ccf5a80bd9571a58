"""docs/results-schema.md's generated section is what scripts/figures/results_schema.py makes from the code now: a new
trial column, a renamed field of the typed results, or a problem that moves its rank_interval fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("results_schema", REPO / "scripts" / "figures" / "results_schema.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_section_is_current():
    script = _script()
    text = script.PAGE.read_text(encoding="utf-8")
    assert script.START in text, "run python scripts/figures/results_schema.py"
    assert script.page_with(text, script.generated()) == text, "stale: run python scripts/figures/results_schema.py"


def test_a_stale_section_is_seen(monkeypatch):
    from pcg_plugin.core.records import trials

    script = _script()
    text = script.PAGE.read_text(encoding="utf-8")
    monkeypatch.setitem(trials.COLUMN_DOCS, "new_column", "a column added in code")
    assert script.page_with(text, script.generated()) != text
    assert "| `cost_usd` |" in script.generated() and "`Trial`: `trial` (int or None)" in script.generated()
