"""The compare page as headless Chromium shows it (``core.results.compare_page``), on the numbers of issue 54:
a trial that scored 2.9e-5 read ``0.0000`` beside ``scored -> zero``, a per-letter interval ``[-0.0133,
-0.0000]`` was flagged DROP, and a submission at ``+0.0000`` never said why it scored 0."""

from __future__ import annotations

from pathlib import Path

import pytest
from trial_pages import browser, measured

from pcg_plugin.core.results.compare import Comparison, Pair, TargetPair, TrialChange
from pcg_plugin.core.results.compare_page import write

# each table of the page's section as rows of cell texts, and the notes that say why a pair scores 0
TABLES = """var t=function(e){return e.textContent.trim()};
function rows(tb){return [].map.call(tb.tBodies[0].rows,function(r){return [].map.call(r.cells,t)})}
var tables=document.querySelectorAll('section table.pcg-sort');
return {pairs:rows(tables[0]),targets:rows(tables[1]),changes:rows(tables[2]).map(function(r){return r.slice(0,9)}),
 why:[].map.call(document.querySelectorAll('section ul.why li'),t)}"""


@pytest.mark.skipif(browser() is None, reason="no chromium")
def test_numbers_flags_and_the_cause_of_a_zero_as_the_page_shows_them(tmp_path: Path) -> None:
    a = {"submission": "plain", "target": "A", "trial": 1, "score": 2.9e-5, "reason": None}
    b = {**a, "score": 0.0, "reason": "no_code"}
    targets = (TargetPair("A", 0.0133, 0.0, -0.0133, -0.0), TargetPair("B", 2.9e-5, 0.0, -2.9e-5, -2.9e-5))
    pair = Pair("plain", "m", 0.0, 0.0, 0.0, 0.0, targets=targets, why_a="diversity 0 in every letter", why_b=None)
    c = Comparison(
        "science-birds",
        (pair,),
        (),
        (),
        200,
        run_a=str(tmp_path / "a"),
        run_b=str(tmp_path / "b"),
        changes=(TrialChange("plain (m)", "A", 1, "scored -> zero", a, b, 0.0),),
        places=4,
    )
    page = write(tmp_path / "compare.html", [c])
    shown = measured(page, TABLES)
    assert shown["pairs"] == [["plain (m)", "0.0000", "0.0000", "0.0000", "[0.0000, 0.0000]", ""]]
    assert shown["targets"] == [
        ["plain (m)", "A", "0.0133", "0.0000", "-0.0133", "[-0.0133, 0.0000]", ""],  # holds 0: no flag
        ["plain (m)", "B", "0.000029", "0.0000", "-0.000029", "[-0.000029, -0.000029]", "DROP"],
    ]
    assert shown["changes"] == [
        ["plain (m)", "A", "1", "scored -> zero", "0.000029", "", "0.0000", "no_code", "0.0000"]
    ]
    assert shown["why"] == ["plain (m) scores 0 in A: diversity 0 in every letter"]
