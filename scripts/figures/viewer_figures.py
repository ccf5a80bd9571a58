"""The viewer's figures for docs/viewer.md: `pcg show` on each family's example run, headless-Chromium screenshots
(a multi-turn program's transcript, a picture-game episode, a SpyFall episode, the charts), a stability
animation's frames, and the progress line of a 104-trial run against a slow loopback server, recorded under a
terminal (``script``).

    python scripts/figures/viewer_figures.py WORK [--docs docs/images] [--delay 0.25]

Every run uses a scripted double or a loopback server (no model); WORK keeps the run folders.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts" / "figures"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from screenshot_report import browser  # noqa: E402 - scripts/, put on sys.path above

PY = sys.executable
MULTI = """
from chatgpt4pcg.competition import chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        messages = [{"role": "system", "content": "You build letters from Science Birds blocks."},
                    {"role": "user", "content": f"Plan how to build TARGET={target_character}, in words."}]
        plan = chat_with_chatgpt(ctx, messages)[0]
        messages += [{"role": "assistant", "content": plan},
                     {"role": "user", "content": f"Now write the drop_block code. TARGET={target_character} TRIAL=1"}]
        return chat_with_chatgpt(ctx, messages)[0]
"""


def pytest_run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> None:
    cmd = [PY, "-m", "pytest", *args, "-p", "no:cacheprovider", "-q", "-W", "ignore"]
    proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    print(f"$ {' '.join(args[:6])} ...: {proc.stdout.strip().splitlines()[-1]}")


def shot(url: str, png: Path, width: int, height: int) -> None:
    exe = browser()
    assert exe, "no chromium"
    profile = png.parent / f".chromium-{png.stem}"
    subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--proxy-server=127.0.0.1:9",
            "--virtual-time-budget=2000",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            url,
        ],
        capture_output=True,
        timeout=120,
    )
    shutil.rmtree(profile, ignore_errors=True)
    print(f"  {png} ({png.stat().st_size / 1e3:.0f} KB)")


def page_url(run: Path, nodeid: str) -> str:
    """The file: URL of a trial's page (``trials/view.html?<id>``: the ``?`` is not part of the file's name)."""
    from pcg_plugin.core.records import transcript

    page, _, tid = transcript.page_rel(nodeid).partition("?")
    return f"{(run / page).as_uri()}?{tid}"


def show(run: Path, nodeid: str) -> dict:  # type: ignore[type-arg]
    out = subprocess.run(
        [PY, "-m", "pcg_plugin", "show", str(run), nodeid, "--json"], capture_output=True, text=True, check=True
    ).stdout
    doc = json.loads(out)
    replayed = sum(c["replayed"] for c in doc["calls"])
    print(
        f"pcg show {run.name} '{nodeid}' --json: {len(doc['calls'])} call(s) ({replayed} replayed), "
        f"{len(doc['states'])} state(s), first reply {doc['calls'][0]['reply'][:40]!r}"
        if doc["calls"]
        else f"pcg show {run.name} '{nodeid}': no calls"
    )
    return doc


def science_birds(work: Path, images: Path) -> None:
    from e2e_support import make_tiny_classifier, write_competition

    from pcg_plugin.core.views import viewer

    sb = work / "science-birds"
    shutil.rmtree(sb, ignore_errors=True)
    sb.mkdir(parents=True)
    write_competition(
        sb,
        {
            "multi_turn": {"entry.py": textwrap.dedent(MULTI)},
            "one_prompt": {"prompt.txt": "Draw the letter. TARGET=<OBJECT> TRIAL=2"},
        },
    )
    make_tiny_classifier(sb / "tiny-classifier")
    pytest_run(
        sb,
        "submissions",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "scripted_llm:respond",
        "--pcg-classifier",
        "tiny-classifier",
        "--pcg-letters",
        "A,E,I,L,T",
        "--pcg-trials",
        "2",
        "--pcg-out",
        "run",
        "--pcg-store",
        "store",
        env={"PYTHONPATH": str(sb)},
    )
    run = sb / "run"
    show(run, "submissions/multi_turn::A::1")
    shot(page_url(run, "submissions/multi_turn::A::1"), images / "viewer-transcript.png", 1100, 1700)
    page = (run / "report.html").read_text(encoding="utf-8")
    alone = run / "viewer-section.html"  # the report's added part alone: a headless screenshot cannot scroll
    alone.write_text(page[: page.index("<body>") + 6] + page[page.index(viewer.MARK) :], encoding="utf-8")
    shot(alone.as_uri(), images / "viewer-charts.png", 1100, 1150)
    gifs = sorted((run / "animations").rglob("*.gif"), key=lambda p: (-p.stat().st_size, p.name))
    frames_strip(gifs[0], images / "stability-frames.png")  # the run's busiest animation: the most blocks moved


def frames_strip(gif: Path, png: Path, picks: int = 6) -> None:
    """Evenly spaced frames of an animation side by side."""
    from PIL import Image, ImageSequence

    with Image.open(gif) as img:
        frames = [(f.convert("RGB"), f.info.get("duration", 0)) for f in ImageSequence.Iterator(img)]
    starts = [sum(d for _, d in frames[:k]) / 1000 for k in range(len(frames))]
    picked = [round(i * (len(frames) - 1) / (picks - 1)) for i in range(picks)]
    chosen = [frames[k][0] for k in picked]
    w, h = chosen[0].size
    strip = Image.new("RGB", (picks * (w + 8) - 8, h), "white")
    for i, f in enumerate(chosen):
        strip.paste(f, (i * (w + 8), 0))
    strip.save(png)
    at = ", ".join(f"{starts[k]:.1f}" for k in picked)
    print(f"  {png} ({len(frames)} frames in {gif.name}, {gif.stat().st_size / 1e3:.1f} KB; shown at {at} s)")


def games(work: Path, images: Path) -> None:
    runs = {
        "imagegame": (
            [
                "examples/imagegame",
                "--pcg-problem",
                "imagegame",
                "--pcg-backend",
                "scripted",
                "--pcg-model",
                "ig_doubles:respond_perfect",
            ],
            "tests/imagegame",
            "examples/imagegame/giver_prompt::compact_grids/0::1",
        ),
        "spyfall": (
            [
                "examples/gameeval/spyfall",
                "--pcg-problem",
                "gameeval/spyfall",
                "--pcg-backend",
                "scripted",
                "--pcg-model",
                "ge_doubles:respond",
            ],
            "tests/gameeval",
            "examples/gameeval/spyfall/selfplay::tiger&lion::1",
        ),
        "pcgbench": (
            [
                "examples/pcgbench",
                "--pcg-problem",
                "pcgbench/zelda-v0",
                "--pcg-backend",
                "scripted",
                "--pcg-model",
                "grid_double:respond",
            ],
            "tests/pcgbench",
            "examples/pcgbench/self_check::player_key13-key_door12::1",
        ),
    }
    for name, (args, path, nodeid) in runs.items():
        run = work / name
        shutil.rmtree(run, ignore_errors=True)
        pytest_run(
            ROOT,
            *args,
            "--pcg-out",
            str(run),
            "--pcg-store",
            str(work / f"{name}-store"),
            env={"PYTHONPATH": str(ROOT / path)},
        )
        show(run, nodeid)
        if name != "pcgbench":
            shot(page_url(run, nodeid), images / f"viewer-{name}.png", 1100, 1400)


def progress(work: Path, images: Path, delay: float) -> None:
    """104 trials (4 prompts x 26 letters) against a loopback server answering each call after ``delay`` s."""
    import loopback_llm
    from e2e_support import make_tiny_classifier

    folder = work / "progress"
    shutil.rmtree(folder, ignore_errors=True)
    for k in range(4):
        (folder / "submissions" / f"team_{k}").mkdir(parents=True)
        (folder / "submissions" / f"team_{k}" / "prompt.txt").write_text(f"Team {k}: draw the letter <OBJECT>.")
    make_tiny_classifier(folder / "tiny-classifier")

    class Slow(loopback_llm.FakeOpenAI):
        def answer(self, body: dict) -> list[str]:  # type: ignore[type-arg]
            import time

            from pcg_plugin.problems.science_birds.level.glyphs import letter_program

            time.sleep(delay)
            letter = re.findall(r'"([A-Z])"', body["messages"][-1]["content"])[-1]
            return ["```\n" + letter_program(letter, 0) + "\n```"] * body.get("n", 1)

    with loopback_llm.serve(Slow(usage=(420, 180))) as server:
        cmd = (
            f"{PY} -m pytest submissions --pcg-backend openai-compatible --pcg-base-url {server.url} "
            "--pcg-model gpt-3.5-turbo-0125 --pcg-classifier tiny-classifier --pcg-out run --pcg-store store "
            "--pcg-trials 1 -p xdist -n 2 -p no:cacheprovider -W ignore"
        )
        rec = folder / "progress.typescript"
        subprocess.run(
            ["script", "-q", "-e", "-c", cmd, str(rec)],
            cwd=folder,
            capture_output=True,
            env={**os.environ, "OPENAI_API_KEY": "sk-loopback", "COLUMNS": "120"},
            timeout=600,
        )
    shutil.copyfile(rec, images / "progress-104.typescript")  # `cat` it in a terminal to see the line redrawn
    raw = rec.read_bytes().decode("utf-8", "replace")
    draws = re.findall(r"\r\x1b\[K(pcg [^\r\n]*)", raw)
    print(f"progress: {len(draws)} redraws of one line; every 13th and the last:")
    for text in draws[::13] + draws[-1:]:
        print(f"  {text}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--docs", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--delay", type=float, default=0.25, help="seconds the loopback server takes per call")
    args = parser.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    science_birds(work, args.docs)
    games(work, args.docs)
    progress(work, args.docs, args.delay)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
