"""What a report's link to a trial opens, for the tests: the trial page with its texts in place (from the stored
transcript, as ``trials/view.html``'s script shows it), and the page as headless Chromium renders it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from pcg_plugin.core import transcript


def opened(run_dir: Path, link: str) -> str:
    """The page ``link`` (``trials/view.html?<id>``, relative to the run folder) opens, every text in place."""
    page, _, tid = link.partition("?")
    assert page == f"{transcript.FOLDER}/{transcript.VIEW}" and (Path(run_dir) / page).is_file(), link
    return transcript.page(transcript.load(Path(run_dir) / transcript.FOLDER / f"{tid}.js"))


def browser() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def rendered(run_dir: Path, link: str, profile: Path) -> str:
    """The DOM Chromium builds from ``link`` opened as a file: URL (no server, the network off)."""
    exe = browser()
    assert exe is not None
    url = (Path(run_dir) / link.partition("?")[0]).as_uri() + "?" + link.partition("?")[2]
    return subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--proxy-server=127.0.0.1:9",
            "--virtual-time-budget=3000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
