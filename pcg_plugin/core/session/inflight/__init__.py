"""Many trials in flight in one process (``--pcg-in-flight N``, ``PCG_IN_FLIGHT``): while one trial waits on its
model, the others run.

pytest stays the front end: every trial is its own item, run in order, one protocol at a time on the main thread,
with its own outcome and report line. What changes is when a trial starts: each process starts the trials of its
next N items ahead, each on a thread of its own (``runner``; ``-n 0``: the session's items, xdist: the items its
worker has been sent, ``xdist``), and an item reports its trial when it comes up, as an item of a cluster run
reports what an actor sent back. CPU work stays bounded by the process's cores (``slots``). ``1`` runs each trial
in its item, as before this option existed.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from pcg_plugin.core.contract.options import option_value

ENV = "PCG_IN_FLIGHT"
DEFAULT = 16  # when the answers come from a server; docs/in-flight.md: the measurements behind it
DEST = "pcg_in_flight"


def add_option(group: Any) -> None:
    group.addoption(
        "--pcg-in-flight",
        dest=DEST,
        default=None,
        metavar="N",
        help=f"trials each process keeps in flight: while one waits on its model, others run (default {DEFAULT} when "
        f"the model is a server, 1 for an in-process model or the scripted double; or ${ENV}); the CPU work stays "
        "bounded by the process's cores; 1: one trial at a time, in its item",
    )


def depth(config: pytest.Config, default: int = DEFAULT) -> int:
    """The ``--pcg-in-flight`` of this run (the option, else the ini key, else ``$PCG_IN_FLIGHT``, else ``default``);
    a usage error names a value that is not a whole number of at least 1."""
    value = option_value(config, DEST)
    text = str(value if value is not None else os.environ.get(ENV, "")).strip()
    if not text:
        return default
    source = "--pcg-in-flight" if value is not None else f"${ENV}"
    if not text.isdigit() or int(text) < 1:
        raise pytest.UsageError(f"{source} {text}: expected a whole number of trials in flight, at least 1")
    return int(text)
