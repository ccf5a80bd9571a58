"""Issue 46's rough edges as a user met them on a Science Birds run (the scripted double, the tiny classifier):
one meaning per score column (report, trial table, export, ``pcg show --json``), the trial table's model column,
why a run whose trials all scored still scores 0, the ids ``pcg show`` takes, and ``pcg card``'s columns."""

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
from e2e_support import RESPONDER, VARIED_BODY, make_tiny_classifier, program

from pcg_plugin.core.records import transcript

MODEL = "scripted:scripted_llm:respond"
pytestmark = pytest.mark.xdist_group("rough_edges_e2e")  # one worker runs the module's runs once


def run_pytest(root: Path, out: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    env.pop("OPENAI_API_KEY", None)
    cmd = [sys.executable, "-m", "pytest", "--pcg-backend", "scripted", "--pcg-model", "scripted_llm:respond"]
    cmd += ["--pcg-classifier", str(root / "tiny"), "--pcg-out", out, "--pcg-store", "store", "-p", "no:cacheprovider"]
    return subprocess.run([*cmd, *extra], cwd=root, env=env, capture_output=True, text=True, timeout=600)


def pcg(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pcg_plugin", *args], cwd=root, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A: ``plain`` (the same level every trial: diversity 0) and ``varied``, letters A,B x 2 trials; S: ``plain``
    alone (one submission)."""
    root = tmp_path_factory.mktemp("i46")
    make_tiny_classifier(root / "tiny")
    (root / "scripted_llm.py").write_text(textwrap.dedent(RESPONDER))
    for name, body in (("plain", None), ("varied", VARIED_BODY)):
        (root / "subs" / name).mkdir(parents=True)
        (root / "subs" / name / "program.py").write_text(program(body) if body else program())
    out: dict[str, Any] = {"root": root}
    out["A"] = run_pytest(root, "A", "subs", "--pcg-letters", "A,B", "--pcg-trials", "2")
    out["S"] = run_pytest(root, "S", "subs/plain", "--pcg-letters", "A", "--pcg-trials", "2")
    return out


def exported(runs: dict[str, Any], run: str) -> list[dict[str, Any]]:
    got = pcg(runs["root"], "export", run, "--format", "jsonl")
    assert got.returncode == 0, got.stderr
    return [json.loads(line) for line in got.stdout.splitlines()]


def trial_table(html: str) -> list[tuple[str, ...]]:
    """The viewer's trial table: (submission, target, trial, model, score title, score text, page)."""
    return re.findall(
        r'<tr><td class="l">(\w+)<td class="l">(\w)<td>(\d)<td class="l">([^<]*)<td title="([^"]*)">([^<]*)'
        r'<td class="l">\w*<td>\d+<td>\d+<td>\d+<td class="l"><a href="([^"]+)">view</a>',
        html,
    )


def test_score_is_one_number_under_one_name_everywhere(runs):
    assert runs["A"].returncode == 0, runs["A"].stdout[-3000:]
    root, rows = runs["root"], exported(runs, "A")
    html = (root / "A" / "report.html").read_text()
    table = {(s, c, int(t)): (model, title, text) for s, c, t, model, title, text, _ in trial_table(html)}
    assert len(table) == len(rows) == 8
    for r in rows:
        _, title, text = table[(r["submission"], r["target"], r["trial"])]
        assert float(title) == r["score"] and text == f"{r['score']:.4g}"  # exported, all digits on hover
        show = pcg(root, "show", "A", r["nodeid"], "--json")
        assert json.loads(show.stdout)["score"] == r["score"]
        if r["score"]:  # the official trial score: the letter's weight x stability x similarity, not their product
            assert r["score"] != pytest.approx(r["sta"] * r["sim"])
    # the trial's box in the report: the same name, rounded, every digit in its title; no 54-digit number shown
    assert "<td>trial score</td>" not in html and not re.search(r"<td>\d\.\d{20,}", html)
    assert re.search(r'<tr><td>score</td><td title="0\.\d{20,}">\d\.\d{4}(e-\d+)? <span class="meta">\(letter', html)


def test_the_trial_table_names_the_model_and_filters_by_it(runs):
    root = runs["root"]
    html = (root / "A" / "report.html").read_text()
    assert {row[3] for row in trial_table(html)} == {MODEL}
    assert f'<label>model <select data-col="3"><option value="">all</option><option>{MODEL}</option>' in html
    doc = json.loads(pcg(root, "show", "A", "plain::A::1", "--json").stdout)
    assert doc["model"] == MODEL


def test_a_zero_score_with_no_zero_trial_says_diversity_did_it(runs):
    out = runs["A"].stdout
    why = "plain scores 0: diversity 0 in every letter (every trial of the letter built the same level)"
    assert why in out and "varied scores 0" not in out
    assert why in (runs["root"] / "A" / "report.html").read_text()


def test_pcg_show_takes_the_short_id_and_the_page_address_and_lists_the_ids(runs):
    root = runs["root"]
    full = pcg(root, "show", "A", "subs/varied::B::2")
    assert full.returncode == 0 and full.stdout.startswith("subs/varied::B::2: ")
    assert pcg(root, "show", "A", "varied::B::2").stdout == full.stdout
    page = f"file://{root}/A/{transcript.page_rel('subs/varied::B::2')}"
    assert pcg(root, "show", "A", page).stdout == full.stdout
    listed = pcg(root, "show", "A")
    assert listed.returncode == 0 and listed.stdout.split() == [
        f"{s}::{c}::{t}" for s in ("plain", "varied") for c in "AB" for t in (1, 2)
    ]
    wrong = pcg(root, "show", "A", "zs::D::1")
    assert wrong.returncode == 2 and "e.g. plain::A::1 or subs/plain::A::1" in wrong.stderr


def test_the_card_names_its_columns_and_says_the_classifier_is_not_official(runs):
    assert runs["S"].returncode == 0, runs["S"].stdout[-3000:]
    got = pcg(runs["root"], "card", "S")
    assert got.returncode == 0, got.stderr
    md = got.stdout
    head = next(ln for ln in md.splitlines() if ln.startswith("| problem | run | submission"))
    assert "| trials run |" in head and "| trials |" not in head
    assert "| problem | run | started | backend | trials per target |" in md
    (line,) = [ln for ln in md.splitlines() if ln.startswith("| science-birds | S | plain |")]
    assert "| 1 | only submission | 2 |" in line
    assert "science-birds: Similarity was measured with the classifier" in md and "not the official" in md
