"""The hooks that keep trials in flight in a process that runs items (``-n 0``, an xdist worker): before an item's
protocol, its trial and those of the items after it (up to ``--pcg-in-flight`` not yet reported) are started on
threads; the item then reports its own (``TrialItem`` asks the runner, registered as ``REMOTE_KEY``). After the
last item, or when ``-x`` or a failure stops the run, nothing more starts and the trials started are waited for;
on Ctrl-C they also start no new model call (``slots.stop_paying``), and every trial started reports: one that
finished as it ended, one the interrupt cut short as not finished (under xdist, to the controller, which listens
for them: ``interrupt.Drain``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pcg_plugin.core.session import interrupt
from pcg_plugin.core.session.inflight import slots as cpu
from pcg_plugin.core.session.inflight.runner import TrialRunner
from pcg_plugin.core.session.inflight.sizing import Sizer
from pcg_plugin.core.session.inflight.xdist import sent_ahead, worker_interactor
from pcg_plugin.core.session.items import REMOTE_KEY, TrialItem


class InFlight:
    """Registered as ``pcg-in-flight`` in a process that runs items when ``--pcg-in-flight`` is above 1, or when the
    harness sizes it (``sizer``: then ``depth`` is its ceiling)."""

    def __init__(self, config: pytest.Config, depth: int, slot_count: int, sizer: Sizer | None = None) -> None:
        self.config, self.depth = config, depth
        self.slots = cpu.Slots(slot_count, depth)
        self.runner = TrialRunner(config, depth, self.slots, sizer)
        self.position: dict[str, int] = {}
        self.at_hand: pytest.Item | None = None
        if sizer is not None:
            self.runner.refill = self._refill
        cpu.install(self.slots)
        config.stash[REMOTE_KEY] = self.runner

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.position = {item.nodeid: i for i, item in enumerate(session.items)}

    def _ahead(self, item: pytest.Item) -> Iterator[pytest.Item]:
        """The items this process runs after ``item``, in order (as far as it can know them)."""
        items = item.session.items
        queued = sent_ahead(self.config)
        if queued is not None:  # an xdist worker: what it was sent
            yield from (items[i] for i in queued)
        elif not hasattr(self.config, "workerinput"):  # -n 0: the session's items
            yield from items[self.position.get(item.nodeid, len(items)) + 1 :]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        if not isinstance(item, TrialItem):
            return
        session = item.session
        if session.shouldfail or session.shouldstop:
            self.runner.stopped = True
        self.runner.warm_up()
        self.runner.start(item, ahead=False)  # the item at hand runs whatever stopped the others
        self.at_hand = item
        self._start_ahead(item)

    def _start_ahead(self, item: pytest.Item) -> None:
        for ahead in self._ahead(item):
            if self.runner.stopped or self.runner.in_flight() >= self.runner.limit():
                break
            if isinstance(ahead, TrialItem):
                self.runner.start(ahead)

    def _refill(self) -> None:
        """While the item at hand waits for its trial: start what the number the harness sizes now allows."""
        if self.at_hand is not None and self.runner.in_flight() < self.runner.limit():
            self._start_ahead(self.at_hand)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Iterator[Any]:
        try:
            return (yield)
        except KeyboardInterrupt:
            if interrupt.pressed(self.config) and not hasattr(self.config, "workerinput"):
                calls = sum(1 for t in self.runner.trials.values() if t.done is None)
                interrupt.say(
                    self.config,
                    f"pcg: Ctrl-C: no new model call starts; waiting for the {calls} trial(s) in flight to have their "
                    "calls answered and stored (Ctrl-C again to stop waiting)",
                )
            self.runner.interrupt()
            self._report_started(session)
            raise
        finally:
            self.runner.finish()

    def _report_started(self, session: pytest.Session) -> None:
        """After Ctrl-C, every trial this process started and no item reported yet reports, in order: one that
        finished as it ended (the run folder holds every trial that was done), one the interrupt cut short as not
        finished (``TrialItem``: the answers it had are stored). What the interrupted item had set up is torn down
        first (pytest's setup state, as the end of a session tears it down); under xdist each report goes to the
        controller as the report of the item it is."""
        started = [item for item in session.items if item.nodeid in self.runner.trials]
        if not started:
            return
        setup_state = getattr(session, "_setupstate", None)  # pytest's: what the interrupted item had set up
        if setup_state is not None:
            setup_state.teardown_exact(None)
        interactor = worker_interactor(self.config)
        for item in started:
            if interactor is not None:
                interactor.item_index = self.position.get(item.nodeid, 0)  # what its reports are sent as
            item.ihook.pytest_runtest_protocol(item=item, nextitem=None)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        cpu.install(None)
        config.stash[REMOTE_KEY] = None
