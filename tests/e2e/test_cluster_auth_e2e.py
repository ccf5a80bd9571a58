"""Nobody else runs code on the run's cluster, tried across two hosts made of network namespaces joined by a veth
pair (``cluster_support.two_hosts``: the run's host at 10.77.0.1, another host at 10.77.0.2, nothing beyond).

- ``local:2``: while the run waits on its model, every port its Ray processes listen on is on loopback (another
  host reaches none of them), a process on the same machine without the token is refused by Ray's token
  authentication, and one holding the run's token runs a task (the control: the refusal is the token's doing);
  the run then finishes unaffected and its token is gone.
- Joining: a cluster the test starts open, reachable from the other host (which runs a task on it: the control),
  is refused (exit 4) and joined with ``--pcg-cluster-insecure``, which the summary and the report say.

Each test starts a Ray cluster (20-70 s): ``slow``, run by ``.ci/run``'s second step."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from cluster_support import (
    GATED,
    KNOCK,
    OPEN_CLUSTER,
    RUN_HOST,
    bare_env,
    skip_reason,
    stranger,
    two_hosts,
    two_hosts_reason,
)
from e2e_support import VARIED_BODY, load_results, program, run_args, write_competition

REASON = skip_reason() or two_hosts_reason()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(REASON is not None, reason=REASON or "")]
ARGS = ("--pcg-letters", "I,L", "--pcg-trials", "2")
TRIALS = 8


def stored_calls(root: Path) -> int:
    with sqlite3.connect(root / "store" / "responses.sqlite3") as db:
        return int(db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])


@pytest.fixture
def gated(competition: pytest.Pytester) -> pytest.Pytester:
    write_competition(competition.path, {"team_prog": {"entry.py": program(VARIED_BODY)}})
    (competition.path / "gated_llm.py").write_text(GATED)
    return competition


def pytest_args(out: str, *extra: str) -> list[str]:
    args = [*run_args(out, *ARGS, *extra)]
    args[args.index("scripted_llm:respond")] = "gated_llm:respond"
    return [sys.executable, "-m", "pytest", *args]


def test_a_local_cluster_listens_on_loopback_and_lets_in_only_its_token(gated: pytest.Pytester) -> None:
    root = gated.path
    ray_tmp = Path(tempfile.mkdtemp(prefix="pcg-ray-", dir="/tmp"))  # short: Ray's sockets live under it
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_TMPDIR=str(ray_tmp))
    env.pop("PYTEST_XDIST_WORKER", None)
    with two_hosts() as hosts:
        driver = subprocess.Popen(
            hosts.cmd(hosts.run, pytest_args("run", "--pcg-cluster", "local:2")),
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            deadline = time.monotonic() + 240
            log = root / "requests.log"
            while not (log.exists() and log.read_text().count("x") >= 1):  # the cluster is up, trials are running
                assert driver.poll() is None, driver.communicate()[0][-4000:]
                assert time.monotonic() < deadline, "no trial called the model"
                time.sleep(0.1)
            listening = hosts.listening(hosts.run)
            gcs = [port for _, port, proc in listening if "gcs_server" in proc]
            assert len(gcs) == 1, listening
            assert [a for a, _, _ in listening if a not in ("127.0.0.1", "::1")] == [], listening
            tokens = list(ray_tmp.glob("pcg-auth-*/auth_token"))
            assert len(tokens) == 1 and oct(tokens[0].stat().st_mode & 0o777) == "0o600"

            knock = hosts.python(hosts.other, KNOCK, RUN_HOST, *(str(p) for _, p, _ in listening))
            assert "OPEN" not in knock.stdout and knock.stdout.count("CLOSED") == len(listening), knock.stdout
            loopback = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}  # as the run, so 127.0.0.1 stays 127.0.0.1
            local = stranger(hosts, hosts.run, f"127.0.0.1:{gcs[0]}", bare_env(root, **loopback))
            assert local.returncode != 0 and "STRANGER RAN" not in local.stdout, local.stdout[-2000:]
            assert "Authentication token is missing or incorrect" in local.stderr, local.stderr[-3000:]
            control = stranger(
                hosts,
                hosts.run,
                f"127.0.0.1:{gcs[0]}",
                bare_env(root, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(tokens[0]), **loopback),
            )
            assert "STRANGER RAN A TASK 42" in control.stdout, control.stderr[-3000:]
        finally:
            (root / "go").touch()
            try:
                out = driver.communicate(timeout=300)[0]
            finally:
                if driver.poll() is None:
                    driver.kill()
                    driver.wait()
    assert driver.returncode == 0, out[-4000:]
    assert f"{TRIALS} passed" in out and "INSECURE" not in out
    results = load_results(root, "run")
    trials = [t for s in results["submissions"] for d in s["letters"].values() for t in d["trials"]]
    assert len(trials) == TRIALS and all(t["sta"] is not None for t in trials)
    assert (root / "requests.log").read_text().count("x") == stored_calls(root) == TRIALS
    assert not list(ray_tmp.glob("pcg-auth-*")), "the run's token outlived it"
    import shutil

    shutil.rmtree(ray_tmp, ignore_errors=True)


def test_an_open_cluster_is_refused_unless_insecure_is_asked(gated: pytest.Pytester) -> None:
    root = gated.path
    (root / "go").touch()
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    env.pop("PYTEST_XDIST_WORKER", None)
    for key in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_TMPDIR"):
        env.pop(key, None)
    with two_hosts() as hosts:
        cluster = subprocess.Popen(
            hosts.cmd(hosts.run, [sys.executable, "-c", OPEN_CLUSTER]),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            address = cluster.stdout.readline().strip()  # type: ignore[union-attr]
            assert address.startswith(RUN_HOST + ":"), address
            control = stranger(hosts, hosts.other, address, bare_env(root))  # from the other host, no token
            assert "STRANGER RAN A TASK 42" in control.stdout, control.stderr[-3000:]

            def join(*extra: str) -> subprocess.CompletedProcess[str]:
                return subprocess.run(
                    hosts.cmd(hosts.run, pytest_args("joined", "--pcg-cluster", address, *extra)),
                    cwd=root,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=400,
                    check=False,
                )

            refused = join()
            assert refused.returncode == 4, refused.stdout[-3000:] + refused.stderr[-3000:]
            for words in ("runs without authentication", "RAY_AUTH_MODE=token", "docs/cluster.md#security"):
                assert words in refused.stderr, refused.stderr[-3000:]
            assert not (root / "requests.log").exists() and not (root / "joined").exists()
            joined = join("--pcg-cluster-insecure")
        finally:
            cluster.communicate(input="", timeout=120)
    assert joined.returncode == 0, joined.stdout[-4000:] + joined.stderr[-3000:]
    assert f"{TRIALS} passed" in joined.stdout
    assert f"pcg: INSECURE CLUSTER: the Ray cluster at {address} runs without authentication" in joined.stdout
    report = (root / "joined" / "report.html").read_text(encoding="utf-8")
    assert "pcg-notice" in report and f"INSECURE CLUSTER: the Ray cluster at {address}" in report
