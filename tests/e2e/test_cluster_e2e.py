"""``--pcg-cluster``: the same scripted competition on a simulated Ray cluster (a head and three one-CPU nodes,
``ray.cluster_utils.Cluster``, started by the plugin inside a loopback-only network namespace) scores every trial
exactly as ``-n 0`` and ``-n 2`` do, with the run folder written by the driver; a node removed mid-run loses
nothing and pays nothing twice. One cluster start per test: each costs 20-40 s here, so the whole file is
``slow`` (``.ci/run``'s second step, ``python -m pytest -m slow tests/e2e/test_cluster_e2e.py``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from cluster_support import run_in_netns, skip_reason, two_hosts_reason
from e2e_support import VARIED_BODY, load_results, program, run_args, write_competition
from test_plugin_e2e import stable_view

REASON = skip_reason()
needs_ray = pytest.mark.skipif(REASON is not None, reason=REASON or "")
pytestmark = pytest.mark.slow
ARGS = ("--pcg-letters", "I,L", "--pcg-trials", "2")  # 2 submissions x 2 letters x 2 trials = 8 trials
TRIALS = 8

# The scripted double, counting every request it answers (one line each) before it answers: "requests" below.
COUNTING = """
from pathlib import Path
import scripted_llm

def respond(messages, n=1):
    with open(Path(__file__).with_name("requests.log"), "a") as log:
        log.write("x\\n")
    return scripted_llm.respond(messages, n)
"""


def stored_calls(root: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(root / "store" / "responses.sqlite3") as db:
        return db.execute("SELECT key_id, idx FROM calls ORDER BY key_id, idx").fetchall()


def run_files(run: Path) -> dict[str, bytes]:
    """The trial files of a run folder (levels and raw answers: what workers write), by relative path."""
    return {
        p.relative_to(run).as_posix(): p.read_bytes()
        for p in sorted(run.rglob("*"))
        if p.is_file() and p.suffix in (".xml", ".txt") and "/result" not in p.as_posix()
    }


def reference_run(competition: pytest.Pytester, out: str, *extra: str) -> dict:
    """The same competition without the cluster (its own store, so every call is paid here too)."""
    result = competition.runpytest_subprocess(*run_args(out, *ARGS, "--pcg-store", out + "-store", *extra), timeout=300)
    assert result.ret == 0, result.stdout.str()
    return load_results(competition.path, out)


def cluster_run(competition: pytest.Pytester, out: str, *extra: str) -> str:
    args = [*run_args(out, *ARGS, "--pcg-cluster", "local:3", *extra)]
    args[args.index("scripted_llm:respond")] = "counting_llm:respond"
    proc = run_in_netns(args, competition.path)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert f"{TRIALS} passed" in proc.stdout
    return proc.stdout


def _without_model(view: dict) -> dict:
    return {**view, "submissions": [{k: v for k, v in s.items() if k != "model"} for s in view["submissions"]]}


@pytest.fixture
def varied(competition: pytest.Pytester) -> pytest.Pytester:
    write_competition(competition.path, {"team_prog": {"entry.py": program(VARIED_BODY)}})
    (competition.path / "counting_llm.py").write_text(COUNTING)
    return competition


@needs_ray
def test_a_cluster_with_a_node_removed_scores_like_n2(varied):
    """local:3 with one node removed after the first trial came back (the node with calls still out): every trial
    scored, the lost node's trials run again elsewhere (replaying what its attempt had stored), requests = stored
    calls, results.json as -n 2 (which test_plugin_e2e holds equal to -n 0; the slow test below compares with -n 0
    directly). Calls go through the per-endpoint limiter actors (``--pcg-rpm``), whose lost slots are freed."""
    competition = varied
    runs = {"parallel": reference_run(competition, "parallel", "-p", "xdist", "-n", "2")}
    stdout = cluster_run(
        competition,
        "cluster",
        "--pcg-cluster-fault",
        "remove-node-after:1",
        "--pcg-rpm",
        "6000",
        "--pcg-concurrency",
        "2",
        "--pcg-in-flight",  # one trial at a time in an actor: the hold the fault hook sends keeps the next one back
        "1",
    )  # through the limiter actors, never binding
    assert "1 node removed" in stdout and "attempt 1 lost" in stdout, stdout[-3000:]
    assert stdout.count("pcg cluster: rate limit of endpoint") == 1, stdout[-3000:]  # one model, one limiter
    runs["cluster"] = load_results(competition.path, "cluster")
    # the cluster run answers through counting_llm: each submission row names its model, else all the same
    assert _without_model(stable_view(runs["cluster"])) == _without_model(stable_view(runs["parallel"]))
    trials = [t for s in runs["cluster"]["submissions"] for d in s["letters"].values() for t in d["trials"]]
    assert len(trials) == TRIALS and all(t["sta"] is not None for t in trials)
    requests = (competition.path / "requests.log").read_text().count("x")
    calls = stored_calls(competition.path)
    assert requests == len(calls) == TRIALS  # one call a trial, none paid twice
    assert len(set(calls)) == len(calls)
    assert run_files(competition.path / "cluster") == run_files(competition.path / "parallel") != {}


@needs_ray
def test_a_cluster_scores_like_n0(varied):
    """local:3, nothing removed: results.json and the trial files as -n 0; requests = stored calls."""
    competition = varied
    serial = reference_run(competition, "serial")
    stdout = cluster_run(competition, "cluster")
    assert "lost" not in stdout
    # the cluster run answers through the counting double (cluster_run), whose name each row now carries
    assert _without_model(stable_view(load_results(competition.path, "cluster"))) == _without_model(stable_view(serial))
    assert (competition.path / "requests.log").read_text().count("x") == len(stored_calls(competition.path)) == TRIALS
    assert run_files(competition.path / "cluster") == run_files(competition.path / "serial") != {}


@needs_ray
def test_a_killed_driver_is_resumed_by_a_rerun_with_the_same_store(varied):
    """kill -9 of the driver once 3 requests were answered; the same command again: every trial scored, the
    calls the killed run stored replayed (a request in flight at the kill, if any, is the one paid twice)."""
    import os
    import signal
    import subprocess
    import sys
    import tempfile
    import time

    from cluster_support import netns_preexec

    competition = varied
    args = [*run_args("cluster", *ARGS, "--pcg-cluster", "local:2")]
    args[args.index("scripted_llm:respond")] = "counting_llm:respond"
    tmp = tempfile.mkdtemp(prefix="pcg-ray-", dir="/tmp")  # short: Ray's sockets live under it
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_TMPDIR=tmp)
    log = competition.path / "requests.log"
    driver = subprocess.Popen(
        [sys.executable, "-m", "pytest", *args],
        cwd=competition.path,
        env=env,
        preexec_fn=netns_preexec,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while (not log.exists() or log.read_text().count("x") < 3) and time.monotonic() < deadline:
            assert driver.poll() is None, "the driver ended before it was killed"
            time.sleep(0.05)
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    before = len(stored_calls(competition.path))
    assert 3 <= before < TRIALS
    stdout = cluster_run(competition, "cluster")
    results = load_results(competition.path, "cluster")
    trials = [t for s in results["submissions"] for d in s["letters"].values() for t in d["trials"]]
    assert len(trials) == TRIALS and all(t["sta"] is not None for t in trials), stdout[-2000:]
    assert len(stored_calls(competition.path)) == TRIALS
    assert log.read_text().count("x") in (TRIALS, TRIALS + 1)
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)


@needs_ray
@pytest.mark.skipif(two_hosts_reason() is not None, reason=two_hosts_reason() or "")
def test_a_cluster_actor_keeps_trials_in_flight_and_scores_like_n2(tmp_path):
    """local:2 with --pcg-in-flight 4: each actor runs several trials at once (the slow server sees more calls in
    flight than the two actors), every trial's files come back once, the same trials and scores as -n 2 one at a
    time, and requests = calls stored. The server runs beside the run in a network namespace of the test's own."""
    import json
    import os
    import subprocess

    from cluster_support import two_hosts
    from in_flight_cases import command, level_files, make_work, serve_elsewhere, stable_rows, stored_calls

    make_work(tmp_path, "science-birds")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    env.update(RAY_USAGE_STATS_ENABLED="0")
    env.pop("OPENAI_API_KEY", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    with two_hosts() as hosts:
        server = serve_elsewhere("science-birds", tmp_path, 0.3, hosts.cmd(hosts.run, []))
        try:
            url = server.stdout.readline().strip()
            slow = ["--pcg-backend", "openai-compatible", "--pcg-base-url", url, "--pcg-model", "double"]

            def run(out: str, workers: int, *extra: str) -> None:
                cmd = hosts.cmd(hosts.run, command("science-birds", out, 2, workers, *slow, *extra, small=True))
                done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
                assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]

            run("n2", 2, "--pcg-in-flight", "1")
            run("cluster", 0, "--pcg-cluster", "local:2", "--pcg-in-flight", "4")
        finally:
            seen = json.loads(server.communicate(input="", timeout=60)[0].strip().splitlines()[-1])
    assert stable_rows(tmp_path, "cluster") == stable_rows(tmp_path, "n2") != []
    assert level_files(tmp_path, "cluster") == level_files(tmp_path, "n2") != {}
    assert seen["requests"] == stored_calls(tmp_path, "n2") + stored_calls(tmp_path, "cluster")
    assert seen["most_at_once"] > 2, seen  # the two one-CPU actors had more than one call in flight each
