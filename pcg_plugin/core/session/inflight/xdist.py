"""What in-flight trials need of pytest-xdist: a worker's view of the items it has been sent and not yet run
(``TestQueue.lock``, which xdist offers for inspecting its queue, and the next item it already took), and a
scheduler that keeps every worker that many items ahead (``pytest_xdist_make_scheduler``, xdist's hook for a
scheduler of one's own). xdist's load scheduling sends a quarter of the items at first, then refills a worker
only once it holds fewer than two, which would leave one or two trials in flight."""

from __future__ import annotations

from typing import Any

import pytest


def worker_interactor(config: pytest.Config) -> Any:
    """This xdist worker's ``WorkerInteractor`` (None: this process is no xdist worker)."""
    return next((p for p in config.pluginmanager.get_plugins() if type(p).__name__ == "WorkerInteractor"), None)


def sent_ahead(config: pytest.Config) -> list[int] | None:
    """Indices into ``session.items`` of the items this xdist worker was sent and has not started, in the order it
    will run them (None: this process is no xdist worker, or xdist keeps its queue otherwise than this code
    knows: then only the item at hand is started, as with ``--pcg-in-flight 1``)."""
    interactor = worker_interactor(config)
    queue = getattr(interactor, "torun", None)
    if interactor is None or queue is None or not hasattr(queue, "lock"):
        return None
    ahead = [interactor.nextitem_index] if isinstance(getattr(interactor, "nextitem_index", None), int) else []
    with queue.lock() as items:
        ahead += [i for i in items if isinstance(i, int)]
    return ahead


class KeepAhead:
    """Registered on the xdist controller when trials are in flight: xdist's ``load`` scheduling, keeping each
    worker ``depth`` + 1 items ahead (the item it runs and those started behind it), but never more than its share
    of the items left, so that a short run is split evenly. ``sized``: each worker sizes its own number, and its
    reports say it (``IN_FLIGHT_LIMIT_PROPERTY``): it is kept that number + 1 ahead (``depth`` + 1 until it said)."""

    def __init__(self, depth: int, sized: bool = False) -> None:
        self.depth, self.sized = depth, sized
        self.allowed: dict[str, int] = {}  # by worker id: the trials in flight its last report allowed

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        from pcg_plugin.core.session.items import IN_FLIGHT_LIMIT_PROPERTY, property_text

        limit = property_text(report.user_properties, IN_FLIGHT_LIMIT_PROPERTY) if self.sized else None
        node = getattr(getattr(report, "node", None), "gateway", None)
        if limit is not None and node is not None:
            self.allowed[node.id] = int(limit)

    def ahead(self, node: Any) -> int:
        """How many items ``node`` is kept ahead."""
        return self.allowed.get(getattr(getattr(node, "gateway", None), "id", ""), self.depth) + 1

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "load":  # loadscope, loadfile, loadgroup send whole groups: leave them be
            return None
        from xdist.scheduler import LoadScheduling

        ahead = self.ahead

        class KeepAheadScheduling(LoadScheduling):
            def check_schedule(self, node: Any, duration: float = 0) -> None:
                if node.shutting_down:
                    return
                if not self.pending:
                    node.shutdown()
                    return
                unfinished = len(self.pending) + sum(len(p) for p in self.node2pending.values())
                fair = -(-unfinished // len(self.node2pending))  # no worker holds more than its share of what is left
                short = min(ahead(node), fair) - len(self.node2pending[node])
                if short > 0:
                    self._send_tests(node, min(short, len(self.pending)))

            def schedule(self) -> None:
                super().schedule()
                if self.collection and self.pending:
                    for node in self.nodes:
                        self.check_schedule(node)

        return KeepAheadScheduling(config, log)
