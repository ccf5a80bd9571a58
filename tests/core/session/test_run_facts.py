"""What the harness says of a whole run (``core.session.run_facts``): the retries summed by cause and worded for
the terminal and the report, placed after the report's notices, and a third party's warning repeated on every
call kept once while the project's own warnings stay as they are."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from _pytest.terminal import WarningReport

from pcg_plugin.core.contract.banner import with_notices
from pcg_plugin.core.session.run_facts import (
    add_waits,
    collapse_repeated_warnings,
    retries_doc,
    retries_line,
    with_fact_lines,
)


def test_retries_are_summed_by_cause_most_first() -> None:
    total: dict[str, list[float]] = {}
    add_waits(total, {"529 overloaded": [2, 1.5]})
    add_waits(total, {"529 overloaded": [1, 0.25], "429 rate limited": [1, 2.0]})
    doc = retries_doc(total)
    assert doc == {
        "count": 4,
        "seconds_waited": 3.8,
        "by_cause": {
            "529 overloaded": {"count": 3, "seconds_waited": 1.8},
            "429 rate limited": {"count": 1, "seconds_waited": 2.0},
        },
    }
    assert retries_line(doc) == (
        "model calls tried again: 4 (529 overloaded: 3, 429 rate limited: 1), 3.8 s waited before trying again "
        "(results.json: retries)"
    )
    assert retries_line(None) is None and retries_line(retries_doc({})) is None


def test_the_facts_come_after_the_notices_at_the_top_of_the_report() -> None:
    page = with_notices("<html><body><h1>board</h1></body></html>", ["INTERRUPTED (Ctrl-C): 3 of 6"])
    out = with_fact_lines(page, ["model calls tried again: 4 (...)"])
    assert out.index("INTERRUPTED") < out.index("model calls tried again") < out.index("<h1>board")
    bare = with_fact_lines("<body><h1>x</h1>", ["a & b"])
    assert bare.startswith('<body><!-- pcg-run-facts --><div class="pcg-run-fact"') and "a &amp; b" in bare


def test_a_third_partys_repeated_warning_is_kept_once_and_the_projects_are_not(tmp_path: Path) -> None:
    sdk = "/venv/lib/python3.11/site-packages/anthropic/_response.py"
    deprecated = f"{sdk}:799: DeprecationWarning: The model 'x' is deprecated"
    ours = f"{tmp_path}/conftest.py:3: UserWarning: this trial"
    reports = [WarningReport(deprecated, f"subs/t::A::{i}", (sdk, 799)) for i in range(1, 4)]
    reports += [WarningReport(ours, f"subs/t::A::{i}", (f"{tmp_path}/conftest.py", 3)) for i in (1, 2)]
    reporter = SimpleNamespace(stats={"warnings": reports})
    collapse_repeated_warnings(reporter, tmp_path)
    kept = reporter.stats["warnings"]
    assert [w.message for w in kept] == [f"{deprecated}\n(raised 3 times in this run: shown once)", ours, ours]
    assert kept[0].nodeid is None and [w.nodeid for w in kept[1:]] == ["subs/t::A::1", "subs/t::A::2"]
