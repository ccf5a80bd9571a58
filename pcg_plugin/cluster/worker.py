"""The body of one trial actor (Ray wraps this class in ``pool``): in its process it builds the pytest config an
xdist worker would build from the driver's command line and run (the plugin's worker branch: the problem's
settings again and its ``start_process``: backends, classifier client, sandbox fork server), then runs trials
one at a time. Its run folder is a node-local staging copy, so a trial's files travel back with its record."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.cluster.outcome import Outcome, pack_error, take_files
from pcg_plugin.core.session.controller import CLUSTER_ACTOR_KEY, RUN_KEY, SERVICE_KEY

# the driver's options that must not reach a worker's own command line
_DRIVER_ONLY = ("--pcg-cluster", "--pcg-cluster-cpus", "--pcg-cluster-gpus", "--pcg-cluster-fault")


def worker_args(args: Sequence[str]) -> list[str]:
    """The driver's command line without the cluster options (``--opt value`` and ``--opt=value``)."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in _DRIVER_ONLY:
            skip = "=" not in arg
            continue
        out.append(arg)
    return out


def worker_config(
    args: Sequence[str], invocation_dir: str, run: Mapping[str, Any], service: str | None, workers: int, name: str
) -> pytest.Config:
    """The pytest config an xdist worker of this run would have (the plugin's worker branch), built in this
    process from the driver's command line."""
    from _pytest.config import _prepareconfig

    if Path(invocation_dir).is_dir():  # a node with the same checkout; else the runtime env's working_dir
        os.chdir(invocation_dir)
    config = _prepareconfig(worker_args(args), None)
    config.option.numprocesses = None
    config.option.dist = "no"
    workerinput = {RUN_KEY: json.dumps(dict(run)), "workercount": workers, "workerid": name, CLUSTER_ACTOR_KEY: "1"}
    config.workerinput = workerinput  # type: ignore[attr-defined]
    if service is not None:
        config.workerinput[SERVICE_KEY] = service  # type: ignore[attr-defined]
    config.workeroutput = {}  # type: ignore[attr-defined]
    config._do_configure()
    return config


def node_service(services: Mapping[str, str | None]) -> str | None:
    """The shared service of this actor's node (``services``: the problem's ``start_services`` strings by Ray node
    id, from ``services.NodeServices``). None where the node has none (no shared service in this run, or a node
    that joined after the start): the problem then does what an xdist worker without one does. The driver's own
    service is never handed out: its socket is local to the driver's host."""
    import ray

    return services.get(ray.get_runtime_context().get_node_id())


class TrialWorker:
    """One long-lived process of the pool: configured once, then ``run`` per trial."""

    def __init__(
        self,
        args: Sequence[str],
        invocation_dir: str,
        run: Mapping[str, Any],
        services: Mapping[str, str | None],
        workers: int,
        name: str,
        limits: Mapping[str, str] | None = None,
        in_flight: int = 1,
    ) -> None:
        self.name = f"{name}@{socket.gethostname()}:{os.getpid()}"
        self.staging = Path(tempfile.mkdtemp(prefix="pcg-cluster-run-"))
        self.run_id = str(run["id"])
        if limits is not None:  # the run's store and limiter are the driver's actors (cluster.shared)
            from pcg_plugin.cluster.shared import use_shared

            use_shared(self.name, self.run_id, dict(limits))
        self.shared = limits is not None
        self.service = node_service(services)
        self.config = worker_config(
            args, invocation_dir, dict(run, run_dir=str(self.staging)), self.service, workers, name
        )
        from pcg_plugin.core.session.inflight import slots as cpu

        # the driver's --pcg-in-flight: Ray runs up to that many ``run`` calls at once, one per thread (``pool``)
        self.slots = cpu.Slots(1, in_flight)  # the actor holds one CPU
        cpu.install(self.slots if in_flight > 1 else None)
        self.open = threading.Event()  # closed while ``hold`` holds the actor: no trial starts
        self.open.set()

    def ping(self) -> tuple[str, str]:
        """Its name and the Ray node it runs on."""
        import ray

        return self.name, ray.get_runtime_context().get_node_id()

    def placement(self) -> tuple[str, str | None]:
        """This actor's Ray node and the shared service string it uses."""
        import ray

        return ray.get_runtime_context().get_node_id(), self.service

    def run(self, nodeid: str, attempt: int, submission: Any, target: str, trial: int, model: str | None) -> Outcome:
        """One trial: the problem's ``setup_trial`` then ``run_trial``, as the item would run them, in a staging
        folder of its own (the actor may run several at once: each sends back only its files), holding the actor's
        CPU slot except while it waits on its model (``core.session.inflight``)."""
        from pcg_plugin.core.contract.problem import problem_of
        from pcg_plugin.core.records import calls
        from pcg_plugin.core.records.rundir import writing_to

        self.open.wait()
        problem = problem_of(self.config)
        if self.shared:
            from pcg_plugin.cluster.shared import set_attempt

            set_attempt(self.run_id, attempt)  # the store's claim names this attempt
        folder = Path(tempfile.mkdtemp(prefix="trial-", dir=self.staging))
        failed_in: str | None = "setup"
        record, error = None, None
        calls.start()
        try:
            with writing_to(folder), self.slots.running():
                problem.setup_trial(self.config, submission)
                failed_in = "call"
                record = problem.run_trial(self.config, submission, target, trial, nodeid, model).to_json()
                failed_in = None
        except BaseException as exc:  # noqa: BLE001 - whatever the trial raised is its outcome, shown by the driver
            error = pack_error(exc)
        made = calls.take()
        files = take_files(folder)
        shutil.rmtree(folder, ignore_errors=True)
        return Outcome(
            record=record,
            failed_in=failed_in,
            error=error,
            files=files,
            worker=self.name,
            attempt=attempt,
            calls=tuple(made) if failed_in != "setup" else None,
        )

    def hold(self, seconds: float) -> None:
        """Test hook (``--pcg-cluster-fault``): start no trial for ``seconds``, so the trials queued behind this call
        have not started (nothing paid) when the node is removed."""
        import time

        self.open.clear()
        time.sleep(seconds)
        self.open.set()

    def facts(self) -> dict[str, Any]:
        """What an xdist worker reports at its end (``process_facts``)."""
        from pcg_plugin.core.contract.problem import problem_of

        return dict(problem_of(self.config).process_facts(self.config))

    def close(self) -> None:
        self.config._ensure_unconfigure()
