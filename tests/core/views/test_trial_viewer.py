"""What a user sees of every trial, on the toy problem (tests/toy_problem): ``pcg show`` (text and --json), the
report's trial table, charts and links to each trial's page, and the progress line (plain, -q, under xdist)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from toy_problem import SPELL, spell_contest
from trial_pages import opened

from pcg_plugin.cli import main as pcg
from pcg_plugin.core.records import transcript
from pcg_plugin.core.records.calls import Totals
from pcg_plugin.core.session.progress import Progress, line, time_left
from pcg_plugin.core.views import viewer


@pytest.fixture
def contest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    spell_contest(pytester, monkeypatch, {"alpha": {"cat": "cat", "dog": "dot"}, "beta": {"cat": "c<t"}})
    return pytester


def run_dir(pytester: pytest.Pytester) -> Path:
    (path,) = (pytester.path / "pcg-runs").glob("*/results.json")
    return path.parent


def show(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()  # the run's own output
    code = pcg(["show", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_pcg_show_prints_every_call_of_the_trial_as_the_run_named_it(contest, capsys):
    contest.runpytest_subprocess("subs", *SPELL)
    code, out, _ = show(capsys, str(run_dir(contest)), "subs/alpha::dog::2")
    assert code == 0
    assert out.splitlines()[:2] == ["subs/alpha::dog::2: scored", "1 call(s); score 0.6667"]  # dot for dog: 2/3
    assert "── call 1 · toy-speller · 3 + 3 tokens · 0.01 s · paid" in out
    assert "   [1] user:\n       Spell dog.\n   reply:\n       dot\n" in out
    assert "── spelt, letter by letter\n   d o t\n   d o g\n" in out  # the problem's state, as text


def test_pcg_show_json_has_the_documented_shape(contest, capsys):
    contest.runpytest_subprocess("subs", *SPELL, "-p", "xdist", "-n", "2")
    code, out, _ = show(capsys, str(run_dir(contest)), "subs/beta::cat::1", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["nodeid"] == "subs/beta::cat::1"
    assert (doc["submission"], doc["target"], doc["trial"], doc["score"]) == ("beta", "cat", 1, 2 / 3)
    (call,) = doc["calls"]
    assert {k: call[k] for k in ("messages", "reply", "prompt_tokens", "completion_tokens", "seconds", "replayed")} == {
        "messages": [{"role": "user", "content": "Spell cat."}],
        "reply": "c<t",
        "prompt_tokens": 3,
        "completion_tokens": 3,
        "seconds": 0.01,
        "replayed": False,
    }


def test_pcg_show_names_what_is_missing(contest, capsys):
    contest.runpytest_subprocess("subs", *SPELL)
    code, out, err = show(capsys, str(run_dir(contest)), "subs/alpha::dog::9")
    assert code == 2 and out == ""
    assert "no trial 'subs/alpha::dog::9'" in err and "(8 trial(s);" in err
    assert "e.g. alpha::cat::1 or subs/alpha::cat::1" in err  # an id of this run (read from its transcripts)


def test_an_errored_trial_keeps_its_transcript_and_error(contest, capsys):
    (contest.path / "subs" / "beta" / "spell.json").write_text('{"cat": "!crash"}')
    contest.runpytest_subprocess("subs", *SPELL)
    doc = transcript.read(run_dir(contest), "subs/beta::cat::1")
    assert doc["calls"] == [] and doc["error"] == "InfrastructureError: beta cat trial 1: the speller crashed"
    page = opened(run_dir(contest), transcript.page_rel("subs/beta::cat::1"))
    assert '<p class="err">InfrastructureError: beta cat trial 1: the speller crashed</p>' in page


def test_the_report_links_every_trial_to_its_page_and_shows_the_charts(contest):
    contest.runpytest_subprocess("subs", *SPELL)
    folder = run_dir(contest)
    html = (folder / "report.html").read_text()
    rows = re.findall(
        r'<tr><td class="l">(\w+)<td class="l">(\w+)<td>(\d)<td class="l"><td title="[\d.]+">([\d.]*)<td class="l">'
        r'(\w*)<td>(\d)<td>(\d)<td>(\d+)<td class="l"><a href="([^"]+)">view</a>',
        html,
    )
    assert [r[:5] for r in rows] == [
        ("alpha", "cat", "1", "1", ""),
        ("alpha", "cat", "2", "1", ""),
        ("alpha", "dog", "1", "0.6667", ""),
        ("alpha", "dog", "2", "0.6667", ""),
        ("beta", "cat", "1", "0.6667", ""),
        ("beta", "cat", "2", "0.6667", ""),
        ("beta", "dog", "1", "0", "no_answer"),
        ("beta", "dog", "2", "0", "no_answer"),
    ]
    for row in rows:
        page = opened(folder, row[-1])
        assert f"<h1>subs/{row[0]}::{row[1]}::{row[2]}</h1>" in page  # each link opens its own trial
    assert html.count('class="pcg-chart"') == 3
    assert "<title>alpha · dog: mean 0.6667</title>" in html and "<title>beta · dog: mean 0</title>" in html
    assert "<title>no_answer: 2 trial(s)</title>" in html
    assert "<option>no_answer</option>" in html and "<option>alpha</option><option>beta</option>" in html
    assert html.count('<table class="pcg-sort"') == 2  # the problem's leaderboard is sortable too
    assert (folder / transcript.FOLDER / transcript.CSS).is_file()


def test_replies_are_shown_as_text_never_as_markup(contest):
    contest.runpytest_subprocess("subs", *SPELL)
    page = opened(run_dir(contest), transcript.page_rel("subs/beta::cat::1"))
    assert "<pre>c&lt;t</pre>" in page and "<pre>c<t" not in page


def test_the_viewer_is_added_once_however_often_the_report_is_written(tmp_path):
    report = tmp_path / "report.html"
    report.write_text("<html><body><h1>board</h1></body></html>")
    trials = [
        {
            "nodeid": "s::a::1",
            "submission": "s",
            "target": "a",
            "trial": 1,
            "model": "",
            "score": 0.5,
            "reason": None,
            "error": None,
            "calls": 1,
            "replayed": 0,
            "tokens": 9,
        }
    ]
    viewer.attach(report, viewer.section(trials, ["a"]))
    once = report.read_text()
    viewer.attach(report, viewer.section(trials, ["a"]))
    assert report.read_text() == once and once.count(viewer.MARK) == 1 and once.startswith("<html><body><h1>board")


def test_progress_prints_plain_lines_when_not_a_terminal_and_nothing_under_q(contest):
    result = contest.runpytest_subprocess("subs", *SPELL, "-p", "xdist", "-n", "2")
    lines = [ln for ln in result.outlines if ln.startswith("pcg ") and "items" in ln]
    assert lines[-1].startswith("pcg 8/8 items · calls 6 paid, 0 replayed · tokens 36 · $0.0000 · items done at ")
    assert 2 <= len(lines) <= 10
    quiet = contest.runpytest_subprocess("subs", *SPELL, "-q")
    assert not [ln for ln in quiet.outlines if " items · calls " in ln]


def test_the_progress_line_says_what_is_left():
    totals = Totals(
        calls=30, paid=20, replayed=10, prompt_tokens=9000, completion_tokens=3000, cost_usd=0.0123, unpriced=2
    )
    assert line(26, 104, totals, 13.0, 39.0) == (
        "pcg 26/104 items · calls 20 paid, 10 replayed · tokens 12.0k · $0.0123 (+2 unpriced) · 0:39 left"
    )
    assert line(0, 104, Totals(), 0.0).endswith("time left unknown")
    assert line(104, 104, Totals(), 75.0).endswith("items done at 1:15")


def test_the_progress_line_fits_a_72_column_terminal_keeping_the_count_in_flight_and_time():
    totals = Totals(
        calls=30, paid=20, replayed=10, prompt_tokens=9000, completion_tokens=3000, cost_usd=0.0123, unpriced=2
    )
    wide = line(52, 104, totals, 13.0, 39.0, 37)
    assert len(wide) > 72  # the line the issue saw wrap
    fitted = line(52, 104, totals, 13.0, 39.0, 37, width=72)
    assert fitted == "pcg 52/104 items · 37 in flight · $0.0123+ · 0:39 left"
    assert line(52, 104, totals, 13.0, 39.0, 37, width=200) == wide
    assert all(len(line(52, 104, totals, 13.0, 39.0, 37, width=w)) < w for w in range(8, 120))


def finished(nodeid: str) -> SimpleNamespace:
    return SimpleNamespace(nodeid=nodeid, when="teardown", passed=True, user_properties=[])


def test_the_time_left_counts_from_the_first_item_finished_not_the_workers_start_up():
    """A fake clock: the workers take 29 s to start and the first item finishes at 30 s; then one item a second.
    Ten items: after four, six are left at one a second (not 33 s / 4 items x 6 = 0:50)."""
    now = [0.0]
    progress = Progress(SimpleNamespace(), clock=lambda: now[0])
    progress.set_total(10)
    now[0] = 30.0
    progress.pytest_runtest_logreport(finished("i1"))
    assert progress.text().endswith("time left unknown")  # one item says nothing of the rate yet
    for k in (2, 3, 4):
        now[0] += 1.0
        progress.pytest_runtest_logreport(finished(f"i{k}"))
    assert progress.text().endswith("4/10 items · calls 0 paid, 0 replayed · tokens 0 · $0.0000 · 0:06 left")
    assert time_left(4, 10, None, 33.0) is None and time_left(2, 10, (2, 30.0), 30.0) is None


def test_on_a_terminal_the_progress_is_one_line_rewritten(contest):
    """Run under a pseudo-terminal (``script``): one line rewritten in place, no dots or file names."""
    if shutil.which("script") is None:
        pytest.skip("no `script` to give the run a terminal")
    cmd = " ".join([sys.executable, "-m", "pytest", "subs", *SPELL, "-W", "ignore"])
    proc = subprocess.run(
        ["script", "-qec", cmd, "/dev/null"],
        cwd=contest.path,
        capture_output=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "160"},
    )
    out = proc.stdout.decode()
    draws = re.findall(r"\r\x1b\[Kpcg (\d)/8 items", out)
    assert draws and draws[-1] == "8" and "subs/alpha ." not in out
    assert "2 zero" in out  # pytest's own summary is kept


def test_on_a_72_column_terminal_under_xdist_every_line_fits_and_stands_alone(contest):
    """The issue's terminal: 72 columns, two workers. Every redraw of the progress line is narrower than the
    terminal (a wider one wraps and leaves a cut copy per redraw); the run folder line is not written after
    xdist's "ready: 1/2 workers"; the time at the end is on pytest's clock (at most its "passed in")."""
    if shutil.which("script") is None:
        pytest.skip("no `script` to give the run a terminal")
    cmd = " ".join([sys.executable, "-m", "pytest", "subs", *SPELL, "-W", "ignore", "-p", "xdist", "-n", "2"])
    proc = subprocess.run(
        ["script", "-qec", cmd, "/dev/null"],
        cwd=contest.path,
        capture_output=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "72", "LINES": "24"},
    )
    out = proc.stdout.decode()
    draws = [d for d in re.split(r"\r\x1b\[K", out) if d.startswith("pcg ") and " items" in d.split("·")[0]]
    assert draws and all(len(re.split(r"[\r\n]", d)[0]) < 72 for d in draws), draws
    folder = next(row for row in out.split("\n") if "pcg: run folder" in row)
    assert "workers" not in folder.split("\r")[-1].split("pcg: run folder")[0]
    done = re.search(r"pcg: items done at (\d+):(\d\d), results and report by (\d+):(\d\d)", out)
    passed = re.search(r" in (\d+\.\d+)s", out)
    assert done and passed, out[-2000:]
    items, end = (int(done.group(k)) * 60 + int(done.group(k + 1)) for k in (1, 3))
    assert items <= end <= float(passed.group(1)) + 0.5 <= end + 5  # one clock: pytest's adds only its own summary


def test_a_viewer_that_fails_leaves_the_results_and_says_so(contest):
    (contest.path / "conftest.py").write_text(
        "import pcg_plugin.core.views.viewer as v\n"
        "def boom(*a, **k):\n    raise OSError('disk full')\n"
        "v.add_to_report = boom\n"
    )
    result = contest.runpytest_subprocess("subs", *SPELL)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["1. alpha 0.833", "*the report has no charts, trial table or trial links: OSError: disk full*"]
    )
    assert (run_dir(contest) / "results.json").is_file()
