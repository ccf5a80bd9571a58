"""Many trials in flight in one process (``--pcg-in-flight N``, ``PCG_IN_FLIGHT``): while one trial waits on its
model, the others run.

pytest stays the front end: every trial is its own item, run in order, one protocol at a time on the main thread,
with its own outcome and report line. What changes is when a trial starts: each process starts the trials of its
next N items ahead, each on a thread of its own (``runner``; ``-n 0``: the session's items, xdist: the items its
worker has been sent, ``xdist``), and an item reports its trial when it comes up, as an item of a cluster run
reports what an actor sent back. CPU work stays bounded by the process's cores (``slots``). ``1`` runs each trial
in its item, as before this option existed. With no number given and a model server to wait on, the harness sizes
it in each process from what its trials measured (``sizing``).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from pcg_plugin.core.contract.options import option_value

ENV = "PCG_IN_FLIGHT"
DEFAULT = 16  # when the answers come from a server and no number is given: where the harness's sizing starts
DEST = "pcg_in_flight"
SIZED_BY = pytest.StashKey[str]()  # who chose the number: "harness", or "--pcg-in-flight N" (the run's summary)


def add_option(group: Any) -> None:
    group.addoption(
        "--pcg-in-flight",
        dest=DEST,
        default=None,
        metavar="N",
        help="trials each process keeps in flight: while one waits on its model, others run (default: sized by the "
        "harness in each process when the model is a server, from its trials' waits against their CPU time, "
        f"within the rate limits, --pcg-concurrency and memory; 1 for an in-process model or the scripted double; "
        f"or ${ENV}); the CPU work stays bounded by the process's cores; 1: one trial at a time, in its item",
    )


def given(config: pytest.Config) -> int | None:
    """The ``--pcg-in-flight`` the user gave (the option, else the ini key, else ``$PCG_IN_FLIGHT``; None: none, the
    harness sizes it); a usage error names a value that is not a whole number of at least 1."""
    value = option_value(config, DEST)
    text = str(value if value is not None else os.environ.get(ENV, "")).strip()
    if not text:
        return None
    source = "--pcg-in-flight" if value is not None else f"${ENV}"
    if not text.isdigit() or int(text) < 1:
        raise pytest.UsageError(f"{source} {text}: expected a whole number of trials in flight, at least 1")
    return int(text)


def depth(config: pytest.Config, default: int = DEFAULT) -> int:
    """The ``--pcg-in-flight`` of this run, else ``default``: a fixed number (a cluster's actors take it)."""
    number = given(config)
    return default if number is None else number


def outnumbered(workers: int, cpus: int) -> str | None:
    """What to say when more xdist workers than CPUs keep trials in flight (None: they do not outnumber them):
    each worker's trials already overlap their waits, so workers past the CPUs only take turns on the same cores."""
    if workers <= cpus:
        return None
    return (
        f"-n {workers} on {cpus} CPU{'s' if cpus != 1 else ''}: trials in flight already overlap the waits on the "
        f"model; -n {cpus} would be faster (each worker keeps its own trials in flight; docs/in-flight.md)"
    )


def say_if_workers_outnumber_cpus(config: pytest.Config, workers: int) -> None:
    """With trials in flight, more xdist workers than the CPUs this process may use only adds processes that take
    turns on the same cores: said once, as the session starts, with the ``-n`` that would be faster."""
    from pcg_plugin._util.devices import available_cores

    line = outnumbered(workers, available_cores())
    if line is not None:
        config.pluginmanager.register(_SayAtStart(config, line), "pcg-in-flight-workers")


class _SayAtStart:
    """One line in the terminal as the session starts (the terminal reporter is not there yet at configure)."""

    def __init__(self, config: pytest.Config, line: str) -> None:
        self.config, self.line = config, line

    def pytest_sessionstart(self) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"pcg: {self.line}", yellow=True)
