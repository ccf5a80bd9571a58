"""One copy of the problem's shared services per node of the cluster (``start_services``: Science Birds'
classification service), as one machine has one for all its xdist workers: a service listens on a local socket,
which a trial actor on another host cannot reach, and one per trial actor would load the model once per CPU.

A ``NodeServices`` actor is pinned to each node that runs trials; on a node with a GPU it takes one, so the
service it starts (a child process) gets that GPU (Ray sets ``CUDA_VISIBLE_DEVICES`` for it). Each trial actor
is handed its own node's service string (``worker.node_service``). Where some nodes have a GPU and others none,
only the GPU nodes start one, listening on TCP, and the CPU-only nodes' actors are handed a GPU node's (``route``).
Nothing here is problem-specific: the problem's own ``start_services``/``stop_services`` do the work, on the node,
with the run's settings (``$PCG_SERVICE_LISTEN`` asks for the TCP listener)."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

from pcg_plugin.cluster.worker import worker_config


def trial_nodes(nodes: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The nodes trial actors can land on (alive, with a CPU), in Ray's order (``ray.nodes()`` entries)."""
    return [n for n in nodes if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]


def has_gpu(node: Mapping[str, Any]) -> bool:
    return bool(node.get("Resources", {}).get("GPU", 0) >= 1)


def service_nodes(nodes: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], bool]:
    """The nodes that start a service, and whether it listens on TCP. Where some nodes have a GPU and others none,
    the GPU nodes alone, reachable from the others (whose trial actors send them images already shrunk to the
    model's input size): a CPU-only node would classify far slower than it sends. Else every node, on a local
    socket."""
    gpu = [n for n in nodes if has_gpu(n)]
    if gpu and len(gpu) < len(nodes):
        return gpu, True
    return list(nodes), False


def route(nodes: Sequence[Mapping[str, Any]], services: Mapping[str, str | None]) -> dict[str, str | None]:
    """Each trial node's service string (by node id): its own where it has one, else the GPU nodes' in turn."""
    shared = [services[node] for node in sorted(services)]
    out: dict[str, str | None] = {}
    for node in nodes:
        node_id = node["NodeID"]
        if node_id in services:
            out[node_id] = services[node_id]
        elif shared:
            out[node_id] = shared[sum(1 for n in out if n not in services) % len(shared)]
    return out


def service_options(node: Mapping[str, Any]) -> dict[str, Any]:
    """Where and with what a node's services actor runs: on that node and nowhere else (a lost node takes its
    services with it), no CPU (the service's work is its own process's; the CPUs are the trial actors'), and
    one GPU where the node has one."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    gpus = 1 if node.get("Resources", {}).get("GPU", 0) >= 1 else 0
    return {
        "num_cpus": 0,
        "num_gpus": gpus,
        "max_restarts": 0,
        "scheduling_strategy": NodeAffinitySchedulingStrategy(node["NodeID"], soft=False),
    }


class NodeServices:
    """On one node: the problem's ``start_services`` with the run's settings, in a node-local run folder (its
    lock and info files), listening on TCP when other nodes use it too (``tcp``); ``close`` runs
    ``stop_services``."""

    def __init__(
        self, args: Sequence[str], invocation_dir: str, run: Mapping[str, Any], name: str, tcp: bool = False
    ) -> None:
        from pathlib import Path

        import ray

        from pcg_plugin.core.contract.base import SERVICE_LISTEN_ENV
        from pcg_plugin.core.contract.problem import SETTINGS_KEY, problem_of

        if tcp:  # other nodes' trial actors reach this one at the node's address
            os.environ[SERVICE_LISTEN_ENV] = f"tcp:{ray.util.get_node_ip_address()}"
        self.run_dir = Path(tempfile.mkdtemp(prefix="pcg-cluster-services-"))
        self.config = worker_config(args, invocation_dir, dict(run, run_dir=str(self.run_dir)), None, 1, name)
        self.service = problem_of(self.config).start_services(
            self.config, self.config.stash[SETTINGS_KEY], self.run_dir
        )

    def describe(self) -> dict[str, Any]:
        """The node, its service string and the GPUs this actor holds (for the driver's summary)."""
        import ray

        return {
            "node": ray.get_runtime_context().get_node_id(),
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "service": self.service,
            "gpus": [str(g) for g in ray.get_gpu_ids()],
        }

    def close(self) -> None:
        import shutil

        self.config._ensure_unconfigure()  # the plugin's pytest_unconfigure: the problem's stop_services
        shutil.rmtree(self.run_dir, ignore_errors=True)
