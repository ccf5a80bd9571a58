"""Ctrl-C: the run stops, keeps everything it was paid for, writes its run folder over what finished and says how
to finish it.

pytest ends a session on KeyboardInterrupt (exit status 2); what the harness adds:

- ``CtrlC``: the SIGINT handler of each process of a run that evaluates (armed once its items are known). The
  first Ctrl-C raises KeyboardInterrupt, as Python's own handler does. A terminal's Ctrl-C reaches every process
  of the run and the xdist controller also forwards its own to the workers (``forward``): a SIGINT within
  ``GRACE`` seconds of the last is that same Ctrl-C and is ignored; a later one stops the waiting that follows
  (the calls in flight, the workers' last reports). Once the session ends (``pytest_sessionfinish``: the run
  folder is being written, the workers shut down) a Ctrl-C is said and let be, never a traceback; another one
  quits at once (exit status 2).
- A trial its item ran itself (one trial at a time) that Ctrl-C cut short reports as not finished
  (``stop_after_this_item``), then the run stops; trials in flight report through ``inflight.ahead``.
- ``Drain``: on the xdist controller, after Ctrl-C it listens to the workers until each has reported the trials it
  finished and ended, instead of dropping their reports.
- ``rerun_command``: the command line that finishes the run (what the terminal says last, ``Controller``).
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.records import calls

STORING_FIRST = "pcg: Ctrl-C: storing the answer of the model call in progress (paid for); Ctrl-C again to stop now"
GRACE = 1.0  # seconds: a SIGINT this soon after the last is the same Ctrl-C (the terminal's and a forwarded copy)
KEY = pytest.StashKey["CtrlC"]()


class CtrlC:
    """Registered as ``pcg-ctrl-c`` in every process; ``arm`` installs the handler."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.pressed_at: float | None = None  # time.monotonic() of the first Ctrl-C that stopped the run
        self.finishing = False  # the session is ending: a Ctrl-C no longer stops anything
        self._last = float("-inf")
        self._told = False
        self._stop_after_item = False
        self._previous: Any = None
        self._armed = False

    @property
    def pressed(self) -> bool:
        return self.pressed_at is not None

    def arm(self) -> None:
        """The run has items to run: this handler from now on (in the main thread only, where signals land)."""
        if self._armed or threading.current_thread() is not threading.main_thread():
            return
        with contextlib.suppress(ValueError, OSError):
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)
            self._armed = True

    def _on_sigint(self, signum: int, frame: Any) -> None:
        now = time.monotonic()
        if now - self._last < GRACE:
            return
        self._last = now
        if not self.finishing:
            if self.pressed_at is None:
                self.pressed_at = now
            if calls.holding() and not calls.deferred():  # a call sent and paid for: its answer is stored first
                calls.defer()
                _say(STORING_FIRST)
                return
            raise KeyboardInterrupt
        if hasattr(self.config, "workerinput"):
            return  # a worker's controller says it, and ends it
        if not self._told:
            self._told = True
            _say("pcg: Ctrl-C: the run is writing its run folder (results.json, the report); Ctrl-C again to quit now")
            return
        _say("pcg: Ctrl-C again: quitting at once")
        os._exit(int(pytest.ExitCode.INTERRUPTED))

    def stop_after_item(self) -> None:
        if self.pressed_at is None:
            self.pressed_at = time.monotonic()
        self._stop_after_item = True

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[Any]:
        result = yield
        if self._stop_after_item:  # the item reported its trial as not finished: the run stops as Ctrl-C stops it
            self._stop_after_item = False
            raise KeyboardInterrupt
        return result

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Iterator[Any]:
        self.finishing = True
        try:
            return (yield)
        finally:
            controller = self.config.pluginmanager.get_plugin("pcg-controller")
            if self.pressed and controller is not None:
                reporter = self.config.pluginmanager.get_plugin("terminalreporter")
                for line in controller.closing_lines():
                    if reporter is not None:
                        reporter.write_line(line, bold=True)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._armed:
            # a worker's controller ends it: a late Ctrl-C (one the terminal sent to every process) is ignored, not
            # raised in whatever finalizer the worker runs as it exits; elsewhere the handler the run found is back
            after = signal.SIG_IGN if hasattr(config, "workerinput") else self._previous
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(signal.SIGINT, after)
            self._armed = False


def of(config: pytest.Config) -> CtrlC | None:
    return config.stash.get(KEY, None)


def register(config: pytest.Config) -> CtrlC:
    calls.stored(0)  # this run's answers stored, counted from here
    ctrl_c = CtrlC(config)
    config.stash[KEY] = ctrl_c
    config.pluginmanager.register(ctrl_c, "pcg-ctrl-c")
    return ctrl_c


def arm(config: pytest.Config) -> None:
    """The run evaluates (a trial's item is set up, or the controller knows the run's items): Ctrl-C is ours."""
    ctrl_c = of(config)
    if ctrl_c is not None:
        ctrl_c.arm()


def pressed(config: pytest.Config) -> bool:
    """Whether Ctrl-C interrupted this run (not ``-x``, the spending cap or a failed store, which also end a
    session as interrupted)."""
    ctrl_c = of(config)
    return ctrl_c is not None and ctrl_c.pressed


def stop_after_this_item(config: pytest.Config) -> None:
    """Ctrl-C reached the trial an item runs itself: the item reports it as not finished, then the run stops."""
    ctrl_c = of(config)
    if ctrl_c is not None:
        ctrl_c.stop_after_item()
    else:
        raise KeyboardInterrupt


def _say(line: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write("\n" + line + "\n")
        sys.stderr.flush()


def say(config: pytest.Config, line: str) -> None:
    """A line on the terminal now (not from a signal handler)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(line, yellow=True)


def forward(nodes: Any) -> None:
    """Ctrl-C to each xdist worker (a terminal's reached them already: the copy is that same Ctrl-C to them)."""
    for node in nodes:
        popen = getattr(getattr(getattr(node, "gateway", None), "_io", None), "popen", None)
        pid = getattr(popen, "pid", None)
        if isinstance(pid, int) and pid > 0:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGINT)


class Drain:
    """Registered on the xdist controller: after Ctrl-C, the workers' last reports (the trials each had finished
    and those cut short) are heard before the session ends."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Iterator[Any]:
        try:
            return (yield)
        except KeyboardInterrupt:
            if pressed(self.config):
                self.drain()
            raise

    def drain(self) -> None:
        dsession = self.config.pluginmanager.get_plugin("dsession")
        nodes = set(getattr(dsession, "_active_nodes", None) or ())
        events = getattr(dsession, "queue", None)
        if not nodes or events is None:
            return
        forward(nodes)
        say(
            self.config,
            "pcg: Ctrl-C: no new model call starts; each worker waits for the calls it has in flight and reports "
            "the trials it finished (Ctrl-C again to stop waiting)",
        )
        try:
            while nodes:
                try:
                    name, kwargs = events.get(timeout=1.0)
                except queue.Empty:
                    continue
                if name in ("workerfinished", "errordown", "internal_error"):
                    node = kwargs.get("node")
                    nodes.discard(node)
                    if name != "internal_error":
                        self.config.hook.pytest_testnodedown(node=node, error=kwargs.get("error"))
                elif name in ("testreport", "logstart", "logfinish", "warning_recorded"):
                    getattr(dsession, f"worker_{name}")(**kwargs)
        except KeyboardInterrupt:
            say(self.config, "pcg: stopped waiting for the workers")


def rerun_command(config: pytest.Config, run_dir: Path) -> str:
    """The command line that finishes an interrupted run: this one, writing into the same run folder."""
    args = list(config.invocation_params.args)
    if not any(a == "--pcg-out" or a.startswith("--pcg-out=") for a in args):
        here = Path(config.invocation_params.dir)
        try:
            shown = run_dir.resolve().relative_to(here.resolve()).as_posix()
        except ValueError:
            shown = str(run_dir)
        args += ["--pcg-out", shown]
    return shlex.join([*_program(), *args])


def _program() -> list[str]:
    """How pytest was started: ``python -m pytest`` or the ``pytest`` script (by name when PATH finds it)."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    name = Path(argv0).name
    if name in ("pytest", "py.test"):
        found = shutil.which(name)
        return [name if found and Path(found).resolve() == Path(argv0).resolve() else argv0]
    python = getattr(sys, "orig_argv", [""])[0] or "python"
    return [python if "-m" in getattr(sys, "orig_argv", ()) else "python", "-m", "pytest"]
