"""Issue 34 through what a user runs, on the PCG Benchmark (binary-v0, 3 instances x 3 trials, the scripted
double grid_double.py): the trial export, rank intervals, `pcg compare`, the gate for a problem other than
Science Birds, `pcg card`, prices. The four families together: scripts/figures/results_figures.py (slow test below)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
pytestmark = pytest.mark.xdist_group("results_features_e2e")  # one worker makes the module's runs once
COLUMNS = [
    "problem",
    "submission",
    "model",
    "target",
    "trial",
    "score",
    "reason",
    "seconds",
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
]
PROGRAM = """from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop


class Entry(TrialLoop):
    @staticmethod
    def run(ctx, task):
        return chat_with_llm(ctx, [{"role": "user", "content": f"{task} TRIAL={ctx.get_trial_number()}"}])[0]
"""


def run_pytest(
    root: Path, out: str, double: str, *extra: str, model: str = "grid_double:respond"
) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(filter(None, [str(root / double), os.environ.get("PYTHONPATH")]))  # this checkout
    env = {**os.environ, "PYTHONPATH": path, "PCG_CACHE_DIR": str(root / "cache")}
    env.pop("OPENAI_API_KEY", None)
    env.pop("PCG_PRICES", None)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "subs",
        "--pcg-problem",
        "pcgbench/binary-v0",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        model,
        "--pcg-out",
        out,
        "--pcg-store",
        f"store-{double}",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        *extra,
    ]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)


def pcg(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PCG_PRICES"}
    return subprocess.run(
        [sys.executable, "-m", "pcg_plugin", *args], cwd=root, capture_output=True, text=True, env=env, timeout=300
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A: two submissions, 3 trials; A2: again, gated against A; E: every answer empty, gated against A;
    T2: 2 trials (not comparable); P: A's answers priced by a price table that lists the double."""
    root = tmp_path_factory.mktemp("i34")
    (root / "good").mkdir()
    shutil.copy(TESTS / "pcgbench" / "grid_double.py", root / "good" / "grid_double.py")
    (root / "empty").mkdir()
    (root / "empty" / "grid_double.py").write_text("def respond(messages, n=1):\n    return [''] * n\n")
    (root / "subs" / "by_trial").mkdir(parents=True)
    (root / "subs" / "by_trial" / "entry.py").write_text(PROGRAM)
    shutil.copytree(REPO / "examples" / "pcgbench" / "zero_shot", root / "subs" / "zero_shot")
    (root / "prices.json").write_text(json.dumps({"models": {"scripted:grid_double:respond": [1000000, 2000000]}}))
    out = {"root": root}
    out["A"] = run_pytest(root, "A", "good", "--pcg-trials", "3")
    out["A2"] = run_pytest(root, "A2", "good", "--pcg-trials", "3", "--pcg-baseline", "A")
    out["E"] = run_pytest(root, "E", "empty", "--pcg-trials", "3", "--pcg-baseline", "A/results.json")
    out["T2"] = run_pytest(root, "T2", "good", "--pcg-trials", "2", "--pcg-baseline", "A")
    out["P"] = run_pytest(root, "P", "good", "--pcg-trials", "3", "--pcg-prices", "prices.json")
    (root / "other").mkdir()  # another double (another model's name) whose answers are empty
    (root / "other" / "other_double.py").write_text("def respond(messages, n=1):\n    return [''] * n\n")
    warm = json.loads((root / "A" / "results.json").read_text())  # a baseline sampled at another temperature
    warm["settings"]["temperature"] = 0.7
    (root / "warm.json").write_text(json.dumps(warm))
    out["W"] = run_pytest(root, "W", "good", "--pcg-trials", "3", "--pcg-baseline", "warm.json")
    out["O"] = run_pytest(root, "O", "other", "--pcg-trials", "3", "--pcg-baseline", "A", model="other_double:respond")
    return out


def doc(runs: dict[str, Any], name: str) -> dict[str, Any]:
    return json.loads((runs["root"] / name / "results.json").read_text())  # type: ignore[no-any-return]


def test_the_export_has_one_row_per_trial_with_the_twelve_columns_first(runs):
    root = runs["root"]
    assert runs["A"].returncode == 0, runs["A"].stdout[-2000:]
    got = pcg(root, "export", "A", "--format", "csv")
    assert got.returncode == 0, got.stderr
    rows = list(csv.reader(io.StringIO(got.stdout)))
    assert rows[0][:12] == COLUMNS and "quality" in rows[0][12:]
    body = [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    assert len(body) == 2 * 3 * 3  # submissions x instances x trials
    assert {r["submission"] for r in body} == {"by_trial", "zero_shot"}
    assert {r["problem"] for r in body} == {"pcgbench/binary-v0"} and {r["trial"] for r in body} == {"1", "2", "3"}
    assert {r["model"] for r in body} == {"scripted:grid_double:respond"}
    assert all(r["calls"] == "1" and int(r["prompt_tokens"]) > 0 for r in body)
    assert {r["cost_usd"] for r in body} == {""}  # the double has no price: unknown, never 0
    jsonl = [json.loads(line) for line in pcg(root, "export", "A", "--format", "jsonl").stdout.splitlines()]
    assert len(jsonl) == 18 and list(jsonl[0])[:12] == COLUMNS
    assert sum(r["score"] for r in jsonl) == pytest.approx(sum(float(r["score"]) for r in body))
    assert (root / "A" / "trials.jsonl").is_file()
    (root / "A" / "trials.jsonl").unlink()  # an older run folder: the rows are made from results.json again
    assert [json.loads(x) for x in pcg(root, "export", "A", "--format", "jsonl").stdout.splitlines()] == jsonl
    written = pcg(root, "export", "A", "-o", "rows.csv")
    assert written.returncode == 0 and (root / "rows.csv").read_text() == got.stdout
    assert "18 trials" in written.stderr


def test_the_export_writes_parquet_when_pyarrow_is_installed(runs):
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is the optional extra of --format parquet")
    got = pcg(runs["root"], "export", "A", "--format", "parquet", "-o", "rows.parquet")
    assert got.returncode == 0, got.stderr
    table = pq.read_table(runs["root"] / "rows.parquet")
    assert table.num_rows == 18 and table.column_names[:12] == COLUMNS


def test_export_of_a_folder_without_a_run_says_so(runs, tmp_path):
    got = pcg(runs["root"], "export", str(tmp_path))
    assert got.returncode == 2 and "no results.json" in got.stderr


def test_every_submission_has_a_rank_interval_in_results_terminal_and_report(runs):
    subs = doc(runs, "A")["submissions"]
    assert all(isinstance(s["rank_interval"], list) and len(s["rank_interval"]) == 2 for s in subs)
    assert all(s["rank_interval"][0] <= s["rank"] <= s["rank_interval"][1] for s in subs)
    lines = [ln for ln in runs["A"].stdout.splitlines() if "[95% rank " in ln]
    assert len(lines) == 2
    assert "95% rank" in (runs["root"] / "A" / "report.html").read_text()
    assert "UNOFFICIAL RUN: a test double" in runs["A"].stdout


def test_compare_a_run_with_itself_gives_zero_differences(runs):
    got = pcg(runs["root"], "compare", "A", "A2", "--json")
    assert got.returncode == 0, got.stderr
    c = json.loads(got.stdout)
    keys = {"problem", "score", "a", "b", "pair_by", "pairs", "only_a", "only_b", "changed_trials", "unlike"}
    assert set(c) == keys and c["unlike"] == []
    assert c["problem"] == "pcgbench/binary-v0" and (c["a"], c["b"], c["pair_by"]) == ("A", "A2", "submission+model")
    assert c["score"].startswith("score (mean over instances")
    assert [p["submission"] for p in c["pairs"]] == ["by_trial", "zero_shot"]
    keys = {"submission", "model", "submission_b", "model_b", "a", "b", "difference", "low", "high", "flag", "targets"}
    assert all(set(p) == keys | {"why_a", "why_b"} for p in c["pairs"])
    assert all(p["why_a"] is None and p["why_b"] is None for p in c["pairs"])  # neither scores 0
    assert all(p["difference"] == 0 and p["low"] <= 0 <= p["high"] and p["flag"] is None for p in c["pairs"])
    assert c["only_a"] == c["only_b"] == c["changed_trials"] == []


def test_compare_flags_the_drop_of_a_run_with_empty_answers(runs):
    text = pcg(runs["root"], "compare", "A", "E").stdout
    line = next(ln for ln in text.splitlines() if ln.startswith("by_trial"))
    assert line.endswith("DROP") and "-0.222" in line  # the benchmark's three places
    pair = {p["submission"]: p for p in json.loads(pcg(runs["root"], "compare", "A", "E", "--json").stdout)["pairs"]}
    assert pair["by_trial"]["high"] < 0 and pair["by_trial"]["b"] == 0
    # why B scores 0, in the table and the JSON: every trial's answer was empty
    assert "by_trial scores 0 in B: every trial scored 0: no_block (9)" in text
    assert pair["by_trial"]["why_b"] == "every trial scored 0: no_block (9)" and pair["by_trial"]["why_a"] is None


def test_compare_pairs_by_name_never_by_position(runs, tmp_path):
    """A run with one submission fewer (the first by name gone): the other is still paired with itself."""
    b = json.loads((runs["root"] / "A" / "results.json").read_text())
    b["submissions"] = [s for s in b["submissions"] if s["name"] == "zero_shot"]
    (tmp_path / "results.json").write_text(json.dumps(b))
    c = json.loads(pcg(runs["root"], "compare", "A", str(tmp_path), "--json").stdout)
    assert [(p["submission"], p["difference"]) for p in c["pairs"]] == [("zero_shot", 0)]
    assert c["only_a"] == ["by_trial (scripted:grid_double:respond)"] and c["only_b"] == []


def test_compare_refuses_other_trial_counts_and_other_problems_saying_which(runs, tmp_path):
    got = pcg(runs["root"], "compare", "A", "T2")
    assert got.returncode == 2 and "different trial counts: A ran 3 trials per target, B 2" in got.stderr
    other = doc(runs, "A") | {"problem": "pcgbench/zelda-v0"}
    (tmp_path / "results.json").write_text(json.dumps(other))
    got = pcg(runs["root"], "compare", "A", str(tmp_path))
    assert got.returncode == 2 and "different problems: A is pcgbench/binary-v0, B is pcgbench/zelda-v0" in got.stderr


def test_the_gate_passes_against_itself_and_fails_against_empty_answers(runs):
    a2, e = runs["A2"], runs["E"]
    assert a2.returncode == 0, a2.stdout[-2000:]
    assert "pytest-pcg baseline comparison (plain, max drop 0)" in a2.stdout
    assert "0 regression(s), 0 improvement(s) -> ok" in a2.stdout
    assert e.returncode == 1, e.stdout[-2000:]
    row = next(ln for ln in e.stdout.splitlines() if ln.startswith("by_trial "))
    assert row.split()[1:4] == ["0.2222", "0.0000", "-0.2222"] and row.endswith("regressed")
    assert "-> FAILED" in e.stdout


def test_the_gate_refuses_other_trial_counts_with_exit_4(runs):
    t2 = runs["T2"]
    assert t2.returncode == 4, t2.stdout[-2000:]
    assert "not like for like with the baseline: other trial counts (baseline 3 per target, this run 2)" in t2.stdout


def test_the_price_table_option_prices_every_trial(runs):
    assert runs["P"].returncode == 0, runs["P"].stderr[-2000:]
    rows = [json.loads(x) for x in pcg(runs["root"], "export", "P", "--format", "jsonl").stdout.splitlines()]
    assert all(r["cost_usd"] == pytest.approx(r["prompt_tokens"] + 2 * r["completion_tokens"]) for r in rows)


def test_the_card_shows_each_submission_with_intervals_and_unknown_price(runs):
    got = pcg(runs["root"], "card", "A", "P")
    assert got.returncode == 0, got.stderr
    md = got.stdout
    assert md.startswith("# Model card: scripted:grid_double:respond")
    card = md.split("## Provenance")[0]
    rows = [ln for ln in card.splitlines() if ln.startswith("| pcgbench/binary-v0 |")]
    # the run column: the folder each line came from; scores at the benchmark's three places
    assert [r.split(" | ")[1:3] for r in rows] == [
        ["A", "by_trial"],
        ["A", "zero_shot"],
        ["P", "by_trial"],
        ["P", "zero_shot"],
    ]
    assert len(rows) == 4 and sum("unknown price" in r for r in rows) == 2  # A unpriced, P priced
    assert "| A | by_trial | scripted:grid_double:respond | 0.222 | [" in rows[0]
    assert "UNOFFICIAL RUN" in md and "## Provenance" in md
    html = pcg(runs["root"], "card", "A", "-o", "card.html")
    assert html.returncode == 0 and "<table>" in (runs["root"] / "card.html").read_text()


@pytest.mark.slow
def test_the_figures_script_prints_every_figure_of_the_issue(tmp_path):
    got = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "figures" / "results_figures.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert got.returncode == 0 and "all figures as issue 34 asks" in got.stdout, got.stdout[-3000:]


def test_the_gate_refuses_a_baseline_of_another_model_with_exit_4(runs):
    """Issue 46: an empty double of another name gated against the good double's run was a DROP, exit 1."""
    o = runs["O"]
    assert o.returncode == 4, o.stdout[-2000:]
    assert (
        "not like for like with the baseline: another model (baseline scripted:grid_double:respond, this run "
        "scripted:other_double:respond)" in o.stdout
    )
    assert "regressed" not in o.stdout and not (runs["root"] / "O" / "compare.html").exists()


def test_a_failing_gate_writes_the_comparison_page_and_prints_its_path(runs):
    e = runs["E"]
    page = runs["root"] / "E" / "compare.html"
    assert f"what changed, trial by trial: {page}" in e.stdout
    html = page.read_text()
    assert "by_trial" in html and "DROP" in html and "scored -&gt; zero" in html
    assert 'href="../A/trials/view.html?' in html and 'href="trials/view.html?' in html
    assert not (runs["root"] / "A2" / "compare.html").exists()  # a passing gate writes none


def test_compare_says_which_score_and_which_run_is_a_and_b(runs):
    text = pcg(runs["root"], "compare", "A", "E").stdout.splitlines()
    assert text[0].startswith(
        "pcg compare: pcgbench/binary-v0, score (mean over instances of the share of trials feasible, controlled "
        "and unique): B - A per pair (paired by submission+model)"
    )
    assert text[1:3] == ["  A: A", "  B: E"]


def test_compare_pairs_runs_of_two_models_by_submission(runs):
    """Before: `only in A: by_trial (scripted:grid_double:respond)` and no pair at all."""
    plain = json.loads(pcg(runs["root"], "compare", "A", "O", "--json").stdout)
    assert plain["pairs"] == [] and len(plain["only_a"]) == 2
    got = pcg(runs["root"], "compare", "A", "O", "--pair", "submission", "--json")
    c = json.loads(got.stdout)
    assert c["pair_by"] == "submission" and [p["submission"] for p in c["pairs"]] == ["by_trial", "zero_shot"]
    assert c["unlike"] == ["another model (run A scripted:grid_double:respond, run B scripted:other_double:respond)"]
    p = c["pairs"][0]
    assert (p["model"], p["model_b"]) == ("scripted:grid_double:respond", "scripted:other_double:respond")
    assert p["flag"] == "DROP" and p["b"] == 0
    assert pcg(runs["root"], "compare", "A", "O", "--pair", "model").returncode == 2  # one model, two submissions


def test_compare_help_shows_a_plain_percent_sign(runs):
    got = pcg(runs["root"], "compare", "--help")
    assert got.returncode == 0 and "95% paired" in " ".join(got.stdout.split()) and "%%" not in got.stdout


@pytest.mark.skipif(not shutil.which("chromium"), reason="no chromium (apt-get install chromium)")
def test_the_compare_page_in_a_real_browser_links_and_filters(runs, tmp_path):
    """The page a failing gate wrote (A = the good run, B = empty answers), copied with both run folders side by
    side elsewhere: every link resolves, each trial link opens that trial in Chromium, and a view carried by the
    URL (``#p0-changes?change=...&sort=-trial``) filters and sorts the changed trials."""
    import re

    sys.path.insert(0, str(TESTS))
    from trial_pages import rendered

    for name in ("A", "E"):
        shutil.copytree(runs["root"] / name, tmp_path / "copy" / name)
    page = tmp_path / "copy" / "E" / "compare.html"
    html = page.read_text()
    links = re.findall(r'(?:href|src)="([^"]+)"', html)
    assert len([x for x in links if "view.html?" in x]) >= 2 * 9
    for link in links:
        assert (page.parent / link.partition("?")[0]).is_file(), link
    trial = next(x for x in links if x.startswith("../A/trials/view.html?"))
    dom = rendered(page.parent, trial, tmp_path / "profile")
    assert "by_trial" in dom and "Loading the trial" not in dom
    url_view = "compare.html#p0-changes?change=scored -> zero&pair=by_trial (scripted:grid_double:respond)&sort=-trial"
    shown = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'p2'}",
         "--proxy-server=127.0.0.1:9", "--virtual-time-budget=3000", "--dump-dom",
         page.parent.as_uri() + "/" + url_view.replace(" ", "%20").replace(">", "%3E")],
        capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    table = shown[shown.index('id="p0-table"') :]
    rows = re.findall(
        r"<tr( hidden=\"\")?><td class=\"l\">([^<]*)</td><td class=\"l\">([^<]*)</td><td>(\d+)</td>", table
    )
    visible = [(sub, int(trial)) for hidden, sub, _, trial in rows if not hidden]
    assert visible and all(sub.startswith("by_trial") for sub, _ in visible)
    assert [t for _, t in visible] == sorted((t for _, t in visible), reverse=True)
    assert len(visible) < len(rows) and f'class="pcg-shown">{len(visible)}<' in shown


def test_compare_takes_suite_runs_problem_by_problem(runs, tmp_path):
    """Two hand-made suite folders (suite.document over real single runs): the shared problem compared as the
    single runs are, a problem in one suite only named, the page with one section per shared problem."""
    from pcg_plugin.core.results import suite

    def make(name: str, members: dict[str, str]) -> Path:
        folder = tmp_path / name
        for problem, run in members.items():
            shutil.copytree(runs["root"] / run, folder / suite.folder_for(problem))
        (folder / "results.json").write_text(json.dumps(suite.document({p: suite.folder_for(p) for p in members})))
        return folder

    sa = make("SA", {"pcgbench/binary-v0": "A"})
    sb = make("SB", {"pcgbench/binary-v0": "E", "gameeval/askguess-easy": "A"})
    single = json.loads(pcg(runs["root"], "compare", "A", "E", "--json").stdout)
    got = pcg(runs["root"], "compare", str(sa), str(sb), "--json", "-o", str(tmp_path / "suite.html"))
    assert got.returncode == 0, got.stderr
    c = json.loads(got.stdout)
    assert c["only_a"] == [] and c["only_b"] == ["gameeval/askguess-easy"]
    (member,) = c["problems"]
    assert [p["difference"] for p in member["pairs"]] == [p["difference"] for p in single["pairs"]]
    text = pcg(runs["root"], "compare", str(sa), str(sb)).stdout
    assert "problem only in B: gameeval/askguess-easy" in text and "pcg compare: pcgbench/binary-v0" in text
    html = (tmp_path / "suite.html").read_text()
    assert html.count("<section ") == 1 and "problem only in B: gameeval/askguess-easy" in html
    assert 'href="SA/pcgbench-binary-v0/trials/view.html?' in html


def test_the_gate_refuses_a_baseline_sampled_at_another_temperature(runs):
    settings = doc(runs, "A")["settings"]
    assert (settings["temperature"], settings["seed_policy"]) == (1.0, "none")  # recorded, so compared
    w = runs["W"]
    assert w.returncode == 4, w.stdout[-2000:]
    assert "not like for like with the baseline: another temperature (baseline 0.7, this run 1.0)" in w.stdout
