"""Shared fixtures: the reference data beside the repo, hypothesis profiles."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import pcg_plugin.errors  # noqa: F401  (see below)
import pcg_plugin.problems.science_birds.results  # noqa: F401  (see below)
from pcg_plugin._util.paths import shared_data
from pcg_plugin.core import problem as problems

# pytester's in-process runs drop from sys.modules every module first imported during the run, while the package
# keeps its attribute: a later `from pcg_plugin import results` then gets the old copy and `from
# pcg_plugin.problems.science_birds.results import Results` a new one (two Results classes in one worker; seen with
# `pytest -n 2 tests/llm tests/e2e tests/pcgbench tests/imagegame`). Imported here, before any run, each stays one.
# So is every problem's implementation, which a run imports only when it chooses the problem (a test module that
# imported a problem's records before a run must see the same classes as that run's outputs, `isinstance` checks).
for _module in sorted({e.implementation.partition(":")[0] for e in problems.registered().values()}):
    importlib.import_module(_module)

settings.register_profile("dev", deadline=None, max_examples=60)
settings.register_profile(
    "ci", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def shared() -> Path:
    """../shared/data: the official golden outputs and calibration data (must exist)."""
    path = shared_data()
    if not path.is_dir():
        pytest.fail(f"reference data not found at {path}; set PCG_SHARED to the shared/ folder")
    return path
