"""Where the repo's shipped assets and the shared reference data live."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # pcg_plugin/
REPO_ROOT = PACKAGE_DIR.parent


def shared_dir() -> Path:
    """The read-only ``shared/`` folder beside the repo (override with ``PCG_SHARED``)."""
    env = os.environ.get("PCG_SHARED")
    return Path(env) if env else REPO_ROOT.parent / "shared"


def shared_data() -> Path:
    return shared_dir() / "data"


def template_source(name: str) -> str:
    """A report template from the installed package (``pcg_plugin.templates``), else from the repo's top-level
    ``templates/`` (an editable install without the mapped package)."""
    try:
        from importlib.resources import files

        return (files("pcg_plugin.templates") / name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return (REPO_ROOT / "templates" / name).read_text(encoding="utf-8")


def stem(team: str, letter: str, trial: int) -> str:
    """The official file stem ``<team>_<C>_<n>`` of one trial's raw, code, level and image files (the official
    API's log files and the response store's raw export use it too)."""
    return f"{team}_{letter}_{trial}"
