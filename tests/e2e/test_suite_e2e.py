"""A suite run (``--pcg-problem a,b`` or a pattern) as a user sees it: one pytest run, one folder per problem
holding what a run of that problem alone holds, the suite's results.json and model card at the top, one exit
code; a submission that fits one problem and not the other is not evaluated on that one only; ``-k``, ``--lf``,
xdist and trials in flight over a suite; ``pcg card`` and ``pcg export`` of the suite's folder. The PCG
Benchmark's scripted double (tests/pcgbench/grid_double.py) answers; the 46-variant run is marked slow."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
PAIR = "pcgbench/binary-v0,pcgbench/smb-v0"  # smb fills no <WIDTH>/<HEIGHT>/<LEGEND>: the grid prompts fit binary only
COMMON = [
    "--pcg-backend",
    "scripted",
    "--pcg-model",
    "grid_double:respond",
    "--pcg-store",
    "store",
    "--pcg-grid-instances",
    "1",
    "--pcg-trials",
    "2",
    "-p",
    "no:randomly",
]


@pytest.fixture
def bench(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The three PCG Benchmark examples (two grid prompts, the self_check program) and the scripted double."""
    shutil.copy(REPO / "tests" / "pcgbench" / "grid_double.py", pytester.path / "grid_double.py")
    shutil.copytree(REPO / "examples" / "pcgbench", pytester.path / "subs")
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return pytester


def run(bench: pytest.Pytester, problem: str, out: str, *extra: str) -> pytest.RunResult:
    return bench.runpytest("subs", "--pcg-problem", problem, "--pcg-out", out, *COMMON, *extra)


def doc(path: Path) -> dict[str, Any]:
    return json.loads((path / "results.json").read_text())


def board(results: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What a problem's scorer made of its trials: each submission's rank, score and figures, each trial's."""
    return [
        (
            s["name"],
            s["rank"],
            s["score"],
            s["feasible"],
            s["controlled"],
            s["unique"],
            s["zero_reasons"],
            [(i["id"], [(t["trial"], t["reason"], t["quality"]) for t in i["trials"]]) for i in s["instances"]],
        )
        for s in results["submissions"]
    ]


def pcg(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pcg_plugin", *args], cwd=cwd, capture_output=True, text=True)


def test_a_pair_is_one_run_with_a_folder_per_problem_scored_as_if_alone(bench: pytest.Pytester) -> None:
    result = run(bench, PAIR, "suite", "-p", "no:cacheprovider")
    # binary: 3 submissions x 1 instance x 2 trials; smb: self_check's 2 trials, and the two grid prompts are not
    # evaluated on smb (only there): one failing item each, so the run's one exit code is 1
    result.assert_outcomes(passed=8, failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    top = bench.path / "suite"
    suite = doc(top)
    assert suite["schema"] == "pytest-pcg/suite/1"
    assert suite["problems"] == [
        {"problem": "pcgbench/binary-v0", "folder": "pcgbench-binary-v0"},
        {"problem": "pcgbench/smb-v0", "folder": "pcgbench-smb-v0"},
    ]
    assert suite["exit_status"] == 1
    assert suite["counts"]["pcgbench/smb-v0"] == {"trials": 2, "scored": 2, "errors": 0, "not_evaluated": 2}
    binary, smb = doc(top / "pcgbench-binary-v0"), doc(top / "pcgbench-smb-v0")
    assert [s["name"] for s in binary["submissions"]] == ["few_shot", "self_check", "zero_shot"]
    assert [s["name"] for s in smb["submissions"]] == ["self_check"]
    assert sorted(smb["folder_errors"]) == [
        "subs/few_shot::pcgbench/smb-v0::not-evaluated",
        "subs/zero_shot::pcgbench/smb-v0::not-evaluated",
    ]
    assert binary["folder_errors"] == {}
    for member in ("pcgbench-binary-v0", "pcgbench-smb-v0"):  # each folder is a complete run folder
        assert {"results.json", "report.html", "trials.jsonl", "trials"} <= {p.name for p in (top / member).iterdir()}
    assert not (top / "report.html").exists()
    card = (top / "card.md").read_text()
    assert card.count("| pcgbench/binary-v0 |") == 3 + 1  # three submissions, and the provenance line
    assert card.count("| pcgbench/smb-v0 |") == 1 + 1
    assert (top / "card.html").is_file()
    result.stdout.fnmatch_lines(["*pytest-pcg suite*", "suite: 2 of 2 problems scored*", "model card: *card.html*"])

    for name, alone in (("pcgbench/binary-v0", "binary"), ("pcgbench/smb-v0", "smb")):
        run(bench, name, alone, "-p", "no:cacheprovider")
        single = doc(bench.path / alone)
        member = doc(top / name.replace("/", "-"))
        assert board(member) == board(single), name
        assert "problems" not in single and (bench.path / alone / "report.html").is_file()  # laid out as always

    shown = pcg(bench.path, "card", str(top))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == card  # the card the run wrote is the one pcg card makes of the suite's folder
    exported = pcg(bench.path, "export", "suite", "--format", "jsonl")
    assert exported.returncode == 0, exported.stderr
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [(r["problem"], r["submission"]) for r in rows].count(("pcgbench/smb-v0", "self_check")) == 2
    assert len(rows) == 6 + 2


def test_items_are_named_by_problem_and_k_selects_one(bench: pytest.Pytester) -> None:
    listed = run(bench, PAIR, "suite", "--co", "-q", "-p", "no:cacheprovider")
    ids = [line for line in listed.outlines if "::" in line]
    assert "subs/self_check::pcgbench/smb-v0::not-evaluated" not in ids
    assert "subs/few_shot::pcgbench/smb-v0::not-evaluated" in ids
    assert len(ids) == len(set(ids)) == 3 * 2 + 2 + 2
    assert all(i.split("::")[1] in ("pcgbench/binary-v0", "pcgbench/smb-v0") for i in ids)
    picked = run(bench, PAIR, "picked", "-k", "problem_pcgbench/smb-v0 and trial_2", "-p", "no:cacheprovider")
    picked.assert_outcomes(passed=1, deselected=9)
    top = doc(bench.path / "picked")
    assert [p["problem"] for p in top["problems"]] == ["pcgbench/smb-v0"]
    assert top["not_run"] == ["pcgbench/binary-v0"]
    assert not (bench.path / "picked" / "pcgbench-binary-v0").exists()


def test_last_failed_reruns_the_not_evaluated_items_only(bench: pytest.Pytester) -> None:
    run(bench, PAIR, "first").assert_outcomes(passed=8, failed=2)
    again = run(bench, PAIR, "again", "--lf")
    again.assert_outcomes(failed=2, deselected=8)
    top = doc(bench.path / "again")
    assert [p["problem"] for p in top["problems"]] == ["pcgbench/smb-v0"]
    assert sorted(doc(bench.path / "again" / "pcgbench-smb-v0")["folder_errors"]) == [
        "subs/few_shot::pcgbench/smb-v0::not-evaluated",
        "subs/zero_shot::pcgbench/smb-v0::not-evaluated",
    ]


def test_xdist_and_trials_in_flight_score_a_suite_as_one_process_does(bench: pytest.Pytester) -> None:
    spread = ["-p", "no:cacheprovider", "--pcg-in-flight", "3"]
    run(bench, PAIR, "one", "-p", "no:cacheprovider").assert_outcomes(passed=8, failed=2)
    two = bench.runpytest_subprocess(
        "subs", "--pcg-problem", PAIR, "--pcg-out", "two", *COMMON, "-p", "xdist", "-n", "2", *spread
    )
    two.assert_outcomes(passed=8, failed=2)
    for member in ("pcgbench-binary-v0", "pcgbench-smb-v0"):
        assert board(doc(bench.path / "two" / member)) == board(doc(bench.path / "one" / member)), member
    assert doc(bench.path / "two")["problems"] == doc(bench.path / "one")["problems"]


def test_the_cost_estimate_covers_every_problem_of_the_suite(bench: pytest.Pytester) -> None:
    paid = ["--pcg-backend", "openai-compatible", "--pcg-base-url", "http://127.0.0.1:9", "--pcg-model", "gpt-4o"]
    result = bench.runpytest(
        "subs",
        "--pcg-problem",
        PAIR,
        *paid,
        "--pcg-grid-instances",
        "2",
        "--pcg-trials",
        "3",
        "--co",
        "-p",
        "no:cacheprovider",
    )
    # binary: 3 submissions x 2 instances x 3 trials = 18; smb: self_check's 6: 24 trials, at 1 call each
    result.stdout.fnmatch_lines(
        [
            "pcg: pre-flight estimate over the suite: 2 problems, 24 trials at most *; 24 calls x (1,000 prompt + "
            "300 completion tokens) = 31,200 tokens on gpt-4o: ~$0.13"
        ]
    )


def test_an_unknown_name_in_a_list_is_refused_with_the_closest_names(bench: pytest.Pytester) -> None:
    result = run(bench, "pcgbench/binary-v0,pcgbench/smb", "x", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pcg-problem: no problem 'pcgbench/smb' (closest: pcgbench/smb-v0*"])
    assert "science-birds" not in result.stderr.str()


def test_a_suite_across_families_collects_each_problem_its_own_submissions(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ask-Guess, SpyFall and the picture game in one run: each command-line folder holds one family's entries
    (a folder of another family's is looked into, not refused), the Ask-Guess role prompts are not evaluated on
    SpyFall only, and one double answers both families (tests/suite_double.py)."""
    for double in ("gameeval/ge_doubles.py", "imagegame/ig_doubles.py", "suite_double.py"):
        shutil.copy(REPO / "tests" / double, pytester.path)
    shutil.copytree(REPO / "examples" / "gameeval" / "askguess", pytester.path / "askguess")
    shutil.copytree(REPO / "examples" / "imagegame", pytester.path / "imagegame")
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    result = pytester.runpytest(
        "askguess",
        "imagegame",
        "--pcg-problem",
        "gameeval/askguess-easy,gameeval/spyfall,imagegame",
        *("--pcg-backend", "scripted", "--pcg-model", "suite_double:respond", "--pcg-store", "store"),
        *("--pcg-trials", "1", "--pcg-imagegame-instances", "compact_grids/0", "--pcg-out", "run"),
        *("-k", "word_apple or pair_ipad or problem_imagegame or evaluated", "-p", "no:cacheprovider"),
    )
    result.assert_outcomes(passed=3 + 1 + 3, failed=2, deselected=result.parseoutcomes()["deselected"])
    top = doc(pytester.path / "run")
    assert [p["folder"] for p in top["problems"]] == ["gameeval-askguess-easy", "gameeval-spyfall", "imagegame"]
    assert top["exit_status"] == 1
    spyfall = doc(pytester.path / "run" / "gameeval-spyfall")
    assert sorted(spyfall["folder_errors"]) == [
        "askguess/answerer_program::gameeval/spyfall::not-evaluated",
        "askguess/questioner_prompt::gameeval/spyfall::not-evaluated",
    ]
    assert doc(pytester.path / "run" / "gameeval-askguess-easy")["folder_errors"] == {}
    picture = doc(pytester.path / "run" / "imagegame")
    assert sorted(row["submission"] for row in picture["leaderboard"]) == ["giver_program", "giver_prompt", "selfplay"]
    assert all(e["outcome"] == "done" for e in picture["episodes"])  # the picture game's double answered it


@pytest.mark.slow
def test_every_pcg_benchmark_variant_in_one_run(tmp_path: Path) -> None:
    """The issue's check: self_check over all 46 variants, one run: 46 folders, one card, one exit code."""
    from pcg_plugin.problems.pcgbench.bench.registry import names

    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO / "tests" / "pcgbench"), str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    cmd = [sys.executable, "-m", "pytest", str(REPO / "examples" / "pcgbench" / "self_check"), "--pcg-problem"]
    cmd += ["pcgbench/*", "--pcg-out", str(tmp_path / "run"), *COMMON, "-p", "no:cacheprovider", "-q"]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
    top = doc(tmp_path / "run")
    assert len(top["problems"]) == len(names()) == 46
    assert sorted(p.name for p in (tmp_path / "run").iterdir() if p.is_dir()) == sorted(
        n.replace("/", "-") for n in (f"pcgbench/{v}" for v in names())
    )
    assert top["exit_status"] == 0
    assert (tmp_path / "run" / "card.md").read_text().count("| self_check |") == 46
