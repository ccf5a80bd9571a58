"""Ctrl-C, as a terminal sends it (SIGINT to the run's whole process group), to a real ``python -m pytest`` run of
Science Birds against a loopback server that answers each call after a pause (tests/in_flight_cases.py):

- with trials in flight (``-n 0`` and ``-n 2``) and with one trial at a time in its item: the run folder holds
  ``results.json`` and the report over the trials that finished, marked interrupted; every answer the server gave is
  stored; the terminal's last lines say what was kept and the command that finishes the run, and that command pays
  only for what is missing;
- while the run writes its folder (the workers shutting down): said, never a traceback, the run folder complete; a
  second Ctrl-C then quits at once.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import loopback_llm
import pytest
from in_flight_cases import SlowServer, command, load, make_work, stable_rows, stored_calls

TRIALS = 6  # 2 programs (one call, two calls) x 3 letters x 1 trial
# a run that takes its time once its folder is written (results.json, before pytest_pcg_run_finished), as a big one
# does: the window the tests press Ctrl-C in
SLOW_FINISH = """
import os, time

def pytest_pcg_run_finished(config, results):
    time.sleep(float(os.environ.get("SLOW_FINISH", "0")))
"""


@pytest.fixture
def slow(tmp_path: Path) -> Any:
    make_work(tmp_path, "science-birds")
    (tmp_path / "conftest.py").write_text(SLOW_FINISH, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        server = SlowServer(load("bench_double:respond"), delay=1.0)
        with loopback_llm.serve(server):
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
            for key in ("OPENAI_API_KEY", "PYTEST_XDIST_WORKER"):
                env.pop(key, None)
            yield tmp_path, server, env
    finally:
        sys.path.remove(str(tmp_path))


def _start(work: Path, server: SlowServer, env: dict[str, str], workers: int, *extra: str) -> subprocess.Popen[str]:
    cmd = command("science-birds", "run", 1, workers, "--pcg-backend", "openai-compatible", "--pcg-base-url",
                  server.url, "--pcg-model", "double", *extra, small=True)  # fmt: skip
    return subprocess.Popen(
        cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )


def _ctrl_c(proc: subprocess.Popen[str]) -> None:
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does: every process of the run


def _wait_for(proc: subprocess.Popen[str], ready: Any) -> None:
    deadline = time.monotonic() + 300
    while not ready():
        assert proc.poll() is None, proc.communicate()[0][-3000:]
        assert time.monotonic() < deadline, "the run never got there"
        time.sleep(0.02)


def _results(work: Path) -> dict[str, Any]:
    return json.loads((work / "run" / "results.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("workers", "in_flight"),
    [
        # trials in flight without xdist: the same code path as n2's workers; `slow` (the test loop)
        pytest.param(0, "6", id="n0-in-flight", marks=pytest.mark.slow),
        pytest.param(2, "6", id="n2-in-flight"),
        pytest.param(0, "1", id="n0-in-item"),
    ],
)
def test_ctrl_c_keeps_what_finished_in_an_interrupted_run_folder_and_says_how_to_finish(
    slow: Any, workers: int, in_flight: str
) -> None:
    work, server, env = slow
    proc = _start(work, server, env, workers, "--pcg-in-flight", in_flight)
    _wait_for(proc, lambda: server.n_answered >= 2)
    _ctrl_c(proc)
    out = proc.communicate(timeout=240)[0]
    assert proc.returncode == 2, out[-3000:]
    assert "Traceback" not in out, out[-6000:]
    answered = server.n_answered
    assert len(server.bodies) == answered == stored_calls(work, "run")  # every call sent was answered and stored

    doc = _results(work)
    facts = doc["interrupted"]
    assert facts["trials_finished"] + facts["trials_not_finished"] == TRIALS, facts
    assert facts["trials_not_finished"] >= 1 and facts["answers_stored"] == answered, facts
    assert len(doc["not_run"]) == facts["trials_not_finished"] and set(doc["not_run"].values()) == {"interrupted"}
    assert len(stable_rows(work, "run")) == facts["trials_finished"]  # the trials that finished, in trials.jsonl
    assert "INTERRUPTED (Ctrl-C)" in (work / "run" / "report.html").read_text(encoding="utf-8")

    last = out.rstrip().splitlines()[-3:]
    assert last[0].startswith(f"pcg: interrupted (Ctrl-C): kept {facts['trials_finished']} of {TRIALS} trials"), last
    assert f"the {answered} answer(s) this run was paid for are stored" in last[0], last
    assert last[1].startswith("pcg: to finish the run (it pays only for what is missing"), last
    assert last[2].strip() == facts["rerun"], last

    server.delay = 0.05  # the rerun is about what it asks, not about when: no pause to wait out
    again = subprocess.run(
        shlex.split(facts["rerun"]), cwd=work, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert again.returncode == 0, again.stdout[-3000:]
    assert len(server.bodies) - answered == stored_calls(work, "run") - answered  # only what was missing is asked
    assert "interrupted" not in _results(work) and len(stable_rows(work, "run")) == TRIALS


def _ctrl_c_while_finishing(slow: Any, workers: int, presses: int) -> tuple[Path, int, str]:
    """Ctrl-C ``presses`` times (each past the time a copy of the same one is ignored) once the run folder is
    written, the run then taking 5 s more to finish (``SLOW_FINISH``)."""
    work, server, env = slow
    server.delay = 0.05  # the presses wait for the run folder, not for an answer
    proc = _start(work, server, env | {"SLOW_FINISH": "5"}, workers)
    _wait_for(proc, lambda: (work / "run" / "results.json").is_file())
    for press in range(presses):
        time.sleep(1.5 if press else 0)
        _ctrl_c(proc)
    out = proc.communicate(timeout=240)[0]
    assert "Traceback" not in out, out[-6000:]
    return work, proc.returncode, out


def test_ctrl_c_while_the_workers_shut_down_is_said_and_the_run_folder_is_whole(slow: Any) -> None:
    work, code, out = _ctrl_c_while_finishing(slow, 2, presses=1)
    assert "KeyboardInterrupt" not in out and "pcg: Ctrl-C: the run is writing its run folder" in out, out[-3000:]
    assert code == 0 and "pytest-pcg leaderboard" in out, out[-3000:]
    assert "interrupted" not in _results(work) and len(stable_rows(work, "run")) == TRIALS


def test_a_second_ctrl_c_while_the_run_finishes_quits_at_once(slow: Any) -> None:
    _, code, out = _ctrl_c_while_finishing(slow, 0, presses=2)
    assert code == 2 and "pcg: Ctrl-C again: quitting at once" in out, out[-3000:]
