"""The driver's side of ``--pcg-cluster``: joins or starts Ray after collection, submits every selected trial
to the pool at once (so ``-k``, ``-m`` and ``--lf`` have already chosen them), and hands each item its outcome
when pytest runs it; at the end the actors' facts go to the controller and Ray is let go. Registered only when
the option is given, and the only module that starts Ray."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.cluster import REMOTE_KEY, Address
from pcg_plugin.cluster.auth import LOOPBACK, LocalAuth, start_local
from pcg_plugin.cluster.outcome import Outcome, put_files
from pcg_plugin.core.contract.problem import SETTINGS_KEY
from pcg_plugin.core.session import inflight
from pcg_plugin.core.session.controller import Controller

HOLD_S = 600.0  # the fault hook's hold: longer than any test waits; the node goes first
NAMESPACE = "pytest-pcg"  # actors are looked up by name within it (the store, the limiters)


def start_ray(address: Address) -> tuple[Any, LocalAuth | None]:
    """Connect to the cluster, or start ``local:N`` here with token authentication on and every process on loopback
    (``cluster.auth``); Ray's usage statistics are off either way. Returns the local ``Cluster`` to shut down and
    its token (None, None when joining one, whose token ``check_usable`` already checked)."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    cluster, auth = None, None
    if address.address is None:
        # a private RAY_TMPDIR: the head's session folders and ray_current_cluster stay out of the shared /tmp/ray
        os.environ.setdefault("RAY_TMPDIR", tempfile.mkdtemp(prefix="pcg-ray-", dir="/tmp"))
        auth = start_local(os.environ["RAY_TMPDIR"], os.environ)  # before Ray is imported: it reads these once
        import ray
        from ray.cluster_utils import Cluster

        cluster = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 0,
                "resources": {"head": 1},
                "include_dashboard": False,
                "node_ip_address": LOOPBACK,
            },
        )
        for i in range(address.nodes):
            cluster.add_node(
                num_cpus=address.cpus, num_gpus=int(i < address.gpus), resources={"worker": 1}, node_ip_address=LOOPBACK
            )
        cluster.wait_for_nodes()
        target = cluster.address
    else:
        import ray

        target = address.address
    ray.init(address=target, namespace=NAMESPACE, log_to_driver=False, logging_level=logging.WARNING)
    return cluster, auth


class ClusterDriver:
    """Registered on the driver as ``pcg-cluster``."""

    def __init__(self, config: pytest.Config, address: Address, spec: str, service: str | None) -> None:
        self.config, self.address, self.spec, self.service = config, address, spec, service
        self.pool: Any = None
        self.shared: dict[str, Any] = {}
        self.cluster: Any = None
        self.auth: LocalAuth | None = None
        self.tmpdir: str | None = None
        self.fault_after = _fault(config.getoption("pcg_cluster_fault", None), address)
        self.removed: list[str] = []
        self.held: tuple[Any, set[Any]] | None = None  # the fault hook's actor and its calls sent before the hold
        self.summary: list[str] = []
        self.node_services: list[Any] = []
        self.node_info: list[dict[str, Any]] = []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from pcg_plugin.core.session.items import TrialItem

        items = [i for i in session.items if isinstance(i, TrialItem)]
        if self.config.option.collectonly or not items:
            return
        self.start()
        from pcg_plugin.cluster.pool import Work

        self.pool.submit(Work(i.nodeid, (i.submission, i.target, i.trial, i.model)) for i in items)
        self.config.stash[REMOTE_KEY] = self

    def start(self) -> None:
        had_tmpdir = "RAY_TMPDIR" in os.environ
        self.cluster, self.auth = start_ray(self.address)  # first: Ray reads its authentication settings on import
        import ray

        from pcg_plugin.cluster.pool import TrialPool

        if not had_tmpdir:
            self.tmpdir = os.environ.get("RAY_TMPDIR")
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < 1:
            raise pytest.UsageError(f"--pcg-cluster {self.spec}: the cluster has no CPU for a trial actor")
        from pcg_plugin.cluster.shared import LIMIT_ENV, LIMITER, start_shared

        controller, where = self._controller(), str(self.config.invocation_params.dir)
        from pcg_plugin.llm.budget import RUN_KEY as CAP_KEY

        self.shared = start_shared(where, (controller.run.get(CAP_KEY) or {}).get("file"))
        limiter = self.shared.get(LIMITER)
        services = self._start_node_services(controller.run)
        self.pool = TrialPool(
            cpus,
            args=self.config.invocation_params.args,
            invocation_dir=where,
            run=controller.run,
            services=services,
            limits={k: os.environ[k] for k in LIMIT_ENV if os.environ.get(k, "").strip()},
            on_lost=(lambda name: limiter.release_holder.remote(name)) if limiter else None,
            in_flight=inflight.depth(self.config, getattr(self.config.stash[SETTINGS_KEY], "in_flight_default", 1)),
        )
        if self.fault_after is not None:
            self.pool.on_step = self._fault_step

    def _start_node_services(self, run: dict[str, Any]) -> dict[str, str | None]:
        """When the problem shares a service among its workers (it started one on the driver: ``self.service``),
        one per node that runs trials, started on that node (``cluster.services``). Returns each node's service
        string by Ray node id (empty: no shared service in this run)."""
        import ray

        from pcg_plugin.cluster.services import NodeServices, route, service_nodes, service_options, trial_nodes

        if self.service is None:
            return {}
        actor = ray.remote(NodeServices)
        args, where = self.config.invocation_params.args, str(self.config.invocation_params.dir)
        nodes = trial_nodes(ray.nodes())
        chosen, tcp = service_nodes(nodes)
        self.node_services = [
            actor.options(**service_options(node)).remote(list(args), where, dict(run), f"services{i}", tcp)
            for i, node in enumerate(chosen)
        ]
        self.node_info = ray.get([a.describe.remote() for a in self.node_services], timeout=300)
        return route(nodes, {info["node"]: info["service"] for info in self.node_info})

    def _controller(self) -> Controller:
        controller = self.config.pluginmanager.get_plugin("pcg-controller")
        assert isinstance(controller, Controller)  # the plugin registers it before this driver
        return controller

    def outcome(self, nodeid: str) -> Outcome:
        """The trial's outcome (waiting for it); its files are written into the run folder here."""
        outcome = self.pool.result(nodeid)
        put_files(Path(self._controller().run["run_dir"]), outcome.files)
        return outcome

    def _fault_step(self) -> None:
        """Test hook (``--pcg-cluster-fault remove-node-after:K``), after each step of the pool. Once K trials came
        back, the busiest actor is sent a ``hold`` and then one more trial, queued behind it; when every call sent
        to it before the hold is back, its node goes, as a machine lost mid-run would, with that trial. The lost
        trial had not started, so the test's count of paid requests does not depend on timing."""
        if self.fault_after is None or self.removed or self.pool.done < self.fault_after:
            return
        if self.held is None:
            victim = max(self.pool.live(), key=self.pool.load.__getitem__)
            self.held = (victim, self.pool.calls_of(victim))
            victim.hold.remote(HOLD_S)
            self.pool.send(victim)
            return
        victim, before = self.held
        if not before & set(self.pool.inflight):
            self._remove_node_of(victim)

    def _remove_node_of(self, actor: Any) -> None:
        node_id = self.pool.nodes[actor]
        for node in list(self.cluster.worker_nodes):
            if node.node_id == node_id:
                self.removed.append(node_id)
                self.cluster.remove_node(node, allow_graceful=False)
                return
        raise RuntimeError(f"--pcg-cluster-fault: node {node_id} is not one of this session's local nodes")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Any:
        if self.pool is not None:
            self._controller().worker_stats.update(self.pool.facts())
            self.summary = self._summary()
        yield
        self.stop()

    def _summary(self) -> list[str]:
        pool = self.pool
        line = f"pcg cluster {self.spec}: {len(pool.actors)} trial actors, {pool.done} trials run"
        line += f", {len(pool.dead)} actors lost" if pool.dead else ""
        line += f", {len(self.removed)} node removed (--pcg-cluster-fault)" if self.removed else ""
        return [line, *self._service_lines(), *self._limiter_lines(), *self._budget_lines()] + [
            f"pcg cluster: {nodeid} attempt {attempt} lost ({why}); run again" for nodeid, attempt, why in pool.retried
        ]

    def _service_lines(self) -> list[str]:
        """One line per node service: where it runs, its GPU, and how many trial actors it serves (its node's, and
        where other nodes have no GPU, theirs too)."""
        if not self.node_info:
            return []
        try:
            placed = list(self.pool.placements().values())
        except Exception as exc:  # noqa: BLE001 - the summary is for the reader; a dying actor must not fail the run
            return [f"pcg cluster: node services on {len(self.node_info)} nodes (placements unknown: {exc})"]
        return [
            f"pcg cluster: node service on {info['node'][:12]} ({info['host']}, actor pid {info['pid']}, "
            f"gpu {','.join(info['gpus']) or 'none'}): serves "
            f"{sum(1 for _, service in placed if service == info['service'])} trial actors"
            for info in self.node_info
        ]

    def _limiter_lines(self) -> list[str]:
        """One line per model endpoint that had a rate limit (``--pcg-rpm``/``--pcg-tpm``/``--pcg-concurrency``)."""
        from pcg_plugin.cluster.shared import LIMITER

        if LIMITER not in self.shared:
            return []
        import ray

        try:
            names = ray.get(self.shared[LIMITER].names.remote(), timeout=30)
        except Exception as exc:  # noqa: BLE001 - the summary is for the reader; it must not fail the run
            return [f"pcg cluster: rate limits unknown ({type(exc).__name__})"]
        return [f"pcg cluster: rate limit of endpoint {name!r}: one limiter actor" for name in names]

    def _budget_lines(self) -> list[str]:
        """Under ``--pcg-max-cost``: the ledger actor every trial actor asked before each paid call."""
        from pcg_plugin.cluster.shared import BUDGET

        if BUDGET not in self.shared:
            return []
        import ray

        try:
            granted = ray.get(self.shared[BUDGET].granted_calls.remote(), timeout=30)
        except Exception as exc:  # noqa: BLE001 - the summary is for the reader; it must not fail the run
            return [f"pcg cluster: spending ledger unknown ({type(exc).__name__})"]
        return [f"pcg cluster: spending ledger: one actor, {granted} calls let start"]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for line in self.summary:
            terminalreporter.write_line(line)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.stop()

    def stop(self) -> None:
        """Let Ray go: this session's actors, and the local cluster it started (never ``ray stop``, which ends
        every Ray process on the machine)."""
        import sys

        if "ray" not in sys.modules:
            return
        import ray

        if self.pool is not None:
            self.pool.close()
            self.pool = None
        for actor in self.node_services:  # after the trial actors, which use them
            with contextlib.suppress(Exception):  # a lost node's services went with it; killed below either way
                ray.get(actor.close.remote(), timeout=30)
            ray.kill(actor)
        self.node_services = []
        for actor in self.shared.values():  # the store actor closes its file as its process ends
            ray.kill(actor)
        self.shared = {}
        let_go(self.cluster, self.auth, self.tmpdir)
        self.cluster, self.auth, self.tmpdir = None, None, None


def let_go(cluster: Any, auth: LocalAuth | None, tmpdir: str | None) -> None:
    """Ray let go, and the local cluster this process started with its token and folder (never ``ray stop``, which
    ends every Ray process on the machine)."""
    import ray

    if ray.is_initialized():
        ray.shutdown()
    if cluster is not None:
        cluster.shutdown()
    if auth is not None:  # the token goes with the cluster
        auth.remove(os.environ)
    if tmpdir is not None:
        shutil.rmtree(tmpdir, ignore_errors=True)
        os.environ.pop("RAY_TMPDIR", None)


@contextlib.contextmanager
def joined(address: Address) -> Iterator[None]:
    """Ray for the block: the cluster joined, or ``local:N`` started here, as a run's driver does; let go after.
    For work outside a pytest session (``pcg pcgbench experiment --cluster``)."""
    had_tmpdir = "RAY_TMPDIR" in os.environ
    cluster, auth = start_ray(address)
    try:
        yield
    finally:
        let_go(cluster, auth, None if had_tmpdir else os.environ.get("RAY_TMPDIR"))


def _fault(spec: str | None, address: Address) -> int | None:
    if spec is None:
        return None
    prefix = "remove-node-after:"
    if not spec.startswith(prefix) or not spec.removeprefix(prefix).isdigit():
        raise pytest.UsageError(f"--pcg-cluster-fault {spec}: expected {prefix}K")
    if address.address is not None:
        raise pytest.UsageError("--pcg-cluster-fault works only with --pcg-cluster local:N")
    return int(spec.removeprefix(prefix))
