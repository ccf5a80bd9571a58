"""Issue 54's figures: the comparison a new user made, and the pages it links, as headless Chromium shows them.

    python scripts/figures/compare_figures.py WORK [--code CHECKOUT] [--label after] [--images docs/images/issue54]

In WORK: a Science Birds run ``a`` (``plain`` sends the same message every trial, so every trial builds the same
level, its diversity is 0 and it scores 0; ``varied`` sends its trial number and scores) and a run ``b`` whose
every reply is empty (no code), 2 letters x 2 trials, answered by the scripted double of tests/e2e with a tiny
random classifier; then ``pcg compare a b -o compare.html``; and a small picture-game run (three submissions,
two instances). It prints run b's ranking as the terminal showed it and the comparison's table, and writes
(``LABEL`` = ``--label``): ``compare-LABEL.png`` (the compare page), ``trial-LABEL.png`` (a trial page of run a),
``empty-reply-LABEL.png`` (a trial page of run b) and ``imagegame-board-LABEL.png`` (the picture game's
leaderboard), each 1280 px wide, reduced to 64 colours.

``--code`` runs another checkout's pytest-pcg (the figures "before": a copy of main, ``git archive <sha> | tar
-x -C DIR``); the doubles, the classifier and the screenshots are this checkout's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
EMPTY = "def respond(messages, n=1):\n    return [''] * n\n"
IMAGEGAME = {
    "perfect": 'model = "ig_doubles:respond_perfect"\n',
    "chatty": 'model = "ig_doubles:respond_chatty_giver"\n',
    "prompted": 'model = "ig_doubles:respond_perfect"\ngiver_prompt = "giver.txt"\n',
}
GIVER = "Describe this picture to me, one row per command, then say Command: DONE.\n\n<TARGET_GRID>\n\n<QUESTION>"


def run(cmd: list[str], cwd: Path, code: Path, *paths: Path) -> subprocess.CompletedProcess[str]:
    """``cmd`` with ``code``'s pytest-pcg first on the path (then ``paths``: the doubles), nothing written there."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (code, *paths))), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("OPENAI_API_KEY", None)
    env["PCG_CACHE_DIR"] = str(cwd / "cache")
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def science_birds(work: Path, code: Path) -> Path:
    """Runs a and b and the comparison page; the folder holding them."""
    sys.path.insert(0, str(TESTS / "e2e"))
    from e2e_support import GOOD_BODY, RESPONDER, VARIED_BODY, make_tiny_classifier, program

    sb = work / "science-birds"
    for double, text in (("good", textwrap.dedent(RESPONDER)), ("empty", EMPTY)):
        (sb / double).mkdir(parents=True, exist_ok=True)
        (sb / double / "scripted_llm.py").write_text(text)
    for name, body in (("plain", GOOD_BODY), ("varied", VARIED_BODY)):
        (sb / "subs" / name).mkdir(parents=True, exist_ok=True)
        (sb / "subs" / name / "program.py").write_text(program(body))
    if not (sb / "clf").exists():
        make_tiny_classifier(sb / "clf")
    for out, double in (("a", "good"), ("b", "empty")):
        cmd = [sys.executable, "-m", "pytest", "subs", "--pcg-backend", "scripted", "--pcg-model"]
        cmd += ["scripted_llm:respond", "--pcg-letters", "A,B", "--pcg-trials", "2", "--pcg-classifier", "clf"]
        cmd += [f"--pcg-out={out}", f"--pcg-store=store-{double}", "-p", "no:cacheprovider", "-p", "no:randomly"]
        got = run(cmd, sb, code, sb / double)
        lines = got.stdout.splitlines()
        at = next((i for i, line in enumerate(lines) if line.startswith("rank ")), None)
        if at is None:
            raise SystemExit(f"run {out} printed no ranking:\n{got.stdout[-3000:]}\n{got.stderr[-3000:]}")
        widest = max(len(line) for line in lines[at : at + 3])
        print(f"run {out}, its ranking as the terminal showed it (widest line {widest}):")
        print("\n".join("    " + line for line in lines[at:] if not line.startswith(("results:", "report:"))))
    got = run([sys.executable, "-m", "pcg_plugin", "compare", "a", "b", "-o", "compare.html"], sb, code)
    print("pcg compare a b -o compare.html:")
    print(textwrap.indent(got.stdout, "    "))
    return sb


def imagegame(work: Path, code: Path) -> Path:
    """A picture-game run of three submissions over two instances; its report."""
    ig = work / "imagegame"
    for name, toml in IMAGEGAME.items():
        (ig / "subs" / name).mkdir(parents=True, exist_ok=True)
        (ig / "subs" / name / "imagegame.toml").write_text(toml)
    (ig / "subs" / "prompted" / "giver.txt").write_text(GIVER)
    cmd = [sys.executable, "-m", "pytest", "subs", "--pcg-problem", "imagegame", "--pcg-backend", "scripted"]
    cmd += ["--pcg-imagegame-instances", "compact_grids/0,random_grids/1", "--pcg-store=store", "--pcg-out=out"]
    cmd += ["-p", "no:cacheprovider", "-q"]
    run(cmd, ig, code, TESTS / "imagegame")
    return ig / "out" / "report.html"


def small(png: Path) -> int:
    """The screenshot reduced to 64 colours (text pages stay sharp); its size in bytes."""
    from PIL import Image

    with Image.open(png) as image:
        image.convert("RGB").quantize(colors=64).save(png, optimize=True)
    return png.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work", type=Path, help="a scratch folder")
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose pytest-pcg runs (default: this)")
    parser.add_argument("--label", default="after", help="the screenshots' suffix (after, before)")
    parser.add_argument("--images", type=Path, default=REPO / "docs" / "images" / "issue54")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "scripts" / "figures"))
    from screenshot_report import screenshot

    from pcg_plugin.core.records import transcript

    work, code = args.work.resolve(), args.code.resolve()
    sb = science_birds(work, code)
    board = imagegame(work, code)
    shots = [
        (sb / "compare.html", "compare", 1280, 1150, ""),
        (sb / "a" / "trials" / "view.html", "trial", 1280, 640, transcript.trial_id("subs/plain::A::1")),
        (sb / "b" / "trials" / "view.html", "empty-reply", 1280, 400, transcript.trial_id("subs/varied::A::1")),
        (board, "imagegame-board", 1280, 420, ""),
    ]
    args.images.mkdir(parents=True, exist_ok=True)
    for page, name, width, height, query in shots:
        png = screenshot(page, args.images / f"{name}-{args.label}.png", width=width, height=height, query=query)
        print(f"{png.relative_to(REPO) if png.is_relative_to(REPO) else png}: {small(png):,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
