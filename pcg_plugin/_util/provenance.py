"""Run provenance: git SHA and library versions, so two reports can be told apart."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

# Distribution names whose versions change results (or the harness itself).
DISTRIBUTIONS = {
    "pytest-pcg": "pytest-pcg",
    "torch": "torch",
    "transformers": "transformers",
    "pymunk": "pymunk",
    "pillow": "pillow",
    "pytest": "pytest",
    "pytest-xdist": "pytest-xdist",
    "openai": "openai",
}


def git_sha(repo: Path) -> str | None:
    """HEAD of the checkout holding the harness (None outside git); a dirty tree is marked ``+dirty``."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{sha}+dirty" if dirty else sha or None


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for key, dist in DISTRIBUTIONS.items():
        try:
            out[key] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[key] = None
    return out


def collect(repo: Path) -> dict[str, Any]:
    """The ``provenance`` object of results.json."""
    return {"git_sha": git_sha(repo), "versions": versions(), "platform": platform.platform()}
