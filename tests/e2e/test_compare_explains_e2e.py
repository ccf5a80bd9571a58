"""Issue 54's comparison, as a user made it: Science Birds run A (``plain`` asks the same thing every trial, so
its diversity is 0 and it scores 0; ``varied`` scores) and run B (every reply empty: no code), then ``pcg
compare a b -o compare.html`` opened in headless Chromium, the trial pages, and what each run stored and printed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from e2e_support import GOOD_BODY, RESPONDER, VARIED_BODY, program
from trial_pages import browser, measured, rendered

from pcg_plugin.cli import main as pcg
from pcg_plugin.core.records import transcript, trials

EMPTY = "def respond(messages, n=1):\n    return [''] * n\n"
SECTION = """var t=function(e){return e.textContent.trim()};
function rows(tb){return [].map.call(tb.tBodies[0].rows,function(r){return [].map.call(r.cells,t)})}
var tables=document.querySelectorAll('section table.pcg-sort');
return {heading:t(document.querySelector('section h2')),pairs:rows(tables[0]),
 why:[].map.call(document.querySelectorAll('section ul.why li'),t),
 outcomes:[].map.call(tables[2].tBodies[0].rows,function(r){return [t(r.cells[9]),t(r.cells[10])]})}"""


@pytest.fixture(scope="module")
def ab(tmp_path_factory: pytest.TempPathFactory, tiny_classifier: Path) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("i54")
    for double, text in (("good", textwrap.dedent(RESPONDER)), ("empty", EMPTY)):
        (root / double).mkdir()
        (root / double / "scripted_llm.py").write_text(text)
    for name, body in (("plain", GOOD_BODY), ("varied", VARIED_BODY)):
        (root / "subs" / name).mkdir(parents=True)
        (root / "subs" / name / "program.py").write_text(program(body))
    out: dict[str, Any] = {"root": root}
    for run, double in (("a", "good"), ("b", "empty")):
        path = os.pathsep.join(filter(None, [str(root / double), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path, "PCG_CACHE_DIR": str(root / "cache")}
        env.pop("OPENAI_API_KEY", None)
        cmd = [sys.executable, "-m", "pytest", "subs", "--pcg-backend", "scripted", "--pcg-model"]
        cmd += ["scripted_llm:respond", "--pcg-letters", "A", "--pcg-trials", "2", "--pcg-classifier"]
        cmd += [str(tiny_classifier), "--pcg-out", run, "--pcg-store", f"store-{double}", "-p", "no:cacheprovider"]
        cmd += ["-p", "no:randomly"]
        out[run] = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
        assert (root / run / "results.json").is_file(), out[run].stdout[-3000:] + out[run].stderr[-3000:]
    assert pcg(["compare", str(root / "a"), str(root / "b"), "-o", str(root / "compare.html")]) == 0
    return out


@pytest.mark.skipif(browser() is None, reason="no chromium")
def test_the_page_says_why_each_score_is_zero_once_and_claims_nothing_untrue(ab: dict[str, Any]) -> None:
    shown = measured(ab["root"] / "compare.html", SECTION)
    assert "sum to 100" not in shown["heading"] and "0 when that sum is 0" in shown["heading"]  # B's sum to 0
    plain = next(p for p in shown["pairs"] if p[0].startswith("plain"))
    assert plain[1:4] == ["0.0000", "0.0000", "0.0000"] and plain[5] == ""  # the headline: 0 -> 0, unflagged
    why = [w for w in shown["why"] if w.startswith("plain")]
    assert len(why) == 2 and "scores 0 in A: diversity 0 in every letter" in why[0]
    assert why[1].endswith("scores 0 in B: every trial scored 0: no_code (2)")
    assert len(shown["outcomes"]) == 4  # each of the four trials went scored -> zero
    for _, b in shown["outcomes"]:  # one reason per trial: not "score 0: no_code: ..." and "scored 0: no_code: ..."
        assert b.count("no_code") == 1 and "Code not found." in b, b


def test_each_stored_transcript_keeps_the_trial_score_the_run_exported(ab: dict[str, Any], capsys) -> None:
    """The weighted official trial score (weight x stability x similarity), not stability x similarity."""
    run = ab["root"] / "a"
    rows = trials.read(run / trials.FILE)
    assert len(rows) == 4 and all(r["score"] for r in rows)
    for r in rows:
        doc = transcript.read(run, r["nodeid"])
        assert doc["score"] == r["score"] != float(r["sta"]) * float(r["sim"])
    capsys.readouterr()
    assert pcg(["show", str(run), rows[0]["nodeid"]]) == 0
    assert f"; score {rows[0]['score']:.4g}" in capsys.readouterr().out


@pytest.mark.skipif(browser() is None, reason="no chromium")
def test_a_trial_page_shows_rounded_numbers_and_an_empty_reply_as_one(ab: dict[str, Any], tmp_path: Path) -> None:
    run_a, run_b = ab["root"] / "a", ab["root"] / "b"
    row = trials.read(run_a / trials.FILE)[0]
    page = rendered(run_a, transcript.page_rel(row["nodeid"]), tmp_path / "pa")
    text = re.sub(r"<[^>]+>", " ", page[page.index("<main") :])
    assert not re.findall(r"\d\.\d{6,}", text), text  # no sta=0.6666666666666666
    assert f"score {row['score']:.4g}" in " ".join(text.split())
    empty = rendered(run_b, transcript.page_rel(row["nodeid"]), tmp_path / "pb")
    assert '<pre class="empty">(an empty reply: no text at all)</pre>' in empty


def test_the_terminal_ranking_fits_72_columns_and_says_why_equal_scores_rank_apart(ab: dict[str, Any]) -> None:
    """Run B: both submissions score 0; the official scorer ranks them 1 and 2 (position + 1, kept: fidelity
    first), and the terminal says so rather than leave 1 and 2 unexplained."""
    lines = ab["b"].stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("rank "))
    assert all(len(line) <= 72 for line in lines[head : head + 3]), lines[head : head + 3]
    assert [line.split()[0] for line in lines[head + 1 : head + 3]] == ["1", "2"]
    assert any(line.startswith("equal scores ranked apart: plain 1, varied 2 (all 0.0000)") for line in lines)
    doc = json.loads((ab["root"] / "b" / "results.json").read_text())
    assert sorted(s["rank"] for s in doc["submissions"]) == [1, 2]
