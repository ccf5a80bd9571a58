"""The trials this process has started ahead, each on a thread of its own, and what each left: its record or the
exception it raised, in which phase, and the calls and warnings it made (``Done``: what an actor of a cluster run
sends back, here in the same process). Threads are daemons: a run told to end at once does not wait on a hung
server; a run that ends normally (``finish``) or on Ctrl-C (``interrupt``) waits for every trial it started, so
every answer already paid for is stored."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from pcg_plugin.core.records import calls
from pcg_plugin.core.records.calls import Wait
from pcg_plugin.core.session.inflight.sizing import Sizer
from pcg_plugin.core.session.inflight.slots import Slots, stop_paying
from pcg_plugin.core.session.members import suite_of

REFILL_SECONDS = 0.05  # how often an item waiting for its trial starts what a grown number allows


@dataclass
class Done:
    """One trial as its thread left it."""

    record: Any = None
    failed_in: str | None = None  # "setup" or "call" when it raised
    error: BaseException | None = None
    calls: list[calls.Call] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)  # its calls' failed tries, before each was tried again

    def exception(self) -> BaseException | None:
        return self.error


@dataclass
class _Trial:
    thread: threading.Thread
    finished: threading.Event = field(default_factory=threading.Event)
    done: Done | None = None


class TrialRunner:
    """The process's trials started ahead of their items (at most ``limit()`` not yet reported: ``depth``, or the
    number ``sizer`` says now when the harness sizes it). ``refill``: called while an item waits for its trial, to
    start the items ahead that a number grown since allows."""

    def __init__(self, config: pytest.Config, depth: int, slots: Slots, sizer: Sizer | None = None) -> None:
        self.config, self.depth, self.slots, self.sizer = config, depth, slots, sizer
        self.trials: dict[str, _Trial] = {}  # started, not yet taken by their item
        self.stopped = False  # -x, a failure that stops the run, Ctrl-C: nothing more starts
        self.started = 0
        self.warming: threading.Thread | None = None
        self.refill: Callable[[], None] | None = None

    def in_flight(self) -> int:
        return len(self.trials)

    def limit(self) -> int:
        """Trials in flight allowed now."""
        return self.sizer.now if self.sizer is not None else self.depth

    def warm_up(self) -> None:
        """Once, as the first trial starts: the problem's ``warm_up`` on a thread of its own, holding a CPU slot."""
        if self.warming is None:
            self.warming = threading.Thread(target=self._warm_up, name="pcg-warm-up", daemon=True)
            self.warming.start()

    def _warm_up(self) -> None:
        try:
            with self.slots.running():
                for member in suite_of(self.config).members:  # a suite: each of its problems
                    member.problem.warm_up(member.config)
        except Exception:  # noqa: BLE001 - the trials meet the same failure and report it, each under its item
            pass

    def start(self, item: Any, *, ahead: bool = True) -> bool:
        """Start ``item``'s trial on a thread now, unless it was started already or, for an item ``ahead`` of the one
        at hand, the runner stopped."""
        if item.nodeid in self.trials or (ahead and self.stopped):
            return False
        thread = threading.Thread(target=self._run, args=(item,), name=f"pcg-trial {item.nodeid}", daemon=True)
        self.trials[item.nodeid] = _Trial(thread)
        self.started += 1
        thread.start()
        return True

    def _run(self, item: Any) -> None:
        """On the trial's thread: the problem's ``setup_trial`` then ``run_trial``, as the item runs them."""
        problem, config = item.problem, item.problem_config  # in a suite, the item's own problem and config view
        log = calls.start()
        done = Done(failed_in="setup")
        try:
            with self.slots.running():
                problem.setup_trial(config, item.submission)
                done.failed_in = "call"
                done.record = problem.run_trial(
                    config, item.submission, item.target, item.trial, item.nodeid, item.model
                )
                done.failed_in = None
        except BaseException as exc:  # noqa: BLE001 - whatever the trial raised is its outcome: its item raises it
            done.error = exc
        finally:
            done.warnings, done.waits = list(log.warnings), list(log.waits)
            done.calls = calls.take()
            if self.sizer is not None:
                tokens = sum(c.prompt_tokens + c.completion_tokens for c in done.calls if not c.replayed)
                self.sizer.add(*self.slots.last(), sum(1 for c in done.calls if not c.replayed), tokens)
            trial = self.trials.get(item.nodeid)
            if trial is not None:
                trial.done = done
                trial.finished.set()

    def outcome(self, nodeid: str) -> Done:
        """The trial of ``nodeid`` once it is over (its item asks; the trial was started when the item came up)."""
        trial = self.trials.get(nodeid)
        if trial is None:
            raise RuntimeError(f"pytest-pcg: the trial of {nodeid} was never started (a bug in core.session.inflight)")
        while not trial.finished.wait(REFILL_SECONDS if self.refill is not None else None):
            if self.refill is not None:
                self.refill()
        del self.trials[nodeid]
        assert trial.done is not None
        return trial.done

    def finish(self) -> None:
        """Nothing more starts; wait for every trial started (ahead of an item that will not run: ``-x``), so the
        answers they paid for are stored. A second Ctrl-C while waiting stops waiting."""
        self.stopped = True
        for trial in list(self.trials.values()):
            trial.finished.wait()

    def interrupt(self) -> None:
        """Ctrl-C: no trial starts a model call from now on; the calls already sent are answered and stored."""
        stop_paying()
        self.finish()
