"""The figures of docs/site.md: small runs of four problems answered by the scripted doubles (Science Birds in
its three editions, the PCG Benchmark's binary-v0 by two models and zelda-v0, GameEval's Ask-Guess), `pcg site`
over them, then the site's index and Science Birds page screenshotted by headless Chromium.

    python scripts/figures/site_figures.py WORK [--images docs/images]

Every run is `python -m pytest` in a subprocess with the doubles of tests/ (no model, no network); a run that
exists in WORK is kept. The second model of binary-v0 is a double that answers every call with an empty text.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts" / "figures"))
sys.path.insert(0, str(TESTS / "e2e"))
EMPTY = "def respond(messages, n=1):\n    return [''] * n\n"


def pytest_run(work: Path, out: str, model: str, *args: str) -> Path:
    if (work / out / "results.json").is_file():
        return work / out
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(work), str(ROOT)]), "PCG_CACHE_DIR": str(work / "cache")}
    env.pop("OPENAI_API_KEY", None)
    cmd = [sys.executable, "-m", "pytest", "subs", "--pcg-backend", "scripted", "--pcg-model", model, "--pcg-out"]
    cmd += [out, "-p", "no:cacheprovider", "-p", "no:randomly", "-q", *args]
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    if not (work / out / "results.json").is_file():
        raise SystemExit(f"{work / out}: the run wrote no results.json\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    print(f"run {work / out}: exit {proc.returncode}", flush=True)
    return work / out


def science_birds(work: Path) -> list[Path]:
    """One run per edition: 2023 prompts (ab_drop answers), 2024 programs, 2025 chat_with_llm programs."""
    from e2e_support import RESPONDER, VARIED_BODY, make_tiny_classifier, program
    from test_editions_e2e import PROGRAM_2025, RESPONDER_2023

    if not (work / "clf").exists():
        make_tiny_classifier(work / "clf")
    subs = {
        "2023": {"long_prompt": ("prompt.txt", "Please draw this for me, with care: TARGET=<OBJECT>"),
                 "short_prompt": ("prompt.txt", "TARGET=<OBJECT>")},
        "2024": {"plain": ("entry.py", program()), "varied": ("entry.py", program(VARIED_BODY))},
        "2025": {"llm_a": ("entry.py", PROGRAM_2025.replace("{OFFSET}", "0")),
                 "llm_b": ("entry.py", PROGRAM_2025.replace("{OFFSET}", "1"))},
    }  # fmt: skip
    out = []
    for edition, entries in subs.items():
        d = work / f"sb{edition}"
        for name, (file, text) in entries.items():
            (d / "subs" / name).mkdir(parents=True, exist_ok=True)
            (d / "subs" / name / file).write_text(text)
        responder = RESPONDER_2023 if edition == "2023" else RESPONDER
        (d / "scripted_llm.py").write_text(textwrap.dedent(responder))
        if not (d / "clf").exists():
            shutil.copytree(work / "clf", d / "clf")
        args = ("--pcg-edition", edition, "--pcg-letters", "I,L", "--pcg-trials", "2", "--pcg-classifier", "clf")
        out.append(pytest_run(d, "run", "scripted_llm:respond", *args))
    return out


def pcgbench(work: Path) -> list[Path]:
    d = work / "pcgbench"
    (d / "subs").mkdir(parents=True, exist_ok=True)
    shutil.copy(TESTS / "pcgbench" / "grid_double.py", d)
    (d / "empty_llm.py").write_text(EMPTY)
    for name in ("zero_shot", "few_shot"):
        if not (d / "subs" / name).exists():
            shutil.copytree(ROOT / "examples" / "pcgbench" / name, d / "subs" / name)
    return [
        pytest_run(d, out, model, "--pcg-problem", f"pcgbench/{variant}", "--pcg-trials", "2")
        for out, model, variant in (
            ("binary", "grid_double:respond", "binary-v0"),
            ("binary-empty", "empty_llm:respond", "binary-v0"),
            ("zelda", "grid_double:respond", "zelda-v0"),
        )
    ]


def gameeval(work: Path) -> list[Path]:
    d = work / "gameeval"
    (d / "subs").mkdir(parents=True, exist_ok=True)
    shutil.copy(TESTS / "gameeval" / "ge_doubles.py", d)
    for name in ("selfplay", "questioner_prompt"):
        if not (d / "subs" / name).exists():
            shutil.copytree(ROOT / "examples" / "gameeval" / "askguess" / name, d / "subs" / name)
    args = ("--pcg-problem", "gameeval/askguess-easy", "--pcg-gameeval-targets", "apple,bear", "--pcg-trials", "2")
    return [pytest_run(d, "run", "ge_doubles:respond", *args)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--images", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args()
    from screenshot_report import screenshot

    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    runs = science_birds(work) + pcgbench(work) + gameeval(work)
    site = work / "site"
    shutil.rmtree(site, ignore_errors=True)
    cmd = [sys.executable, "-m", "pcg_plugin", "site", *map(str, runs), "-o", str(site), "--title", "Example runs"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    print(f"pcg site over {len(runs)} runs: exit {proc.returncode}\n{proc.stderr.strip()}")
    if proc.returncode:
        return proc.returncode
    for page, png, height in (
        ("index.html", "site-index.png", 1500),
        ("problems/science-birds.html", "site-science-birds.png", 700),
    ):
        print(screenshot(site / page, args.images / png, width=1280, height=height))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
