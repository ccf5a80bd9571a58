"""Trials in flight (``--pcg-in-flight``), end to end against a loopback OpenAI-compatible server that answers each
call after a pause and counts the calls it has in flight at once (``tests/in_flight_cases.py``): in every family
the same trials and scores (and Science Birds' level files) as one trial at a time, every answer stored once
(requests = calls stored), several calls truly in flight and never more than ``--pcg-concurrency`` (the same
runs); ``-x`` stops starting trials and keeps what those in flight were paid for; Ctrl-C keeps every answer and
writes the run folder, and a rerun pays only the rest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import loopback_llm
import pytest
from in_flight_cases import CASES, SlowServer, command, level_files, load, make_work, stable_rows, stored_calls

from pcg_plugin.core.session import inflight

HERE = Path(__file__).resolve().parent
TRIALS = {"science-birds": 2, "pcgbench": 3, "imagegame": 3, "spyfall": 1}  # each: more trials than 2 workers


def env_for(work: Path, case: str) -> dict[str, str]:
    extra = [str(work), *(str(p) for p in (CASES[case].get("path"),) if p)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*extra, os.environ.get("PYTHONPATH", "")])}
    env.pop("OPENAI_API_KEY", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def slow(server: SlowServer) -> list[str]:
    return ["--pcg-backend", "openai-compatible", "--pcg-base-url", server.url, "--pcg-model", "double"]


def run(cmd: list[str], work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture
def competition(tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    case = request.param
    make_work(tmp_path, case)
    sys.path.insert(0, str(CASES[case].get("path") or tmp_path))
    sys.path.insert(0, str(tmp_path))
    try:
        server = SlowServer(load(CASES[case]["responder"]), delay=0.2)
        with loopback_llm.serve(server):
            yield case, tmp_path, server, env_for(tmp_path, case)
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(str(CASES[case].get("path") or tmp_path))


# `slow` (the test loop): the picture game's episodes are in flight as SpyFall's are (episode.EpisodeProblem), and
# Science Birds runs under the concurrency limit in the sized default's test below
@pytest.mark.parametrize(
    "competition",
    [pytest.param(c, marks=pytest.mark.slow) if c in ("imagegame", "science-birds") else c for c in sorted(CASES)],
    indirect=True,
)
def test_trials_in_flight_score_as_one_at_a_time_within_the_concurrency_limit(competition: Any) -> None:
    """One trial at a time at ``-n 0``, then ``-n 2`` with 6 trials in flight in each worker under
    ``--pcg-concurrency 3``: the same trials and scores, every answer stored once, more calls at the server at
    once than the 2 workers (trials truly in flight) and never more than the limit over all of them."""
    case, work, server, env = competition
    server.delay = 0.05  # one at a time: the pause only has to be long enough for a second call to overlap it
    one = run(command(case, "one", TRIALS[case], 0, *slow(server), "--pcg-in-flight", "1", small=True), work, env)
    assert one.returncode == 0, one.stdout[-3000:] + one.stderr[-2000:]
    asked, one_at_once = len(server.bodies), server.most_at_once
    server.most_at_once, server.delay = 0, 0.2
    many = run(
        command(
            case, "many", TRIALS[case], 2, *slow(server), "--pcg-in-flight", "6", "--pcg-concurrency", "3", small=True
        ),
        work,
        env,
    )
    assert many.returncode == 0, many.stdout[-3000:] + many.stderr[-2000:]
    assert stable_rows(work, "many") == stable_rows(work, "one") != []
    assert level_files(work, "many") == level_files(work, "one")
    assert asked == stored_calls(work, "one") and len(server.bodies) - asked == stored_calls(work, "many")
    assert one_at_once == 1 and server.most_at_once == 3  # more calls in flight than the 2 workers, none past 3


@pytest.mark.parametrize("competition", ["science-birds"], indirect=True)
def test_a_failure_under_x_stops_starting_trials_and_keeps_what_was_paid(competition: Any) -> None:
    """A trial whose item errors (the server refuses its calls as unauthorized: an infrastructure error) with
    ``-x``: no trial starts after it, the run ends, and every call answered is in the store."""
    case, work, server, env = competition
    server.fault_for = lambda body: (  # type: ignore[method-assign]
        ("status", 401, {}) if "TARGET=L" in str(body["messages"]) else ("sleep", 0.2)
    )
    result = run(command(case, "x", 1, 0, *slow(server), "--pcg-in-flight", "4", "-x", small=True), work, env)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "stopping after 1 failures" in result.stdout
    answered = [b for b in server.bodies if "TARGET=L" not in str(b["messages"])]
    assert len(answered) == stored_calls(work, "x") > 0
    assert len(stable_rows(work, "x")) < 6  # 2 programs x 3 letters x 1 trial: the run stopped short


@pytest.mark.slow  # tests/e2e/test_interrupt_e2e.py presses Ctrl-C with trials in flight too, at -n 2 (the test loop)
@pytest.mark.parametrize("competition", ["science-birds"], indirect=True)
def test_ctrl_c_keeps_every_answer_writes_the_run_folder_and_a_rerun_pays_the_rest(competition: Any) -> None:
    case, work, server, env = competition
    cmd = command(case, "run", 2, 0, *slow(server), "--pcg-in-flight", "6", small=True)
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 300
    while server.n_answered < 8 and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()[0][-3000:]
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out = proc.communicate(timeout=120)[0]
    first = len(server.bodies)
    assert proc.returncode == 2, out[-3000:]  # interrupted
    assert first == server.n_answered == stored_calls(work, "run")  # every call sent was answered and stored
    done = stable_rows(work, "run")
    assert 0 < len(done) < 12, out[-3000:]  # the run folder holds the trials that finished (of 2 x 3 x 2)
    again = run(cmd, work, env)
    assert again.returncode == 0, again.stdout[-3000:]
    assert len(server.bodies) - first == stored_calls(work, "run") - first  # only what was not stored is asked
    assert len(stable_rows(work, "run")) == 12


@pytest.mark.parametrize("competition", ["science-birds"], indirect=True)
def test_k_selects_the_trials_started_ahead_too(competition: Any) -> None:
    case, work, server, env = competition
    result = run(
        command(case, "k", 2, 0, *slow(server), "--pcg-in-flight", "8", "-k", "letter_T", small=True), work, env
    )
    assert result.returncode == 0, result.stdout[-3000:]
    rows = stable_rows(work, "k")
    assert {r["target"] for r in rows} == {"T"} and len(rows) == 4  # 2 programs x 2 trials of T, nothing else
    assert all("TARGET=T" in str(b["messages"]) for b in server.bodies)


@pytest.mark.parametrize("competition", ["science-birds"], indirect=True)
def test_with_no_number_given_the_harness_sizes_it_and_scores_as_one_at_a_time(competition: Any) -> None:
    """No ``--pcg-in-flight``: each of 2 workers, pinned to one CPU between them, sizes its own trials in flight,
    under ``--pcg-concurrency 3``. The same trials, scores and level files as one at a time, every answer stored
    once, more calls at the server at once than the workers and never more than the limit; results.json and the
    terminal say what the harness chose, and the terminal says once that 2 workers on 1 CPU is one too many."""
    case, work, server, env = competition
    env.pop(inflight.ENV, None)
    server.delay = 0.05
    one = run(command(case, "one", 2, 0, *slow(server), "--pcg-in-flight", "1", small=True), work, env)
    assert one.returncode == 0, one.stdout[-3000:] + one.stderr[-2000:]
    asked = len(server.bodies)
    server.most_at_once, server.delay = 0, 0.3
    one_cpu = sorted(os.sched_getaffinity(0))[:1]
    sized = subprocess.run(
        command(case, "sized", 2, 2, *slow(server), "--pcg-concurrency", "3", small=True),
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        preexec_fn=lambda: os.sched_setaffinity(0, one_cpu),
    )
    assert sized.returncode == 0, sized.stdout[-3000:] + sized.stderr[-2000:]
    assert stable_rows(work, "sized") == stable_rows(work, "one") != []
    assert level_files(work, "sized") == level_files(work, "one")
    assert len(server.bodies) - asked == stored_calls(work, "sized") == stored_calls(work, "one")
    assert server.most_at_once == 3  # more calls at once than the 2 workers (trials in flight, unasked), none past 3
    chosen = json.loads((work / "sized" / "results.json").read_text())["in_flight"]
    assert chosen["sized_by"] == "harness" and set(chosen["processes"]) == {"gw0", "gw1"}
    assert all(p["peak"] >= 1 and p["allowed_last"] >= 2 for p in chosen["processes"].values())
    assert "pcg: trials in flight per process, sized by the harness: gw0 peak" in sized.stdout
    said = "pcg: -n 2 on 1 CPU: trials in flight already overlap the waits on the model; -n 1 would be faster"
    assert sized.stdout.count(said) == 1, sized.stdout[-3000:]
