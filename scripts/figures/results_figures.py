"""Issue 34's figures, for each of the four problem families: a two-submission run answered by the scripted test
double, its flat export (rows = trials, the twelve columns first), its rank intervals (terminal, report,
results.json), ``pcg compare`` with itself (differences 0, intervals holding 0) and with a run whose answers are
empty (the drop flagged), the gate passing against itself and failing against the empty run, and ``pcg card``
over one run of each family.

    python scripts/figures/results_figures.py [WORK]     # WORK: a scratch folder (default: a new temporary one)

Every run is `python -m pytest` in a subprocess, with the doubles of tests/ (no model, no network). The empty
run's double has the same module and function names as the good one (so the model's name is the same and
Science Birds' like-for-like gate accepts it) and answers "" to everything.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
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
PCGBENCH_PROGRAM = """from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop


class Entry(TrialLoop):
    @staticmethod
    def run(ctx, task):
        return chat_with_llm(ctx, [{"role": "user", "content": f"{task} TRIAL={ctx.get_trial_number()}"}])[0]
"""
EMPTY = "def {name}(messages, n=1):\n    return [''] * n\n"


def family_setups(work: Path) -> list[dict]:
    """(name, the problem, its pytest arguments, its submissions, the double's module and function)."""
    sys.path.insert(0, str(TESTS / "e2e"))
    from e2e_support import GOOD_BODY, RESPONDER, VARIED_BODY, make_tiny_classifier, program

    sb = work / "science-birds"
    (sb / "good").mkdir(parents=True, exist_ok=True)
    (sb / "good" / "scripted_llm.py").write_text(textwrap.dedent(RESPONDER))
    for name, body in (("plain", GOOD_BODY), ("varied", VARIED_BODY)):
        (sb / "subs" / name).mkdir(parents=True, exist_ok=True)
        (sb / "subs" / name / "program.py").write_text(program(body))
    if not (sb / "tiny-classifier").exists():
        make_tiny_classifier(sb / "tiny-classifier")
    pb, ig, ge = work / "pcgbench", work / "imagegame", work / "gameeval"
    for folder, double in (
        (pb, TESTS / "pcgbench" / "grid_double.py"),
        (ig, TESTS / "imagegame" / "ig_doubles.py"),
        (ge, TESTS / "gameeval" / "ge_doubles.py"),
    ):
        (folder / "good").mkdir(parents=True, exist_ok=True)
        shutil.copy(double, folder / "good" / double.name)
    (pb / "subs" / "by_trial").mkdir(parents=True, exist_ok=True)  # a program: the double answers by trial
    (pb / "subs" / "by_trial" / "entry.py").write_text(PCGBENCH_PROGRAM)
    for folder, src, names in (
        (pb, REPO / "examples" / "pcgbench", ("zero_shot",)),
        (ig, REPO / "examples" / "imagegame", ("selfplay", "giver_prompt")),
        (ge, REPO / "examples" / "gameeval" / "askguess", ("selfplay", "questioner_prompt")),
    ):
        for n in names:
            if not (folder / "subs" / n).exists():
                shutil.copytree(src / n, folder / "subs" / n)
    return [
        {
            "family": "Science Birds",
            "dir": sb,
            "module": "scripted_llm",
            "func": "respond",
            "args": ["--pcg-letters", "A,B", "--pcg-trials", "3", "--pcg-classifier", str(sb / "tiny-classifier")],
        },
        {
            "family": "PCG Benchmark",
            "dir": pb,
            "module": "grid_double",
            "func": "respond",
            "args": ["--pcg-problem", "pcgbench/binary-v0", "--pcg-trials", "3"],
        },
        {
            "family": "picture game",
            "dir": ig,
            "module": "ig_doubles",
            "func": "respond_perfect",
            "args": ["--pcg-problem", "imagegame", "--pcg-trials", "3"],
        },
        {
            "family": "GameEval",
            "dir": ge,
            "module": "ge_doubles",
            "func": "respond",
            "args": [
                "--pcg-problem",
                "gameeval/askguess-easy",
                "--pcg-gameeval-targets",
                "apple,bear",
                "--pcg-trials",
                "3",
            ],
        },
    ]


def pytest_run(setup: dict, out: str, double: str, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(setup["dir"] / double), "PCG_CACHE_DIR": str(setup["dir"] / "cache")}
    env.pop("OPENAI_API_KEY", None)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "subs",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        f"{setup['module']}:{setup['func']}",
        "--pcg-out",
        out,
        "--pcg-store",
        f"store-{double}",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-q",
        *setup["args"],
        *extra,
    ]
    return subprocess.run(cmd, cwd=setup["dir"], env=env, capture_output=True, text=True)


def pcg(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pcg_plugin", *args], cwd=cwd, capture_output=True, text=True)


def family(setup: dict) -> dict:
    d = setup["dir"]
    (d / "empty").mkdir(exist_ok=True)
    (d / "empty" / f"{setup['module']}.py").write_text(EMPTY.format(name=setup["func"]))
    for out in ("A", "A2", "E"):
        shutil.rmtree(d / out, ignore_errors=True)
    a = pytest_run(setup, "A", "good")
    a2 = pytest_run(setup, "A2", "good", "--pcg-baseline", "A")
    e = pytest_run(setup, "E", "empty", "--pcg-baseline", "A")
    doc = json.loads((d / "A" / "results.json").read_text())
    subs = doc.get("leaderboard") or doc["submissions"]
    exported = pcg("export", "A", "--format", "csv", cwd=d).stdout
    rows = list(csv.reader(io.StringIO(exported)))
    jsonl = pcg("export", "A", "--format", "jsonl", cwd=d).stdout.splitlines()
    settings = doc["settings"]
    trials = int(settings.get("trials") or 0)
    targets = {r["target"] for r in map(json.loads, jsonl)}
    self_cmp = json.loads(pcg("compare", "A", "A", "--json", cwd=d).stdout)
    worse = json.loads(pcg("compare", "A", "E", "--json", cwd=d).stdout)
    worse_text = pcg("compare", "A", "E", cwd=d).stdout
    return {
        "family": setup["family"],
        "problem": doc.get("problem", "science-birds"),
        "run_exit": a.returncode,
        "submissions": len(subs),
        "targets": len(targets),
        "trials": trials,
        "export_rows": len(rows) - 1,
        "expected_rows": len(subs) * len(targets) * trials,
        "first_12": rows[0][:12] == COLUMNS,
        "rank_interval": [s.get("rank_interval") for s in subs],
        "terminal_interval": "95% rank" in a.stdout,
        "report_interval": any(h in (d / "A" / "report.html").read_text() for h in ("95% rank", "rank 95%")),
        "banner": "UNOFFICIAL RUN" in a.stdout or "test double" in a.stdout,
        "self_diffs": [p["difference"] for p in self_cmp["pairs"]],
        "self_contains_0": all(p["low"] <= 0 <= p["high"] for p in self_cmp["pairs"]),
        "worse_flagged": worse_text.count("DROP"),
        "worse_diffs": [round(p["difference"], 4) for p in worse["pairs"]],
        "gate_self_exit": a2.returncode,
        "gate_empty_exit": e.returncode,
        "gate_empty_table": [ln for ln in e.stdout.splitlines() if "FAILED" in ln or "regress" in ln][-1:],
    }


def main(argv: list[str]) -> int:
    work = Path(argv[1]) if len(argv) > 1 else Path(tempfile.mkdtemp(prefix="pcg-i34-"))
    work.mkdir(parents=True, exist_ok=True)
    setups = family_setups(work)
    results = [family(s) for s in setups]
    head = (
        "family",
        "subs",
        "targets x trials",
        "export rows (=trials)",
        "12 cols",
        "rank_interval",
        "terminal/report",
        "banner",
        "compare self: B-A",
        "compare empty: DROP flags",
        "gate self/empty exit",
    )
    print(" | ".join(head))
    for r in results:
        print(
            " | ".join(
                map(
                    str,
                    (
                        r["family"],
                        r["submissions"],
                        f"{r['targets']} x {r['trials']}",
                        f"{r['export_rows']} (= {r['expected_rows']})",
                        r["first_12"],
                        r["rank_interval"],
                        f"{r['terminal_interval']}/{r['report_interval']}",
                        r["banner"],
                        f"{r['self_diffs']} (0 inside: {r['self_contains_0']})",
                        f"{r['worse_flagged']} {r['worse_diffs']}",
                        f"{r['gate_self_exit']}/{r['gate_empty_exit']}",
                    ),
                )
            )
        )
    folders = [str((s["dir"] / "A").relative_to(work)) for s in setups]  # the card's run column: science-birds/A
    card = pcg("card", *folders, "-o", str(work / "card.html"), cwd=work)
    pcg("card", *folders, "-o", str(work / "card.md"), cwd=work)
    print(f"pcg card over the four runs (exit {card.returncode}): {work / 'card.html'}, {work / 'card.md'}")
    print((work / "card.md").read_text() if (work / "card.md").exists() else card.stderr)
    ok = all(
        r["export_rows"] == r["expected_rows"]
        and r["first_12"]
        and all(r["rank_interval"])
        and r["self_contains_0"]
        and not any(r["self_diffs"])
        and r["worse_flagged"]
        and r["gate_self_exit"] == 0
        and r["gate_empty_exit"] == 1
        for r in results
    )
    print("all figures as issue 34 asks" if ok else "SOME FIGURE IS NOT AS ISSUE 34 ASKS")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
