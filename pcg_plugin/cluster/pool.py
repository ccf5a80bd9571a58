"""The pool of trial actors (one per CPU of the cluster) and its dispatcher; imported only under --pcg-cluster.

Why not ``ray.util.ActorPool``: it keeps one call per actor and hands new work only to an actor whose result was
collected, in order, so actors that finish early wait. Why our own retry: with one actor per CPU, Ray's actor
restart has no CPU to restart on and its queued calls hang; a trial whose actor (or node) died is sent to a
live actor instead, as attempt + 1."""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ray
from ray.exceptions import ActorDiedError, ActorUnavailableError, RayActorError, RayTaskError

from pcg_plugin.cluster.outcome import Outcome, pack_error
from pcg_plugin.cluster.worker import TrialWorker
from pcg_plugin.errors import InfrastructureError

MAX_ATTEMPTS = 3  # a trial whose actor died this many times gets an infrastructure error
DEPTH = 2  # calls queued per actor, so an actor never waits for the driver between trials


@dataclass
class Work:
    nodeid: str
    args: tuple[Any, ...]  # submission, target, trial, model
    attempt: int = 1


class TrialPool:
    """Submits every trial at once and hands back each one's ``Outcome`` by node id, keeping every live actor
    ``DEPTH`` calls busy."""

    def __init__(
        self,
        n_actors: int,
        *,
        args: Sequence[str],
        invocation_dir: str,
        run: Mapping[str, Any],
        services: Mapping[str, str | None],
        limits: Mapping[str, str] | None = None,
        on_lost: Any = None,
        depth: int = DEPTH,
        max_attempts: int = MAX_ATTEMPTS,
        in_flight: int = 1,
    ) -> None:
        # ``in_flight`` trials at once in an actor (``--pcg-in-flight``): Ray runs that many of its calls at once,
        # one per thread; one more is queued so that the actor never waits for the driver between trials
        depth = max(depth, in_flight + 1)
        actor = ray.remote(TrialWorker).options(
            num_cpus=1, max_restarts=0, max_task_retries=0, max_concurrency=in_flight
        )
        # handles are Any: Ray types an actor's methods only where they are marked @ray.method, and TrialWorker's
        # module imports ray only inside the actor's methods
        self.actors: list[Any] = [
            actor.remote(list(args), invocation_dir, dict(run), dict(services), n_actors, f"ray{i}", limits, in_flight)
            for i in range(n_actors)
        ]
        self.on_lost = on_lost  # called with a lost actor's name (its limiter slots are freed)
        started = ray.get([a.ping.remote() for a in self.actors])
        self.names = {a: name for a, (name, _) in zip(self.actors, started, strict=True)}
        self.nodes = {a: node for a, (_, node) in zip(self.actors, started, strict=True)}
        self.load = dict.fromkeys(self.actors, 0)
        self.depth, self.max_attempts = depth, max_attempts
        self.pending: collections.deque[Work] = collections.deque()
        self.inflight: dict[Any, tuple[Work, Any]] = {}
        self.results: dict[str, Outcome] = {}
        self.retried: list[tuple[str, int, str]] = []  # (nodeid, attempt that was lost, why)
        self.dead: set[Any] = set()
        self.done = 0
        self.on_step: Any = None  # called after each step (the fault test hook)

    def submit(self, work: Iterable[Work]) -> None:
        self.pending.extend(work)
        self._dispatch()

    def live(self) -> list[Any]:
        return [a for a in self.actors if a not in self.dead]

    def _dispatch(self) -> None:
        while self.pending:
            live = self.live()
            if not live:
                self._fail_all("every actor of the cluster's pool died")
                return
            actor = min(live, key=self.load.__getitem__)
            if self.load[actor] >= self.depth:
                return
            work = self.pending.popleft()
            ref = actor.run.remote(work.nodeid, work.attempt, *work.args)
            self.inflight[ref] = (work, actor)
            self.load[actor] += 1

    def _fail_all(self, why: str) -> None:
        while self.pending:
            work = self.pending.popleft()
            self.results[work.nodeid] = Outcome(
                failed_in="call", error=pack_error(InfrastructureError(why)), attempt=work.attempt
            )

    def _collect(self, timeout: float) -> None:
        if not self.inflight:
            return
        ready, _ = ray.wait(list(self.inflight), num_returns=1, timeout=timeout)
        for ref in ready:
            work, actor = self.inflight.pop(ref)
            self.load[actor] -= 1
            try:
                self.results[work.nodeid] = ray.get(ref)
                self.done += 1
            except RayTaskError as exc:  # TrialWorker.run catches the trial's own errors: this is the pool's
                self.results[work.nodeid] = Outcome(failed_in="call", error=pack_error(exc), attempt=work.attempt)
            except (ActorDiedError, ActorUnavailableError, RayActorError) as exc:  # the process or node is gone
                if actor not in self.dead and self.on_lost is not None:
                    self.on_lost(self.names.get(actor, ""))
                self.dead.add(actor)
                why = f"{type(exc).__name__} on {self.names.get(actor, '?')}"
                if work.attempt >= self.max_attempts:
                    error = InfrastructureError(f"{work.nodeid}: its actor died {work.attempt} times ({why})")
                    self.results[work.nodeid] = Outcome(failed_in="call", error=pack_error(error), attempt=work.attempt)
                else:
                    self.retried.append((work.nodeid, work.attempt, why))
                    self.pending.appendleft(Work(work.nodeid, work.args, work.attempt + 1))

    def step(self, timeout: float = 1.0) -> None:
        self._dispatch()
        self._collect(timeout)
        self._dispatch()
        if self.on_step is not None:
            self.on_step()

    def calls_of(self, actor: Any) -> set[Any]:
        """The calls sent to ``actor`` that have not come back."""
        return {ref for ref, (_, held_by) in self.inflight.items() if held_by is actor}

    def send(self, actor: Any) -> bool:
        """Hand the next pending trial to ``actor`` whatever its load (the fault test hook); False: none pending."""
        if not self.pending:
            return False
        work = self.pending.popleft()
        self.inflight[actor.run.remote(work.nodeid, work.attempt, *work.args)] = (work, actor)
        self.load[actor] += 1
        return True

    def result(self, nodeid: str) -> Outcome:
        """The outcome of ``nodeid`` (submitted earlier), keeping the pool busy while it waits."""
        while nodeid not in self.results:
            if not self.inflight and not self.pending:
                raise KeyError(f"{nodeid} was never submitted to the cluster")
            self.step()
        return self.results.pop(nodeid)

    def placements(self) -> dict[str, tuple[str, str | None]]:
        """Each live actor's node and the service string it was handed, by actor name."""
        live = self.live()
        return dict(
            zip((self.names[a] for a in live), ray.get([a.placement.remote() for a in live], timeout=60), strict=True)
        )

    def facts(self) -> dict[str, dict[str, Any]]:
        """Each live actor's ``process_facts``, as xdist workers report theirs."""
        live = self.live()
        try:
            facts = ray.get([a.facts.remote() for a in live], timeout=60)
        except Exception as exc:  # noqa: BLE001 - facts are for the record; a dying actor must not fail the run
            return {"cluster": {"error": f"{type(exc).__name__}: {exc}"}}
        return {self.names[a]: f for a, f in zip(live, facts, strict=True)}

    def close(self) -> None:
        for ref in list(self.inflight):  # -x, or an interrupted run: queued trials do not start
            ray.cancel(ref)
        for actor in self.actors:
            if actor not in self.dead:
                with contextlib.suppress(Exception):  # the actor is killed just below either way
                    ray.get(actor.close.remote(), timeout=30)
            ray.kill(actor)
