"""Headless-Chromium screenshot of a report.html: proves the page renders offline in a real browser."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def screenshot(
    html: Path, png: Path, *, width: int = 1400, height: int = 1800, timeout: float = 90, query: str = ""
) -> Path:
    """Run ``chromium --headless --screenshot`` with the network off; raise if no PNG appears. ``query``: what
    follows ``?`` in the page's address (a trial page names its trial so)."""
    exe = browser()
    if exe is None:
        raise RuntimeError("no chromium found (apt-get install -y chromium)")
    png = png.resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            # a page that fills itself by script (the trial page, named by its query) has done so
            *(["--virtual-time-budget=3000"] if query else []),
            html.resolve().as_uri() + (f"?{query}" if query else ""),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if not png.is_file():
        raise RuntimeError(f"chromium wrote no screenshot (exit {proc.returncode}): {proc.stderr[-800:]}")
    return png


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("html", type=Path, help="report.html to open")
    parser.add_argument("png", type=Path, help="screenshot to write")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1800)
    parser.add_argument("--crop", help="keep only the rows TOP:BOTTOM of the screenshot (pixels), e.g. 815:1925")
    args = parser.parse_args(argv)
    try:
        out = screenshot(args.html, args.png, width=args.width, height=args.height)
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as exc:
        print(f"screenshot_report: {exc}", file=sys.stderr)
        return 1
    if args.crop:
        from PIL import Image

        top, bottom = (int(v) for v in args.crop.split(":"))
        with Image.open(out) as im:
            im.crop((0, top, im.width, min(bottom, im.height))).save(out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
