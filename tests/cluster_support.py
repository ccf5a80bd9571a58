"""Starting Ray in a test without letting anything leave the machine: a child process in its own network
namespace holding nothing but loopback (``unshare(CLONE_NEWNET)``, plus ``CLONE_NEWUSER`` when not root, then lo
brought up by ioctl: no ``unshare`` or ``ip`` binary needed). Ray binds every interface it sees and asks a public
resolver for its own address; inside, it sees only lo and the lookup fails at once. Tests stop only what they
started: the plugin's ``Cluster.shutdown()``, never ``ray stop``."""

from __future__ import annotations

import ctypes
import fcntl
import importlib.util
import os
import socket
import struct
import subprocess
import sys
from collections.abc import Sequence
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
        for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"0 {uid} 1"),
                           ("/proc/self/gid_map", f"0 {gid} 1")):  # fmt: skip
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
        except BaseException:  # noqa: BLE001
            os._exit(255)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code == 0:
        return None
    why = os.strerror(code) if code != 255 else "unexpected error"
    return (f"cannot create a loopback-only network namespace ({why}): Ray tests need root, CAP_SYS_ADMIN or "
            "unprivileged user namespaces")  # fmt: skip


def run_in_netns(args: Sequence[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``python -m pytest ARGS`` in ``cwd``, inside its own loopback-only namespace, Ray's statistics off."""
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd, env=env, preexec_fn=netns_preexec,
                          capture_output=True, text=True, timeout=timeout, check=False)  # fmt: skip
