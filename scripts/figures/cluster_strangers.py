"""Who can run code on a ``--pcg-cluster`` run: the figures of docs/cluster.md#security, on two hosts made of
network namespaces (``tests/cluster_support.two_hosts``; root and iproute2 needed).

    python scripts/figures/cluster_strangers.py WORK [--checkout DIR] [--join]

Starts a ``local:2`` run of a small scripted competition (2 programs x 2 letters x 2 trials) whose model waits for
a file, and while it waits prints: the cluster's start-up (the command's start to the first model request), every
TCP socket the run listens on (``ss -ltnp``), and what three processes that share nothing with the run get: one
on the other host joining the GCS at the run host's address, one on the same host without the token, one on the
same host with the run's token file (when the run made one). ``--join``: a cluster started open on the run's host;
``pytest --pcg-cluster ADDRESS`` without and with ``--pcg-cluster-insecure`` (exit code, the first lines said).
``--checkout DIR``: the plugin of another checkout (e.g. a worktree of the revision before), put first on
PYTHONPATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "e2e")]

from cluster_support import (  # noqa: E402 - tests/, put on sys.path above
    GATED,
    OPEN_CLUSTER,
    RUN_HOST,
    TwoHosts,
    bare_env,
    stranger,
    two_hosts,
    two_hosts_reason,
)
from e2e_support import TINY_CLASSIFIER, VARIED_BODY, make_tiny_classifier, program, run_args, write_competition  # noqa: E402 - tests/e2e/, put on sys.path above

LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def competition(work: Path) -> None:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    write_competition(work, {"a": {"entry.py": program(VARIED_BODY)}, "b": {"entry.py": program(VARIED_BODY, "B")}})
    (work / "gated_llm.py").write_text(GATED)
    make_tiny_classifier(work / TINY_CLASSIFIER)


def pytest_cmd(out: str, *extra: str) -> list[str]:
    args = run_args(out, "--pcg-letters", "I,L", "--pcg-trials", "2", *extra)
    args[args.index("scripted_llm:respond")] = "gated_llm:respond"
    return [sys.executable, "-m", "pytest", *args]


def said(proc: subprocess.CompletedProcess[str]) -> str:
    """The line a stranger's attempt ends with: what it ran, or the error it got."""
    if "STRANGER RAN" in proc.stdout:
        return proc.stdout.strip().splitlines()[-1]
    lines = [ln for ln in proc.stderr.splitlines() if "Error" in ln or "Unauthenticated" in ln or "not connected" in ln]
    return f"exit {proc.returncode}: " + (lines[-1].strip()[:200] if lines else proc.stderr.strip()[-200:])


def local_run(hosts: TwoHosts, work: Path, env: dict[str, str]) -> None:
    ray_tmp = Path(tempfile.mkdtemp(prefix="pcg-ray-", dir="/tmp"))
    run_env = dict(env, RAY_TMPDIR=str(ray_tmp))
    t0 = time.monotonic()
    driver = subprocess.Popen(
        hosts.cmd(hosts.run, pytest_cmd("run", "--pcg-cluster", "local:2")),
        cwd=work,
        env=run_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        log = work / "requests.log"
        while not (log.exists() and log.read_text().count("x") >= 1):
            if driver.poll() is not None:
                raise SystemExit(driver.communicate()[0][-3000:])
            time.sleep(0.05)
        print(f"start-up (command start to the first model request): {time.monotonic() - t0:.1f} s")
        ss = subprocess.run(hosts.cmd(hosts.run, ["ss", "-ltnp"]), capture_output=True, text=True, check=True).stdout
        print(f"listening on the run's host ({len(ss.splitlines()) - 1} sockets):\n{ss}")
        listening = hosts.listening(hosts.run)
        gcs = next(port for _, port, proc in listening if "gcs_server" in proc)
        far = stranger(hosts, hosts.other, f"{RUN_HOST}:{gcs}", bare_env(work), timeout=60)
        print(f"another host, no token, ray.init('{RUN_HOST}:{gcs}'): {said(far)}")
        near = stranger(hosts, hosts.run, f"127.0.0.1:{gcs}", bare_env(work, **LOOPBACK))
        print(f"the same host, no token, ray.init('127.0.0.1:{gcs}'): {said(near)}")
        tokens = list(ray_tmp.glob("pcg-auth-*/auth_token"))
        if tokens:
            mode = oct(tokens[0].stat().st_mode & 0o777)
            env_t = bare_env(work, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(tokens[0]), **LOOPBACK)
            print(
                f"the same host, the run's token file ({mode}): "
                f"{said(stranger(hosts, hosts.run, f'127.0.0.1:{gcs}', env_t))}"
            )
        else:
            print("the run made no token file")
    finally:
        (work / "go").touch()
        out = driver.communicate(timeout=600)[0]
        print("the run:", [ln for ln in out.splitlines() if " passed" in ln or " failed" in ln][-1:])
        left = list(ray_tmp.glob("pcg-auth-*"))
        print(f"token folders left after the run: {len(left)}")
        shutil.rmtree(ray_tmp, ignore_errors=True)


def join(hosts: TwoHosts, work: Path, env: dict[str, str]) -> None:
    (work / "go").touch()
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
        print(
            f"an open cluster at {address}; from the other host: "
            f"{said(stranger(hosts, hosts.other, address, bare_env(work)))}"
        )
        for extra in ((), ("--pcg-cluster-insecure",)):
            shutil.rmtree(work / "joined", ignore_errors=True)
            proc = subprocess.run(
                hosts.cmd(hosts.run, pytest_cmd("joined", "--pcg-cluster", address, *extra)),
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            lines = [
                ln
                for ln in (proc.stderr + proc.stdout).splitlines()
                if "ERROR" in ln or "INSECURE" in ln or " passed" in ln
            ][:3]
            print(f"pytest --pcg-cluster {address} {' '.join(extra)}: exit {proc.returncode}")
            for line in lines:
                print("   ", line[:400])
    finally:
        cluster.communicate(input="", timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", type=Path)
    parser.add_argument(
        "--checkout", type=Path, default=ROOT, help="the checkout whose plugin runs (default: this one)"
    )
    parser.add_argument("--join", action="store_true", help="also join a cluster started open")
    args = parser.parse_args()
    reason = two_hosts_reason()
    if reason:
        raise SystemExit(reason)
    work = args.work.resolve()
    competition(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    env.update(RAY_USAGE_STATS_ENABLED="0", PYTHONPATH=f"{args.checkout.resolve()}{os.pathsep}{work}")
    print(f"plugin from {args.checkout.resolve()}")
    with two_hosts() as hosts:
        local_run(hosts, work, env)
        if args.join:
            join(hosts, work, env)


if __name__ == "__main__":
    main()
