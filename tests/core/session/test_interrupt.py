"""Ctrl-C's handler (core.session.interrupt.CtrlC) against the one window a run can lose count in: an answer
written to the store but not yet counted as kept."""

from __future__ import annotations

import signal
from types import SimpleNamespace
from typing import Any

import pytest

from pcg_plugin.core.records import calls
from pcg_plugin.core.session.interrupt import GRACE, CtrlC


def _handler() -> CtrlC:
    return CtrlC(SimpleNamespace())  # type: ignore[arg-type]


def test_ctrl_c_inside_a_commit_waits_for_the_answer_to_be_counted() -> None:
    calls.stored(0)
    ctrl_c = _handler()
    written: list[str] = []
    with pytest.raises(KeyboardInterrupt), calls.committing():
        written.append("row")
        ctrl_c._on_sigint(signal.SIGINT, None)  # the terminal's Ctrl-C, between the write and the count
        calls.stored(1)
    assert written == ["row"] and calls.stored() == 1 and ctrl_c.pressed


def test_ctrl_c_outside_a_commit_stops_at_once_and_a_finished_commit_raises_nothing() -> None:
    ctrl_c = _handler()
    with calls.committing():
        pass
    with pytest.raises(KeyboardInterrupt):
        ctrl_c._on_sigint(signal.SIGINT, None)


def test_a_commit_on_another_thread_does_not_hold_the_main_threads_ctrl_c() -> None:
    import threading

    ctrl_c = _handler()
    entered, leave = threading.Event(), threading.Event()

    def commit() -> None:
        with calls.committing():
            entered.set()
            leave.wait(5)

    worker: Any = threading.Thread(target=commit)
    worker.start()
    try:
        entered.wait(5)
        assert not calls.holding()
        with pytest.raises(KeyboardInterrupt):
            ctrl_c._on_sigint(signal.SIGINT, None)
    finally:
        leave.set()
        worker.join()


@pytest.mark.parametrize("worker", [True, False], ids=["xdist-worker", "controller"])
def test_after_the_session_a_workers_late_ctrl_c_is_ignored_and_elsewhere_the_old_handler_is_back(
    worker: bool,
) -> None:
    """A terminal's Ctrl-C reaches every process: a worker past its session ignores it (its controller ends it),
    rather than raising KeyboardInterrupt in a finalizer as it exits (an 'Exception ignored' traceback)."""
    original = signal.getsignal(signal.SIGINT)
    config = SimpleNamespace(workerinput={}) if worker else SimpleNamespace()
    ctrl_c = CtrlC(config)  # type: ignore[arg-type]
    try:
        ctrl_c.arm()
        assert signal.getsignal(signal.SIGINT) == ctrl_c._on_sigint
        ctrl_c.pytest_unconfigure(config)  # type: ignore[arg-type]
        assert signal.getsignal(signal.SIGINT) == (signal.SIG_IGN if worker else original)
    finally:
        signal.signal(signal.SIGINT, original)


def test_a_second_ctrl_c_while_an_answer_is_awaited_stops_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    ctrl_c = _handler()
    with pytest.raises(KeyboardInterrupt), calls.committing():
        ctrl_c._on_sigint(signal.SIGINT, None)  # the first: the call in progress is answered and stored first
        ctrl_c._last -= 2 * GRACE  # past the time a copy of the same Ctrl-C is ignored
        with pytest.raises(KeyboardInterrupt):
            ctrl_c._on_sigint(signal.SIGINT, None)  # the second: at once
    assert "storing the answer of the model call in progress" in capsys.readouterr().err
