"""Fixtures for the episode framework's tests; players.py (the cross-play doubles) sits next to them and reuses the
games' own doubles (tests/gameeval/ge_doubles.py, tests/imagegame/ig_doubles.py)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
for folder in (HERE, HERE.parent / "gameeval", HERE.parent / "imagegame"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
