"""Running a session's trials on a Ray cluster (``--pcg-cluster``): pytest stays the front end on the driver
(collection, ``-k``, ``--lf``, the report, the run folder) and each trial runs as a task on a pool of Ray actors,
one per CPU, each holding what an xdist worker holds. Nothing here imports Ray: ``driver`` does, and only when
``--pcg-cluster`` is given (``pip install -e ".[cluster]"``)."""

from __future__ import annotations

import dataclasses
import importlib.util
from dataclasses import dataclass
from typing import Any

import pytest

from pcg_plugin.core.session.items import REMOTE_KEY

__all__ = ["REMOTE_KEY", "Address", "add_options", "check_usable", "parse_address", "xdist_requested"]

USAGE = "auto (the Ray cluster this machine belongs to), HOST:PORT (that head), or local:N (N nodes on this machine)"


@dataclass(frozen=True)
class Address:
    """Where the trials run: ``local`` nodes started here (``nodes`` of ``cpus`` each), or an existing cluster."""

    address: str | None  # "auto", "HOST:PORT" or "ray://..."; None: a local cluster this session starts
    nodes: int = 0
    cpus: int = 1
    gpus: int = 0  # local: how many of the nodes declare one GPU (to try the GPU routing; no GPU is used)
    notice: str | None = None  # joined an open cluster (--pcg-cluster-insecure): said in the summary and report


def parse_address(spec: str, cpus: int = 1, gpus: int = 0) -> Address:
    """``auto``, an address, or ``local:N``; a ``pytest.UsageError`` naming the option otherwise."""
    text = spec.strip()
    if text.startswith("local:"):
        count = text.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise pytest.UsageError(f"--pcg-cluster {spec}: local:N needs a number of nodes N >= 1 ({USAGE})")
        if not 0 <= gpus <= int(count):
            raise pytest.UsageError(f"--pcg-cluster-gpus {gpus}: between 0 and the {count} nodes of {spec}")
        return Address(None, nodes=int(count), cpus=cpus, gpus=gpus)
    if text == "auto" or text.startswith("ray://") or (":" in text and text.rsplit(":", 1)[1].isdigit()):
        return Address(text)
    raise pytest.UsageError(f"--pcg-cluster {spec}: expected {USAGE}")


def add_options(group: Any) -> None:
    group.addoption(
        "--pcg-cluster",
        dest="pcg_cluster",
        default=None,
        metavar="ADDRESS",
        help=f"run every trial on a Ray cluster: {USAGE}; needs pip install -e '.[cluster]' and "
        "cannot be combined with -n",
    )
    group.addoption(
        "--pcg-cluster-cpus",
        dest="pcg_cluster_cpus",
        type=int,
        default=1,
        help="with --pcg-cluster local:N, the CPUs (and so trial actors) of each node (default 1)",
    )
    group.addoption(
        "--pcg-cluster-gpus",
        dest="pcg_cluster_gpus",
        type=int,
        default=0,
        help="with --pcg-cluster local:N, how many nodes declare one GPU (default 0; to try how "
        "services are placed: the nodes have no GPU of their own)",
    )
    group.addoption(
        "--pcg-cluster-insecure",
        dest="pcg_cluster_insecure",
        action="store_true",
        default=False,
        help="join a Ray cluster that runs without token authentication (refused otherwise): only for a "
        "cluster protected another way (a private network, Kubernetes RBAC); the run says so in its "
        "summary and report",
    )
    group.addoption(
        "--pcg-cluster-fault",
        dest="pcg_cluster_fault",
        default=None,
        metavar="remove-node-after:K",
        help="for tests of --pcg-cluster local:N: remove one worker node once K trials have come back "
        "(its trials are retried on the nodes left)",
    )


def xdist_requested(config: pytest.Config) -> str | None:
    """The xdist option that asks for workers (``-n 2``, ``--dist``, ``--tx``), None when xdist is off."""
    numprocesses = config.getoption("numprocesses", None)
    if numprocesses:
        return f"-n {numprocesses}"
    dist = config.getoption("dist", "no")
    if dist not in (None, "no"):
        return f"--dist {dist}"
    if config.getoption("tx", None):
        return "--tx"
    return None


def check_usable(config: pytest.Config, spec: str) -> Address:
    """Refuse what cannot work, or is not safe, before anything starts (exit 4): xdist beside it, Ray missing, a
    cluster to join that runs without token authentication (unless ``--pcg-cluster-insecure``) or refuses this
    run's token (``cluster.auth``)."""
    address = parse_address(
        spec, config.getoption("pcg_cluster_cpus", 1) or 1, config.getoption("pcg_cluster_gpus", 0) or 0
    )
    asked = xdist_requested(config)
    if asked:
        raise pytest.UsageError(
            f"--pcg-cluster {spec} cannot be combined with {asked}: the cluster's actors run "
            "the trials; drop -n (or run with -n and no --pcg-cluster)"
        )
    if importlib.util.find_spec("ray") is None:
        raise pytest.UsageError(f"--pcg-cluster {spec} needs Ray: pip install -e '.[cluster]'")
    insecure = bool(config.getoption("pcg_cluster_insecure", False))
    if address.address is None:
        if insecure:
            raise pytest.UsageError(
                f"--pcg-cluster-insecure is for joining a cluster; {spec} is started here, "
                "always with token authentication"
            )
        return address
    import os

    from pcg_plugin.cluster import auth

    notice = auth.check_join(spec, address.address, insecure, os.environ)
    return dataclasses.replace(address, notice=notice)
