"""Hook specifications pytest-pcg adds to pytest (registered by pcg_plugin.plugin), xdist-newhooks style."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=False)
def pytest_pcg_run_finished(config: pytest.Config, results: dict[str, Any]) -> None:
    """Called once, on the controller, after the official scores of a run are computed.

    ``results`` is the run's results document exactly as written to ``<run>/results.json``
    (schema ``pytest-pcg/results/1``, see pcg_plugin.plugin). In a suite (``--pcg-problem a,b``) it is called
    once per problem, with that problem's document (its folder's results.json) and its own view of the config
    (``core.session.members.MemberConfig``: ``problem_of(config)`` is that problem). Implementations may set
    ``config.stash``-held state or ``session.exitstatus`` (for example baseline gating) but
    must not raise.
    """


@pytest.hookspec(firstresult=True)
def pytest_pcg_evaluating(config: pytest.Config) -> bool | None:
    """Return False when this run does not evaluate but checks the submissions (the problem's
    ``checks_collector`` then collects; Science Birds' ``--pcg-rules``/``--pcg-dry-run`` plugin says so), or None
    to leave it to the next implementation; nobody saying False: the run evaluates."""


@pytest.hookspec(firstresult=True)
def pytest_pcg_problem(config: pytest.Config, name: str) -> Any:
    """Return the Problem called ``name`` (``--pcg-problem``), or None to leave it to the next implementation
    and finally to the ``pytest_pcg.problems`` entry points. A conftest supplies a problem this way."""
