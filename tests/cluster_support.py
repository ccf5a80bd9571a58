"""Starting Ray in a test without letting anything leave the machine: a child process in its own network
namespace holding nothing but loopback (``unshare(CLONE_NEWNET)``, plus ``CLONE_NEWUSER`` when not root, then lo
brought up by ioctl: no ``unshare`` or ``ip`` binary needed). Ray binds every interface it sees and asks a public
resolver for its own address; inside, it sees only lo and the lookup fails at once. Tests stop only what they
started: the plugin's ``Cluster.shutdown()``, never ``ray stop``."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import importlib.util
import os
import shutil
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def _lo_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        name, flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH14x", b"lo", 0)))
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", name, flags | IFF_UP))


def netns_preexec() -> None:
    """``preexec_fn``: the child alone enters a new network namespace with lo up (``unshare -n``/``-rn``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(CLONE_NEWNET if uid == 0 else CLONE_NEWNET | CLONE_NEWUSER) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    if uid != 0:  # map our uid to root inside, so the files the child writes keep their owner
        for path, text in (
            ("/proc/self/setgroups", "deny"),
            ("/proc/self/uid_map", f"0 {uid} 1"),
            ("/proc/self/gid_map", f"0 {gid} 1"),
        ):
            Path(path).write_text(text)
    _lo_up()


def skip_reason() -> str | None:
    """Why Ray tests cannot run here (None: they can): Ray missing, or no loopback-only namespace."""
    if importlib.util.find_spec("ray") is None:  # find_spec does not import Ray (an import costs a second)
        return "Ray is not installed (pip install -e '.[cluster]')"
    pid = os.fork()
    if pid == 0:
        try:
            netns_preexec()
            os._exit(0)
        except OSError as exc:
            os._exit(exc.errno or 255)
        except BaseException:  # noqa: BLE001 - a forked child must exit on any error, never unwind into pytest
            os._exit(255)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code == 0:
        return None
    why = os.strerror(code) if code != 255 else "unexpected error"
    return (
        f"cannot create a loopback-only network namespace ({why}): Ray tests need root, CAP_SYS_ADMIN or "
        "unprivileged user namespaces"
    )


def run_in_netns(
    args: Sequence[str], cwd: Path, timeout: float = 600, module: str = "pytest"
) -> subprocess.CompletedProcess[str]:
    """``python -m MODULE ARGS`` (pytest; ``pcg_plugin``: the ``pcg`` command) in ``cwd``, inside its own
    loopback-only namespace, Ray's statistics off."""
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        env=env,
        preexec_fn=netns_preexec,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# ---------------------------------------------------------------------------------- two hosts on one machine

RUN_HOST, OTHER_HOST = "10.77.0.1", "10.77.0.2"


@dataclass
class TwoHosts:
    """Two network namespaces joined by a veth pair: ``run`` (10.77.0.1, where the tests start Ray) and ``other``
    (10.77.0.2, another host on the same network). Each has lo up; each routes everything through the pair, so
    Ray on ``run`` takes 10.77.0.1 as its own address, as it takes a real interface's on a machine with a network;
    nothing is connected beyond the pair."""

    run: str
    other: str

    def cmd(self, host: str, args: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", host, *args]

    def python(
        self, host: str, code: str, *argv: str, env: Mapping[str, str] | None = None, timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        """``python -c code ARGV...`` on ``host``; with ``env``, exactly that environment (a stranger shares nothing
        with the run), else this process's."""
        bare = ["env", "-i", *(f"{k}={v}" for k, v in env.items())] if env is not None else []
        return subprocess.run(
            self.cmd(host, [*bare, sys.executable, "-c", code, *argv]),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def listening(self, host: str) -> list[tuple[str, int, str]]:
        """``ss -ltnp`` on ``host``: (local address, port, process) of every TCP listener."""
        out = subprocess.run(self.cmd(host, ["ss", "-Hltnp"]), capture_output=True, text=True, check=True).stdout
        found = []
        for line in out.splitlines():
            fields = line.split()
            addr, _, port = fields[3].rpartition(":")
            found.append((addr.strip("[]").removeprefix("::ffff:"), int(port), fields[-1] if len(fields) > 5 else ""))
        return found


def two_hosts_reason() -> str | None:
    """Why two hosts cannot be made here (None: they can): root and iproute2's ``ip`` and ``ss`` are needed."""
    if os.geteuid() != 0:
        return "two network namespaces joined by a veth pair need root (ip netns add)"
    missing = [tool for tool in ("ip", "ss") if shutil.which(tool) is None]
    if missing:
        return f"iproute2's {' and '.join(missing)} not found: two hosts cannot be made"
    return None


@contextlib.contextmanager
def two_hosts() -> Iterator[TwoHosts]:
    """Make the pair, give it to the test, and remove both namespaces (and the pair with them) afterwards. The
    processes a test starts in them are its own to end before it returns."""
    tag = f"pcg{os.getpid() % 100000}"
    hosts = TwoHosts(f"{tag}-run", f"{tag}-other")
    steps = [
        ["ip", "netns", "add", hosts.run],
        ["ip", "netns", "add", hosts.other],
        [
            "ip",
            "link",
            "add",
            f"{tag}r",
            "netns",
            hosts.run,
            "type",
            "veth",
            "peer",
            "name",
            f"{tag}o",
            "netns",
            hosts.other,
        ],
    ]
    for host, dev, addr, peer in (
        (hosts.run, f"{tag}r", RUN_HOST, OTHER_HOST),
        (hosts.other, f"{tag}o", OTHER_HOST, RUN_HOST),
    ):
        steps += [
            ["ip", "-n", host, "link", "set", "lo", "up"],
            ["ip", "-n", host, "addr", "add", f"{addr}/24", "dev", dev],
            ["ip", "-n", host, "link", "set", dev, "up"],
            ["ip", "-n", host, "route", "add", "default", "via", peer],
        ]
    try:
        for step in steps:
            subprocess.run(step, check=True, capture_output=True, text=True)
        yield hosts
    finally:
        for host in (hosts.run, hosts.other):
            subprocess.run(["ip", "netns", "del", host], capture_output=True, check=False)


# -------------------------------------------------- what runs on them (tests, scripts/figures/cluster_strangers.py)

# The scripted double, counting each request, then waiting for the test's "go" before it answers.
GATED = """
import time
from pathlib import Path
import scripted_llm

def respond(messages, n=1):
    here = Path(__file__).parent
    with open(here / "requests.log", "a") as log:
        log.write("x\\n")
    deadline = time.monotonic() + 240
    while not (here / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return scripted_llm.respond(messages, n)
"""

# What a stranger runs: join the cluster at argv[1] and run a task on it.
STRANGER = """
import sys, ray
ray.init(address=sys.argv[1], log_to_driver=False)
print("STRANGER RAN A TASK", ray.get(ray.remote(num_cpus=0)(lambda: 6 * 7).remote()))  # no CPU: the run holds them all
"""

# A stranger on another host: a TCP connection to each port the run listens on, at the run host's address.
KNOCK = """
import socket, sys
for port in map(int, sys.argv[2:]):
    try:
        socket.create_connection((sys.argv[1], port), timeout=5).close()
        print("OPEN", port)
    except OSError as exc:
        print("CLOSED", port, type(exc).__name__)
"""

# An open cluster, as main started local:N before token authentication: a head and one node of two CPUs.
OPEN_CLUSTER = """
import os, sys
os.environ["RAY_AUTH_MODE"] = "disabled"
from ray.cluster_utils import Cluster
cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
cluster.add_node(num_cpus=2)
cluster.wait_for_nodes()
print(cluster.address, flush=True)
sys.stdin.read()
cluster.shutdown()
"""


def bare_env(tmp: Path, **more: str) -> dict[str, str]:
    """A stranger's environment: nothing of the run's, a home of its own."""
    home = tmp / "stranger-home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", "RAY_USAGE_STATS_ENABLED": "0", **more}


def stranger(
    hosts: TwoHosts, host: str, address: str, env: dict[str, str], timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """``STRANGER`` on ``host`` with exactly ``env``; one that has not connected after ``timeout`` seconds (Ray
    retries a refused connection without end) gives exit code None and a line saying so."""
    try:
        return hosts.python(host, STRANGER, address, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess([], None, "", f"not connected after {timeout:.0f} s (Ray kept retrying)")  # type: ignore[arg-type]
