"""The toy problem's entry point: ``-p toy_problem.plugin --pcg-problem spell`` (an installed problem would name
``toy_problem.problem:Spell`` in the ``pytest_pcg.problems`` entry points instead)."""

from __future__ import annotations

from typing import Any

import pytest

from toy_problem.problem import Spell


@pytest.hookimpl
def pytest_pcg_problem(config: pytest.Config, name: str) -> Any:
    return Spell() if name == Spell.name else None
