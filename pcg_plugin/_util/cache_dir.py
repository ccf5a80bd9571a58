"""Where pytest-pcg keeps work that outlives a run (classifier results, unpacked zips): one user-level folder."""

from __future__ import annotations

import os
from pathlib import Path

ENV_CACHE_DIR = "PCG_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$PCG_CACHE_DIR``, else ``$XDG_CACHE_HOME/pytest-pcg``, else ``~/.cache/pytest-pcg``.

    A user-level folder (not the run folder) so that re-running an evaluation re-uses earlier runs' work.
    """
    env = os.environ.get(ENV_CACHE_DIR)
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "pytest-pcg"
