"""The run's shared state as actors on the driver's node (imported only under ``--pcg-cluster``): the response
store (one actor owns the SQLite file, which cannot be shared across hosts) and the rate limiters (one actor
per model endpoint, made by a hub on first use). Both are created by the driver, so they live exactly as long as
its job; the trial actors reach them by name through ``RemoteStore`` and ``RemoteLimiter``, which keep the
interfaces of ``ResponseStore`` and ``SharedLimiter``.

An actor handle is ``Any`` here: Ray types a handle's methods only where the actor's class marks each with
``@ray.method``, and types every other method (``handle.call.remote``) as ``Never``."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from pcg_plugin.cluster.claims import ClusterStore, attempt_owner
from pcg_plugin.cluster.limits import LimiterState
from pcg_plugin.errors import InfrastructureError
from pcg_plugin.llm.ratelimit import wait_for_slot
from pcg_plugin.llm.store import LEASE_S, TrialKey

STORE, LIMITER, BUDGET = "pcg-store", "pcg-limiter", "pcg-budget"
CLAIM_POLL_S = 0.2
_ATTEMPT: dict[str, Any] = {"run": "", "attempt": 1}  # the actor's run and name (use_shared)
_THIS_TRIAL = threading.local()  # the attempt of the trial on this thread (set_attempt): an actor runs several at once


def set_attempt(run: str, attempt: int) -> None:
    """The trial about to run on this thread is ``attempt`` of its trial in ``run``: its store claims name it."""
    _ATTEMPT.update(run=run)
    _THIS_TRIAL.attempt = attempt


class StoreActor:
    """One per run, on the driver's node: opens the file on the first call (relative to the driver's folder)."""

    def __init__(self, invocation_dir: str) -> None:
        self.base = Path(invocation_dir)
        self.stores: dict[str, ClusterStore] = {}

    def call(self, path: str, method: str, *args: Any, **kwargs: Any) -> Any:
        store = self.stores.get(path)
        if store is None:
            store = self.stores[path] = ClusterStore(self.base / path)
        return getattr(store, method)(*args, **kwargs)

    def broken(self, path: str) -> str | None:
        """Why the store at ``path`` refused a write (None: it did not): a full disk stops paying everywhere."""
        store = self.stores.get(path)
        return store.broken if store is not None else None

    def stored_calls(self) -> int:
        return sum(s._db().execute("SELECT COUNT(*) FROM calls").fetchone()[0] for s in self.stores.values())


class RemoteStore:
    """What a trial actor uses as its ``ResponseStore``: each call goes to the store actor; a claim waits here
    (never in the actor, which serves everyone) and names this Ray task's attempt."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._actor: Any = ray.get_actor(STORE)

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return ray.get(self._actor.call.remote(str(self.path), method, *args, **kwargs))

    def load(self, key: TrialKey) -> Any:
        return self._call("load", key)

    def claim(self, key: TrialKey, *, wait: float = LEASE_S, reset: bool = False) -> str:
        attempt = getattr(_THIS_TRIAL, "attempt", 1)
        owner, deadline = attempt_owner(_ATTEMPT["run"], attempt), time.monotonic() + wait
        while True:
            try:
                return self._call("claim", key, wait=0.0, reset=reset, owner=owner)
            except InfrastructureError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(CLAIM_POLL_S)

    def record_call(self, key: TrialKey, owner: str, call: Any, *, truncate: bool = False) -> None:
        self._call("record_call", key, owner, call, truncate=truncate)

    def record_program(self, key: TrialKey, owner: str | None, result: str, calls: int) -> None:
        self._call("record_program", key, owner, result, calls)

    @property
    def broken(self) -> str | None:
        """The store actor's word on a failed write (``ResponseStore.broken``): asked before each paid call."""
        return ray.get(self._actor.broken.remote(str(self.path)))

    def finish(self, key: TrialKey, owner: str | None, **kwargs: Any) -> None:
        self._call("finish", key, owner, **kwargs)

    def release(self, key: TrialKey, owner: str) -> None:
        self._call("release", key, owner)

    def close(self) -> None:
        return None


class LimiterActor(LimiterState):
    """One model endpoint's limiter (``LimiterState`` in an actor)."""


class LimiterHub:
    """The run's limiters by model endpoint (``ratelimit.endpoint_of``): each endpoint gets its own actor, made on
    first use on the hub's node and owned by the hub (so it lives as long as the driver's job), with the run's
    limits; a lost trial actor's slots are freed in every one of them."""

    def __init__(self, rpm: float | None, tpm: float | None, concurrency: int | None, make: Any = None) -> None:
        self.limits = (rpm, tpm, concurrency)
        self.endpoints: dict[str, Any] = {}
        self._make = make or _limiter_actor

    def endpoint(self, name: str) -> Any:
        """The limiter actor of endpoint ``name`` (made now if it is the first call to it)."""
        if name not in self.endpoints:
            self.endpoints[name] = self._make(*self.limits)
        return self.endpoints[name]

    def names(self) -> list[str]:
        return sorted(self.endpoints)

    def release_holder(self, holder: str) -> int:
        """Free every slot of a lost trial actor, in every endpoint's limiter; how many."""
        return sum(_each(self.endpoints.values(), "release_holder", holder))


def _limiter_actor(rpm: float | None, tpm: float | None, concurrency: int | None) -> Any:
    here = NodeAffinitySchedulingStrategy(node_id=ray.get_runtime_context().get_node_id(), soft=False)
    return (
        ray.remote(LimiterActor)
        .options(num_cpus=0, scheduling_strategy=here, max_restarts=0)
        .remote(rpm, tpm, concurrency)
    )


def _each(limiters: Any, method: str, *args: Any) -> list[Any]:
    """``method(*args)`` on every limiter, at once: actors (or, in a test's hub, plain ``LimiterState``s)."""
    limiters = list(limiters)
    if limiters and isinstance(limiters[0], ray.actor.ActorHandle):
        return ray.get([getattr(lim, method).remote(*args) for lim in limiters])
    return [getattr(lim, method)(*args) for lim in limiters]


class RemoteLimiter:
    """``SharedLimiter``'s interface over one endpoint's limiter actor: it sleeps here, the actor only answers."""

    def __init__(
        self,
        folder: Any = None,
        rpm: float | None = None,
        tpm: float | None = None,
        concurrency: int | None = None,
        *,
        endpoint: str = "",
        holder: str = "",
    ) -> None:
        self.endpoint = endpoint
        hub: Any = ray.get_actor(LIMITER)
        self._actor: Any = ray.get(hub.endpoint.remote(endpoint))
        self.holder = holder or _ATTEMPT.get("worker", "")

    def acquire(self, tokens: int = 0, *, within: float | None = None) -> str:
        """As ``SharedLimiter.acquire``: a slot, or DeadlineExceeded when the wait would pass ``within`` seconds."""

        def ask(tokens: int) -> tuple[str | None, float]:
            return ray.get(self._actor.try_acquire.remote(int(tokens), self.holder))

        return wait_for_slot(ask, tokens, within, time.monotonic, time.sleep)

    def release(self, slot: str, used_tokens: int = 0) -> None:
        ray.get(self._actor.release.remote(slot, int(used_tokens)))

    def pause(self, seconds: float) -> None:
        ray.get(self._actor.pause.remote(float(seconds)))

    def in_flight(self) -> int:
        return int(ray.get(self._actor.in_flight.remote()))


class BudgetActor:
    """The run's spending ledger (``llm.budget``) for every trial actor: the driver's ledger file, opened on the
    driver's node (where the driver reads it), without reclaiming by pid (the trial actors' pids are other hosts')."""

    def __init__(self, path: str) -> None:
        from pcg_plugin.llm.budget import SharedLedger

        self.ledger = SharedLedger(path, reclaim=False)
        self.granted = 0  # calls it let start (the driver's summary says so)

    def reserve(self, worst: int) -> Any:
        decision = self.ledger.reserve(worst)
        self.granted += decision[1] is not None
        return decision

    def granted_calls(self) -> int:
        return self.granted

    def settle(self, slot: str, cost: int) -> None:
        self.ledger.settle(slot, cost)

    def state(self) -> Any:
        return self.ledger.state()


class RemoteLedger:
    """``SharedLedger``'s interface over the budget actor (``budget.use_remote_ledger``)."""

    def __init__(self, path: str = "") -> None:
        self._actor: Any = ray.get_actor(BUDGET)

    def reserve(self, worst: int) -> Any:
        return ray.get(self._actor.reserve.remote(int(worst)))

    def settle(self, slot: str, cost: int) -> None:
        ray.get(self._actor.settle.remote(slot, int(cost)))

    def state(self) -> Any:
        return ray.get(self._actor.state.remote())


LIMIT_ENV = ("PCG_RPM", "PCG_TPM", "PCG_CONCURRENCY")


def start_shared(invocation_dir: str, ledger: str | None = None) -> dict[str, Any]:
    """On the driver, after ``ray.init``: the store actor, the limiters' hub when ``PCG_RPM``/``PCG_TPM``/
    ``PCG_CONCURRENCY`` are set, and the spending ledger's actor under ``--pcg-max-cost`` (``ledger``: its file);
    all pinned to the driver's node (where the store's and the ledger's files are)."""
    here = NodeAffinitySchedulingStrategy(node_id=ray.get_runtime_context().get_node_id(), soft=False)
    options = {"num_cpus": 0, "scheduling_strategy": here, "max_restarts": 0}
    actors: dict[str, Any] = {STORE: ray.remote(StoreActor).options(name=STORE, **options).remote(invocation_dir)}
    env = {k: os.environ[k] for k in LIMIT_ENV if os.environ.get(k, "").strip()}
    if env:
        rpm, tpm, conc = (os.environ.get(k, "").strip() for k in LIMIT_ENV)
        actors[LIMITER] = (
            ray.remote(LimiterHub)
            .options(name=LIMITER, **options)
            .remote(float(rpm) if rpm else None, float(tpm) if tpm else None, int(conc) if conc else None)
        )
    if ledger is not None:
        actors[BUDGET] = ray.remote(BudgetActor).options(name=BUDGET, **options).remote(ledger)
    ray.get([a.__ray_ready__.remote() for a in actors.values()])
    return actors


def use_shared(worker: str, run: str, limits: dict[str, str]) -> None:
    """In a trial actor: the run's store and limiter are the actors (``open_store``, ``SharedLimiter.from_env``)."""
    from pcg_plugin.llm import budget, ratelimit, store

    _ATTEMPT.update(run=run, worker=worker)
    store.use_remote_store(RemoteStore)
    budget.use_remote_ledger(RemoteLedger)  # used only where the run has a cap
    os.environ.update(limits)
    ratelimit.use_remote_limiter(RemoteLimiter if limits else None)
