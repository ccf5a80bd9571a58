"""Fixtures for the imagegame tests; ig_helpers.py sits next to them (no package __init__ here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from ig_helpers import make_instance

from pcg_plugin.problems.imagegame import rules


@pytest.fixture
def instance() -> rules.Instance:
    return make_instance()
