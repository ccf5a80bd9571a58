"""The progress line while a run pays for its calls: items done of total, calls paid and replayed, tokens, cost
so far and the time left, totalled over every xdist worker (the controller hears every item's report).

On a terminal it is one line, rewritten in place (pytest's own dots are left out then; its summary is not);
when the output is not a terminal (CI logs, a file) a plain line every tenth of the run and at its end; under
``-q`` nothing."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from pcg_plugin.core.records.calls import Totals

STEPS = 10  # plain lines: one per tenth of the run


def _tokens(n: int) -> str:
    return f"{n / 1e6:.2f}M" if n >= 10**6 else f"{n / 1e3:.1f}k" if n >= 10**4 else str(n)


def _clock(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def time_left(done: int, total: int, first: tuple[int, float] | None, now: float) -> float | None:
    """Seconds left at the rate items finished since the first did (``first``: the count and the clock then):
    the workers' start-up and the first item's loading come before it, so they do not inflate the estimate.
    None until an item has finished after the first."""
    if first is None or done <= first[0] or now <= first[1]:
        return None
    return (now - first[1]) / (done - first[0]) * max(total - done, 0)


def line(
    done: int,
    total: int,
    totals: Totals,
    elapsed: float,
    left: float | None = None,
    in_flight: int = 0,
    width: int | None = None,
) -> str:
    """``pcg 52/104 items · 37 in flight · calls 40 paid, 12 replayed · tokens 61.2k · $0.0123 · 0:42 left``;
    at the end ``items done at 0:48`` (``elapsed``: since the session started, pytest's own clock, whose
    ``passed in`` adds the scoring and the report that follow the items). ``width``: the terminal's columns;
    a line as wide wraps, and each rewrite of a wrapped line leaves a cut copy above, so the line drops, in
    order, the tokens, the word ``calls``, the unpriced count, the calls, the word ``items`` and the cost, and
    is cut at last (the count, the trials in flight and the time stay longest)."""
    finished = bool(total) and done >= total
    if finished:
        shown = f"items done at {_clock(elapsed)}"
    elif left is not None:
        shown = f"{_clock(left)} left"
    else:
        shown = "time left unknown"
    calls = f"{totals.paid} paid, {totals.replayed} replayed"
    cost = f"${totals.cost_usd:.4f}"
    parts = {
        "head": f"pcg {done}/{total or '?'} items",
        "flying": f"{in_flight} in flight" if in_flight and not finished else "",
        "calls": f"calls {calls}",
        "tokens": f"tokens {_tokens(totals.prompt_tokens + totals.completion_tokens)}",
        "cost": cost + (f" (+{totals.unpriced} unpriced)" if totals.unpriced else ""),
        "time": shown,
    }
    shorter: tuple[tuple[str, str], ...] = (
        ("tokens", ""),
        ("calls", calls),
        ("cost", cost + ("+" if totals.unpriced else "")),
        ("calls", ""),
        ("head", f"pcg {done}/{total or '?'}"),
        ("cost", ""),
    )
    text = " · ".join(v for v in parts.values() if v)
    for key, value in shorter:
        if width is None or len(text) < width:
            break
        parts[key] = value
        text = " · ".join(v for v in parts.values() if v)
    return text if width is None or len(text) < width else text[: max(width - 2, 0)] + "…"


def end_partial_line(reporter: Any) -> None:
    """Before a line of ours: end a line another plugin left open (xdist's ``ready: 1/2 workers``, rewritten in
    place), erasing it on a terminal (it rewrites its status after) and ending it elsewhere."""
    tw = getattr(reporter, "_tw", None)
    if tw is None or not getattr(tw, "width_of_current_line", 0):
        return
    if getattr(reporter, "isatty", False):
        tw.write("\r\x1b[K")
    else:
        tw.line()


@dataclass
class Flight:
    """One process's trials in flight as its items reported them: the most and the mean (the trials started and
    not yet reported, after each report), and the number it allowed (fixed, or sized by the harness) at its last
    report and at most."""

    reports: int = 0
    total: int = 0
    peak: int = 0
    limit: int = 0
    peak_limit: int = 0

    def add(self, in_flight: int, limit: int) -> None:
        self.reports, self.total, self.peak = self.reports + 1, self.total + in_flight, max(self.peak, in_flight)
        self.limit, self.peak_limit = limit, max(self.peak_limit, limit)

    def doc(self) -> dict[str, Any]:
        mean = round(self.total / self.reports, 1) if self.reports else 0.0
        return {"peak": self.peak, "mean": mean, "allowed_last": self.limit, "allowed_peak": self.peak_limit}


class Progress:
    """Registered on the controller only (it hears every item's report, a worker's too); the calls of each item
    (``by_item``) are what the report's trial table shows."""

    def __init__(self, config: pytest.Config, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.config, self.clock = config, clock
        self.total = 0
        self.done: set[str] = set()
        self.first: tuple[int, float] | None = None  # items done and the clock when the first item finished
        self.totals = Totals()
        self.by_item: dict[str, Totals] = {}
        self.waits: dict[str, list[float]] = {}  # the run's model calls tried again: {cause: [tries, seconds]}
        self._waits_of: set[str] = set()  # the items whose waits are counted (each report of an item carries them)
        self.in_flight: dict[str, int] = {}  # trials in flight by worker, as its last report said
        self.flights: dict[str, Flight] = {}  # by worker: what its reports said of its trials in flight
        self.started = clock()
        self.next_step = 1
        self._last_draw = 0.0
        self._drawn = ""
        self.reporter: Any = None
        self.mode = "off"
        self.items_done_at: float | None = None  # since the start, when the last item finished

    # -- what the run says ------------------------------------------------------------------------------------
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.set_total(len(session.items))

    def set_total(self, total: int) -> None:
        if not self.total:
            self.total = total

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.started = self.clock()  # pytest's own start (its "passed in"), not the workers' first collection
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        verbosity = self.config.get_verbosity()
        if reporter is None or verbosity < 0 or self.config.option.collectonly:
            return
        self.reporter = reporter
        tty = getattr(reporter, "isatty", False) and verbosity == 0
        self.mode = "tty" if tty else "plain"
        if tty:  # one refreshed line instead of the file names, the dots and the percentage
            reporter.showfspath = False
            reporter._show_progress_info = False

    @pytest.hookimpl(hookwrapper=True)
    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> Any:
        outcome = yield
        result = outcome.get_result()
        if self.mode == "tty" and result and isinstance(result, tuple) and len(result) == 3:
            outcome.force_result((result[0], "", result[2]))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        from pcg_plugin.core.session.items import (
            CALLS_PROPERTY,
            IN_FLIGHT_LIMIT_PROPERTY,
            IN_FLIGHT_PROPERTY,
            WAITS_PROPERTY,
            property_text,
        )
        from pcg_plugin.core.session.run_facts import add_waits

        flying = property_text(report.user_properties, IN_FLIGHT_PROPERTY)
        if flying is not None:
            node = getattr(getattr(report, "node", None), "gateway", None)
            worker = getattr(node, "id", "main")
            self.in_flight[worker] = int(flying)
            limit = property_text(report.user_properties, IN_FLIGHT_LIMIT_PROPERTY)
            if report.when == "call" and limit is not None:
                self.flights.setdefault(worker, Flight()).add(int(flying), int(limit))
        text = property_text(report.user_properties, CALLS_PROPERTY)
        if text is not None and report.nodeid not in self.by_item:
            t = Totals(**json.loads(text))
            self.by_item[report.nodeid] = t
            self.totals = self.totals + t
        waits = property_text(report.user_properties, WAITS_PROPERTY)
        if waits is not None and report.nodeid not in self._waits_of:
            self._waits_of.add(report.nodeid)
            add_waits(self.waits, json.loads(waits))
        if report.when == "teardown" or (report.when == "setup" and not report.passed):
            self.done.add(report.nodeid)
            if self.first is None:
                self.first = (len(self.done), self.clock())
            self.draw()

    # -- what the user sees -----------------------------------------------------------------------------------
    def text(self) -> str:
        now = self.clock()
        left = time_left(len(self.done), self.total, self.first, now)
        width = getattr(getattr(self.reporter, "_tw", None), "fullwidth", None) if self.mode == "tty" else None
        flying = sum(self.in_flight.values())
        return line(len(self.done), self.total, self.totals, now - self.started, left, flying, width)

    def draw(self, final: bool = False) -> None:
        if self.reporter is None or self.mode == "off":
            return
        text = self.text()
        if self.mode == "tty":
            now = self.clock()
            if text != self._drawn and (final or now - self._last_draw >= 0.2 or len(self.done) >= self.total):
                self._last_draw, self._drawn = now, text
                self.reporter._tw.write("\r\x1b[K" + text)
                self.reporter._tw.flush()
            return
        step = self.total / STEPS if self.total else 1
        if final or len(self.done) >= self.next_step * step:
            while len(self.done) >= self.next_step * step and self.next_step <= STEPS:
                self.next_step += 1
            if self.reporter._tw.width_of_current_line:
                self.reporter._tw.line()  # after pytest's dots
            self.reporter.write_line(text)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.items_done_at = self.clock() - self.started
        if self.mode == "tty" and self.reporter is not None:
            self.draw(final=True)
            self.reporter._tw.write("\n")
        elif self.mode == "plain" and self.done and self.next_step <= STEPS:
            self.draw(final=True)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """After the problem's summary: what the time at the end of the line counted, and what pytest's
        ``passed in`` adds (scoring, the report, the viewer), on the one clock both start from."""
        done = self.items_done_at
        if self.mode == "off" or done is None or not self.done:
            return
        end = _clock(self.clock() - self.started)
        terminalreporter.write_line(f"pcg: items done at {_clock(done)}, results and report by {end}")


class XdistTotal:
    """Under xdist the controller collects nothing itself: the total comes from the first worker's collection."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.progress.set_total(len(ids))
