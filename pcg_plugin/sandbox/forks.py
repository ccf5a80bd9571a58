"""The fork server: one sandbox process per harness process (and network mode), from which each trial is forked.

Starting a fresh sandboxed interpreter per trial costs about 50 ms (the interpreter and its ``site``, the
harness's own imports, the namespaces) plus the fork of a large harness process; a replayed competition spent
most of its time there. The fork server is started once, in the same namespaces and with the same scrubbed
environment, and has imported only the harness (never participant code). For each trial the harness sends it
the trial's facts and four file descriptors (the two chat pipes, stdout, stderr) over a Unix socket; it forks a
child that applies the trial's limits, moves into the trial's scratch folder and runs exactly what a fresh
interpreter would run (``sandbox_child.run_trial``: the program imported anew, the audit hook installed), then
reports the child's exit status and kills whatever the child left behind. Each trial thus starts from the same
state as before (fresh import, fresh copy of the folder, its own CPU-time account), only faster.

The protocol (both halves are here): harness -> server, one datagram per trial: the JSON command with the fds
attached; server -> harness, ``{"op": "started"}`` once it forked the child (or ``{"op": "failed", "error": ...}``
when it could not: the harness then runs the trial in a new interpreter), and ``{"op": "exited", "code": N}``
when the child is gone (N as ``Popen.returncode``: negative for a signal). The child closes its copy of the
socket before any program code.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

MAX_COMMAND = 1 << 20
START_TIMEOUT_S = 10.0  # a fork takes a millisecond; a server that does not answer in this long is replaced


# --- inside the sandbox --------------------------------------------------------------------------------------


def serve(sock_fd: int, *, pid_namespace: bool) -> int:
    """The server's loop: fork a child per command, wait for it, clear up after it, report its exit status."""
    importlib.import_module("pcg_plugin.sandbox.child")  # loaded once here, so every forked child starts with it
    sock = socket.socket(fileno=sock_fd)
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(sock, MAX_COMMAND, 4)
        except OSError:
            return 0
        if not data:  # the harness went away
            return 0
        try:
            pid = os.fork()
        except OSError as exc:  # out of processes or memory: the harness's failure, not the program's
            for fd in fds:
                os.close(fd)
            sock.send(json.dumps({"op": "failed", "error": f"fork: {exc}"}).encode())
            continue
        if pid == 0:  # pragma: no cover - runs in the forked child, which always ends in os._exit
            code = 70
            try:
                sock.close()
                _child(json.loads(data), fds)
                code = 0
            except BaseException:  # noqa: BLE001 - a failure before the program ran: say it on its stderr
                import traceback

                traceback.print_exc()
            finally:
                _flush()
                os._exit(code)
        sock.send(b'{"op": "started"}')
        for fd in fds:
            os.close(fd)
        _pid, status = os.waitpid(pid, 0)
        _end_leftovers(pid, pid_namespace)
        sock.send(json.dumps({"op": "exited", "code": os.waitstatus_to_exitcode(status)}).encode())


def _child(command: dict[str, Any], fds: list[int]) -> None:
    """One trial in the forked child: its own session, files, limits, folder and environment, then the program."""
    from pcg_plugin.sandbox.child import Channel, run_trial

    data_r, data_w, out, err = fds
    os.setsid()  # its own process group: the server kills the group after the trial
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.close(out)
    os.close(err)
    os.chdir(command["cwd"])
    os.environ.update(HOME=command["home"], TMPDIR=command["tmp"])
    if "tempfile" in sys.modules:  # loaded already (else nothing to reset, and no need to load it)
        import tempfile

        tempfile.tempdir = None  # computed again from TMPDIR
    import resource

    for which, soft, hard in command["rlimits"]:
        resource.setrlimit(which, (soft, hard))
    run_trial(command, Channel(data_r, data_w))


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - in the program's process after its code ran: builtins only, no contextlib
            stream.flush()
        except (OSError, ValueError):
            pass


def _end_leftovers(pid: int, pid_namespace: bool) -> None:
    """Kill what the trial left running: its process group, and in a PID namespace every process but the
    namespace's init and this server (a native fork that called setsid() leaves the group, not the namespace)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if pid_namespace:
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) not in (1, os.getpid()):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(name), signal.SIGKILL)
    while True:  # reap any of ours (none unless the child's own children were re-parented here)
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break


# --- in the harness --------------------------------------------------------------------------------------------


class ForkServer:
    """The harness's handle on one fork server: start it, hand it trials, read exit statuses, stop it."""

    def __init__(self, argv: list[str], env: dict[str, str], pid_namespace: bool) -> None:
        """``argv`` starts this module in the sandbox's namespaces; the socket's fd number (and whether it is PID 2 of
        a PID namespace of its own) go after it."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        cmd = [*argv, str(theirs.fileno()), *(["--pid-namespace"] if pid_namespace else [])]
        try:
            self.proc = subprocess.Popen(
                cmd,
                cwd="/",
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
        finally:
            theirs.close()
        self.sock = ours
        self.lock = threading.Lock()
        self.pending = False  # a trial was sent and its exit status not read yet
        self.ended = False  # its socket was closed: it is gone, whatever poll() says yet

    def start(self, command: dict[str, Any], fds: list[int]) -> bool:
        """Hand over one trial: the command and the child's ends of its pipes and files; True once the server says
        it forked the trial (the caller then closes its own copies), False when it could not or is gone (the
        caller still holds everything needed to run the trial another way)."""
        try:
            socket.send_fds(self.sock, [json.dumps(command).encode()], fds)
            if not select.select([self.sock], [], [], START_TIMEOUT_S)[0]:
                return False
            data = self.sock.recv(4096)
        except OSError:
            return False
        self.pending = data == b'{"op": "started"}'
        return self.pending

    def exit_code(self, timeout: float) -> int | None:
        """The trial child's exit status (as ``Popen.returncode``), or None when it is not reported in time;
        InfrastructureError when the server ended during the trial (who ended it cannot be told)."""
        from pcg_plugin.errors import InfrastructureError

        if not self.pending:
            return None
        if not select.select([self.sock], [], [], timeout)[0]:
            return None
        try:
            data = self.sock.recv(4096)
        except OSError:
            data = b""
        self.pending = False
        if not data:
            self.ended = True
            raise InfrastructureError(f"the sandbox's fork server ended during the trial (status {self.proc.poll()})")
        return int(json.loads(data)["code"])

    def release(self, settled: bool) -> None:
        """After a trial: when the program ended by itself (``settled``), its exit is read and the server kept;
        otherwise (out of time, a violation, garbage on the pipe), or when no exit is reported, it is stopped."""
        from pcg_plugin.errors import InfrastructureError

        try:
            if settled and (not self.pending or self.exit_code(5) is not None):
                return
        except InfrastructureError:
            pass  # the trial's own outcome stands; the next trial gets a new server
        self.stop()

    @property
    def usable(self) -> bool:
        return not self.pending and not self.ended and self.proc.poll() is None

    def stop(self) -> None:
        """Kill the server, the trial child and anything else in its process group or namespace."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.sock.close()


_SERVERS: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], list[ForkServer]] = {}
_GUARD = threading.Lock()


def pool_size() -> int:
    """How many fork servers one process keeps for one sandbox: one per CPU slot (``core.inflight``). A server runs
    one trial child at a time (in a PID namespace it ends every process there but itself after a trial) and is
    held while its program waits on the model, so with many trials in flight most children start as a new
    interpreter: a server for each would cost as much to start, and its memory for as long as the trial lasts."""
    from pcg_plugin.core.inflight.slots import installed

    slots = installed()
    return slots.count if slots is not None else 1


@contextmanager
def lease(argv: list[str], env: dict[str, str], *, pid_namespace: bool) -> Iterator[ForkServer | None]:
    """An idle fork server of this process started by ``argv`` with ``env`` (started on first use, and again after
    one that had to be stopped; up to ``pool_size`` at once), or None while as many are busy in other threads of
    this process (the caller then starts a fresh interpreter, as it does where no fork server can be started). The
    caller leaves the server usable or calls ``stop``."""
    key = (tuple(argv), tuple(sorted(env.items())))
    server = None
    with _GUARD:
        pool = _SERVERS.setdefault(key, [])
        for candidate in list(pool):
            if not candidate.lock.acquire(blocking=False):
                continue  # busy in another thread
            if candidate.usable:
                server = candidate
                break
            candidate.stop()  # ended since its last trial: its place is free
            pool.remove(candidate)
            candidate.lock.release()
        if server is None and len(pool) < pool_size():
            try:
                server = ForkServer(argv, env, pid_namespace)
            except OSError:  # no SOCK_SEQPACKET Unix sockets here (not Linux): a new interpreter per trial
                server = None
            else:
                server.lock.acquire()
                pool.append(server)
    if server is None:
        yield None
        return
    try:
        yield server
    finally:
        server.lock.release()


@atexit.register
def stop_all() -> None:
    """Stop every fork server of this process (its children would also end when this process's socket closes)."""
    with _GUARD:
        for pool in _SERVERS.values():
            for server in pool:
                server.stop()
        _SERVERS.clear()


if __name__ == "__main__":
    sys.exit(serve(int(sys.argv[1]), pid_namespace=sys.argv[2:3] == ["--pid-namespace"]))
