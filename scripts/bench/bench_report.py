"""Size and headless-Chromium load time of report.html for a competition-sized run, with a screenshot.

    python scripts/bench/bench_report.py RUN OUT [--trials 10] [--shot report.png]

RUN is a science-birds run folder (results.json plus its files, e.g. a replay of scripts/bench/bench_replay.py). Its
trials are repeated, renumbered, until every letter has ``--trials`` trials (the files copied under the new
names), into OUT; the report is written there by ``report_html.write_report`` (thumbnails included), and
Chromium (``scripts/figures/screenshot_report.py``) opens it with the network off: the time of a screenshot of the page
is printed beside that of an empty page (the browser's own start-up), and OUT is then moved to a new place to
show that the copied folder still renders.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts" / "figures"))

from screenshot_report import screenshot  # noqa: E402 - scripts/, put on sys.path above

from pcg_plugin.problems.science_birds.report.thumbnails import thumbnail_rel  # noqa: E402 - this checkout's pcg_plugin, on sys.path above

FILES = ("raw", "code", "level", "image")


def expand(run: Path, out: Path, trials: int) -> dict:  # type: ignore[type-arg]
    """A copy of ``run`` whose every letter has ``trials`` trials (repeats of the recorded ones)."""
    doc = json.loads((run / "results.json").read_text())
    for sub in doc["submissions"]:
        for letter in sub["letters"].values():
            have = letter["trials"]
            grown = []
            for k in range(trials):
                t = dict(have[k % len(have)])
                t["trial"] = k + 1
                for key in FILES:
                    if t.get(key):
                        old = t[key]
                        new = old.replace(f"_{have[k % len(have)]['trial']}.", f"_{k + 1}.")
                        (out / new).parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(run / old, out / new)
                        if key == "image" and (run / thumbnail_rel(old)).is_file():  # as the worker wrote it
                            (out / thumbnail_rel(new)).parent.mkdir(parents=True, exist_ok=True)
                            shutil.copyfile(run / thumbnail_rel(old), out / thumbnail_rel(new))
                        t[key] = new
                grown.append(t)
            letter["trials"] = grown
    doc["settings"]["trials"] = trials
    (out / "results.json").write_text(json.dumps(doc))
    return doc


def open_times(folder: Path, pages: list[str], shot: Path | None = None) -> tuple[float, list[float]]:
    """Seconds headless Chromium takes to screenshot an empty page, then each of ``pages`` of a copy of ``folder``
    (moved, so nothing it links is found by its old path); the last page's picture is kept at ``shot``."""
    with tempfile.TemporaryDirectory() as tmp:
        blank = Path(tmp) / "blank.html"
        blank.write_text("<!doctype html><title>blank</title>")
        t = time.perf_counter()
        screenshot(blank, Path(tmp) / "blank.png")
        empty = time.perf_counter() - t
        moved = Path(tmp) / "copied-run"
        shutil.copytree(folder, moved)
        took = []
        for i, page in enumerate(pages):
            last = i == len(pages) - 1
            t = time.perf_counter()
            screenshot(moved / page, shot if last and shot is not None else Path(tmp) / f"page{i}.png")
            took.append(time.perf_counter() - t)
    return empty, took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--shot", type=Path, default=None, help="where to keep the screenshot")
    args = parser.parse_args()
    from pcg_plugin.problems.science_birds.report.html import write_report

    out = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    doc = expand(args.run.resolve(), out, args.trials)
    n = sum(len(letter["trials"]) for sub in doc["submissions"] for letter in sub["letters"].values())
    t = time.perf_counter()
    report = write_report(doc, out)
    took = time.perf_counter() - t
    thumbs = sum(p.stat().st_size for p in (out / "thumbs").rglob("*.png"))
    print(
        f"{n} trials: report.html {report.stat().st_size / 1e6:.2f} MB written in {took:.1f} s "
        f"(thumbnails {thumbs / 1e6:.2f} MB beside it)"
    )
    empty, (full,) = open_times(out, ["report.html"], args.shot.resolve() if args.shot else None)
    print(f"headless Chromium screenshot of the copied report: {full:.1f} s (an empty page: {empty:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
