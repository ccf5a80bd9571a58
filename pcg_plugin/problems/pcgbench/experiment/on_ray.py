"""``pcg pcgbench experiment --cluster``: the runs as Ray tasks, one CPU each, on the cluster a pytest run would
use (``--pcg-cluster``'s addresses: ``auto``, ``HOST:PORT``, ``local:N``), joined with the same token checks.

A run is a seeded unit whose record depends on its spec only, so a task whose node is lost is simply run again
(Ray's task retries): the record is the same, and it is stored once, by the driver, as it comes back."""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

from pcg_plugin.problems.pcgbench.experiment.run import RunSpec, run_unit

RETRIES = 3  # a run whose node died this many times fails the experiment (it resumes from what was stored)


@contextlib.contextmanager
def ray_submit(spec: str) -> Iterator[Callable[[RunSpec], Future[dict[str, Any]]]]:
    """A submit function for the block: each run a Ray task, its record a ``concurrent.futures`` future."""
    import pytest

    if importlib.util.find_spec("ray") is None:
        raise SystemExit(f"pcg pcgbench experiment --cluster {spec} needs Ray: pip install -e '.[cluster]'")
    from pcg_plugin.cluster import parse_address
    from pcg_plugin.cluster.auth import check_join
    from pcg_plugin.cluster.driver import joined

    try:
        address = parse_address(spec)
        if address.address is not None:
            check_join(spec, address.address, False, os.environ)
    except pytest.UsageError as exc:
        raise SystemExit(f"pcg pcgbench experiment: {str(exc).replace('--pcg-cluster', '--cluster')}") from None
    with joined(address):
        import ray

        task = ray.remote(num_cpus=1, max_retries=RETRIES)(run_unit)
        yield lambda run: task.remote(run).future()
