"""Fixtures for the GameEval tests; ge_helpers.py sits next to them (no package __init__ here)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
