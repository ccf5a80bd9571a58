"""The fork server: one sandbox process per harness process (and network mode), from which each trial is forked.

Starting a fresh sandboxed interpreter per trial costs about 50 ms (the interpreter and its ``site``, the
harness's own imports, the namespaces) plus the fork of a large harness process; a replayed competition spent
most of its time there, and with many trials in flight (``core.session.inflight``) every trial beyond the first waited
that long for a new interpreter while holding its CPU slot. The fork server is started once, in the same
namespaces and with the same scrubbed environment, and has imported only the harness (never participant code).
For each trial the harness sends it the trial's facts and four file descriptors (the two chat pipes, stdout,
stderr) over a Unix socket; it forks the trial, which applies the trial's limits, moves into the trial's scratch
folder and runs exactly what a fresh interpreter would run (``sandbox_child.run_trial``: the program imported
anew, the audit hook installed), then reports the trial's exit status. Each trial thus starts from the same state
as before (fresh import, fresh copy of the folder, its own CPU-time account), only faster.

One trial at a time, or many side by side. With one trial in flight per process (``core.session.inflight``) the server
runs one trial at a time: it forks the trial, waits for it, kills its process group and, in a PID namespace
(``unshare -rnpf``), every other process of the namespace but itself. With trials in flight (``--side-by-side``)
it runs every trial it is sent at once, each in namespaces of its own where there is a PID namespace
(``_isolated``: new PID, mount and network namespaces; the trial's init is PID 1 there, with a ``/proc`` that
shows only the trial's processes, and runs the program as PID 2; when the program ends, that init ends and the
kernel kills whatever the program left, even a native ``fork()`` + ``setsid()``, without touching another trial),
so a trial cannot see, signal or reach another trial or the server. That costs two more forks a trial (about 4 ms
here), which only trials in flight repay. Without a PID namespace (``unshare -rn`` or none), or where a nested one
cannot be made, each trial is its own session, killed as a group when it ends (a native ``fork()`` + ``setsid()``
could then outlive it, as ``docs/sandbox.md`` says).

The protocol (both halves are here): server -> harness first ``{"op": "ready", "isolated": bool}``; harness ->
server, one datagram per trial: the JSON command with ``"op": "start"``, its ``"id"`` and the fds attached, or
``{"op": "kill", "id": N}`` to end a trial at once; server -> harness ``{"op": "started", "id": N}`` once it forked
the trial (or ``{"op": "failed", ...}`` when it could not: the harness then runs the trial in a new interpreter),
and ``{"op": "exited", "id": N, "code": C}`` when the trial is gone (C as ``Popen.returncode``: negative for a
signal). The trial closes every descriptor of the server's before any program code.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import itertools
import json
import os
import queue
import selectors
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

MAX_COMMAND = 1 << 20
START_TIMEOUT_S = 10.0  # a fork takes a millisecond; a server that does not answer in this long is replaced
CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
PR_SET_CHILD_SUBREAPER = 36


# --- inside the sandbox --------------------------------------------------------------------------------------


def _libc_call(name: str, *args: Any) -> None:
    """A libc call that raises OSError on failure (``unshare``, ``mount``, ``prctl``: not in ``os`` on 3.11)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if getattr(libc, name)(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")


def _new_namespaces() -> None:
    """In a trial's first process: new PID, mount and network namespaces for its children."""
    _libc_call("unshare", CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET)


def _own_proc() -> None:
    """In a new PID namespace's init: a ``/proc`` of that namespace, private to the trial's mount namespace."""
    _libc_call("mount", b"none", b"/", None, MS_REC | MS_PRIVATE, None)
    _libc_call("mount", b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)


def _can_isolate() -> bool:
    """Whether trials can have namespaces of their own here (tried once, in a throwaway child)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - a throwaway child, always ends in os._exit
        code = 1
        try:
            _new_namespaces()
            init = os.fork()
            if init == 0:
                mounted = False
                try:
                    _own_proc()
                    mounted = os.getpid() == 1 and sorted(p for p in os.listdir("/proc") if p.isdigit()) == ["1"]
                finally:
                    os._exit(0 if mounted else 1)
            code = os.waitstatus_to_exitcode(os.waitpid(init, 0)[1])
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


class _Running:
    """A trial the server forked: its first process, and the pipe its init reports the program's status on."""

    def __init__(self, ident: int, pid: int, status_fd: int | None) -> None:
        self.id, self.pid, self.status_fd = ident, pid, status_fd


def serve(sock_fd: int, *, pid_namespace: bool, side_by_side: bool) -> int:
    """The server's loop: fork each trial it is sent, report when each has gone, end one when told; with
    ``side_by_side`` any number at once, else one (a second is refused: ``failed``)."""
    importlib.import_module("pcg_plugin.sandbox.child")  # loaded once here, so every forked child starts with it
    sock = socket.socket(fileno=sock_fd)
    isolate = side_by_side and pid_namespace and _can_isolate()
    if isolate:  # a trial's init whose first process was killed comes back here to be reaped
        with contextlib.suppress(OSError):
            _libc_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # only to wake the loop (the wakeup fd)
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)
    running: dict[int, _Running] = {}  # by the trial's first process's pid
    own_fds = [sock.fileno(), wake_r, wake_w, sel.fileno()]  # none of them reaches a trial
    sock.send(json.dumps({"op": "ready", "isolated": isolate}).encode())
    while True:
        for key, _ in sel.select():
            if key.fd == wake_r:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 4096)
                for trial, status in _reaped(running):
                    _finished(sock, trial, status, sweep=pid_namespace and not side_by_side)
                continue
            try:
                data, fds, _flags, _addr = socket.recv_fds(sock, MAX_COMMAND, 4)
            except OSError:
                return 0
            if not data:  # the harness went away
                return 0
            command = json.loads(data)
            if command.get("op") == "kill":
                for trial in running.values():
                    if trial.id == command.get("id"):
                        for kill in (os.killpg, os.kill):  # its group (killpg: not yet one if it just started)
                            with contextlib.suppress(ProcessLookupError, PermissionError):
                                kill(trial.pid, signal.SIGKILL)
                continue
            if running and not side_by_side:  # the harness sends one at a time: never forked beside another
                for fd in fds:
                    os.close(fd)
                sock.send(json.dumps({"op": "failed", "id": command.get("id"), "error": "busy"}).encode())
                continue
            others = own_fds + [t.status_fd for t in running.values() if t.status_fd is not None]
            started = _fork(sock, command, fds, others, isolate)
            if started is not None:
                running[started.pid] = started


def _fork(
    sock: socket.socket, command: dict[str, Any], fds: list[int], others: list[int], isolate: bool
) -> _Running | None:
    """Fork one trial (in namespaces of its own when ``isolate``); tell the harness it started, or why not."""
    status_r, status_w = os.pipe() if isolate else (None, None)
    try:
        pid = os.fork()
    except OSError as exc:  # out of processes or memory: the harness's failure, not the program's
        for fd in [*fds, *(f for f in (status_r, status_w) if f is not None)]:
            os.close(fd)
        sock.send(json.dumps({"op": "failed", "id": command.get("id"), "error": f"fork: {exc}"}).encode())
        return None
    if pid == 0:  # pragma: no cover - runs in the forked trial

        def trial() -> int:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for fd in [*others, *(f for f in (status_r,) if f is not None)]:
                os.close(fd)
            if status_w is None:
                _child(command, fds)
                return 0
            return _isolated(command, fds, status_w)

        _exit_after(trial)
    if isolate:  # its own group at once (it does the same), so a "kill" sent right away finds it
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
    sock.send(json.dumps({"op": "started", "id": command.get("id")}).encode())
    for fd in [*fds, *(f for f in (status_w,) if f is not None)]:
        os.close(fd)
    return _Running(int(command.get("id") or 0), pid, status_r)


def _isolated(command: dict[str, Any], fds: list[int], status_w: int) -> int:  # pragma: no cover - forked trial
    """The trial's first process: its own group, new namespaces, and an init (PID 1 there) that runs the program
    as PID 2, reaps whatever the program leaves, and writes the program's wait status on ``status_w`` before it
    ends (and with it everything else in the namespace)."""
    os.setpgid(0, 0)  # the server's "kill" ends this group: this process and the init
    _new_namespaces()

    def program() -> int:
        os.close(status_w)
        _child(command, fds)
        return 0

    def init() -> int:
        _own_proc()
        pid = os.fork()
        if pid == 0:
            _exit_after(program)
        for fd in fds:
            os.close(fd)
        while True:
            reaped, status = os.waitpid(-1, 0)
            if reaped == pid:
                os.write(status_w, status.to_bytes(4, "little"))
                return 0

    first = os.fork()
    if first == 0:
        _exit_after(init)
    for fd in [*fds, status_w]:
        os.close(fd)
    return os.waitstatus_to_exitcode(os.waitpid(first, 0)[1]) & 0xFF


def _reaped(running: dict[int, _Running]) -> list[tuple[_Running, int]]:
    """The trials that ended since the last look, with their wait status (any other child is reaped and dropped:
    an init whose first process was killed)."""
    out = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        trial = running.pop(pid, None)
        if trial is not None:
            out.append((trial, status))
    return out


def _finished(sock: socket.socket, trial: _Running, status: int, *, sweep: bool) -> None:
    """Report a trial that has gone: the program's own status where its init wrote one, else its first
    process's; then clear up after it."""
    if trial.status_fd is not None:
        with contextlib.suppress(OSError):
            raw = os.read(trial.status_fd, 4)
            if len(raw) == 4:
                status = int.from_bytes(raw, "little")
        os.close(trial.status_fd)
    _end_leftovers(trial.pid, sweep)
    with contextlib.suppress(OSError):
        sock.send(json.dumps({"op": "exited", "id": trial.id, "code": os.waitstatus_to_exitcode(status)}).encode())


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


def _exit_after(body: Callable[[], int]) -> NoReturn:  # pragma: no cover - ends a forked process
    """Run ``body`` in a forked process, then end the process with its code (70 and the traceback on its stderr
    when it raised: a failure before the program ran, or the init's own); never returns into the server's code."""
    code = 70
    try:
        code = body()
    except BaseException:  # noqa: BLE001 - every failure is said on the trial's stderr
        import traceback

        traceback.print_exc()
    finally:
        _flush()
        os._exit(code)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - in the program's process after its code ran: builtins only, no contextlib
            stream.flush()
        except (OSError, ValueError):
            pass


def _end_leftovers(pid: int, sweep: bool) -> None:
    """Kill what the trial left running: its process group, and with ``sweep`` (one trial at a time in a PID
    namespace) every process but the namespace's init and this server (a native fork that called setsid() leaves
    the group, not the namespace). A trial in namespaces of its own left nothing: they ended with its init."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if sweep:
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) not in (1, os.getpid()):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(name), signal.SIGKILL)


# --- in the harness --------------------------------------------------------------------------------------------


class ForkServer:
    """The harness's handle on one fork server: start it, hand it trials (from any thread), stop it. A reader
    thread takes the server's messages and hands each to the trial it names."""

    def __init__(self, argv: list[str], env: dict[str, str], pid_namespace: bool, side_by_side: bool) -> None:
        """``argv`` starts this module in the sandbox's namespaces; the socket's fd number (and whether it is PID 2 of
        a PID namespace of its own) go after it."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        flags = [name for name, on in (("--pid-namespace", pid_namespace), ("--side-by-side", side_by_side)) if on]
        cmd = [*argv, str(theirs.fileno()), *flags]
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
        self.busy = threading.Lock()  # one trial at a time: held by that trial
        self.isolated: bool | None = None  # said by the server once it is ready: trials in namespaces of their own
        self.ended = False  # its socket was closed: it is gone, whatever poll() says yet
        self._ready = threading.Event()
        self._ids = itertools.count(1)
        self._boxes: dict[int, queue.SimpleQueue[dict[str, Any] | None]] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._read, name="pcg-fork-server", daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = self.sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                self.ended = True
                self._ready.set()
                with self._lock:
                    for box in self._boxes.values():
                        box.put(None)
                return
            message = json.loads(data)
            if message.get("op") == "ready":
                self.isolated = bool(message.get("isolated"))
                self._ready.set()
                continue
            with self._lock:
                found = self._boxes.get(message.get("id"))
            if found is not None:
                found.put(message)

    def ready(self, timeout: float = START_TIMEOUT_S) -> bool:
        """Whether the server started and said how it runs trials (within ``timeout``)."""
        return self._ready.wait(timeout) and not self.ended and self.isolated is not None

    def _forget(self, ident: int) -> None:
        with self._lock:
            self._boxes.pop(ident, None)

    def start(self, command: dict[str, Any], fds: list[int]) -> ForkedTrial | None:
        """Hand over one trial: the command and the child's ends of its pipes and files; the trial once the server
        says it forked it (the caller then closes its own copies), None when it could not or is gone (the caller
        still holds everything needed to run the trial another way)."""
        ident = next(self._ids)
        box: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        with self._lock:
            self._boxes[ident] = box
        try:
            socket.send_fds(self.sock, [json.dumps({**command, "op": "start", "id": ident}).encode()], fds)
            message = box.get(timeout=START_TIMEOUT_S)
        except (OSError, queue.Empty):
            message = None
        if message is None or message.get("op") != "started":
            self._forget(ident)
            if message is None:
                self.stop()  # silent or gone: whatever it may still start must not run beside the new interpreter
            return None
        return ForkedTrial(self, ident, box)

    def kill(self, ident: int) -> None:
        with contextlib.suppress(OSError):
            self.sock.send(json.dumps({"op": "kill", "id": ident}).encode())

    @property
    def usable(self) -> bool:
        return not self.ended and self.proc.poll() is None

    def stop(self) -> None:
        """Kill the server and, in a PID namespace, every trial it runs (they are in that namespace)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.ended = True
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # ends the reader thread, which tells every waiting trial
        self.sock.close()


class ForkedTrial:
    """One trial running in a fork server: its exit status, and its end."""

    def __init__(self, server: ForkServer, ident: int, box: queue.SimpleQueue[dict[str, Any] | None]) -> None:
        self.server, self.id, self._box = server, ident, box
        self.code: int | None = None

    def exit_code(self, timeout: float) -> int | None:
        """The trial's exit status (as ``Popen.returncode``), or None when it is not reported in time;
        InfrastructureError when the server ended during the trial (who ended it cannot be told)."""
        from pcg_plugin.errors import InfrastructureError

        if self.code is not None:
            return self.code
        try:
            message = self._box.get(timeout=timeout)
        except queue.Empty:
            return None
        self.server._forget(self.id)
        if message is None:
            raise InfrastructureError(
                f"the sandbox's fork server ended during the trial (status {self.server.proc.poll()})"
            )
        self.code = int(message["code"])
        return self.code

    def release(self, settled: bool) -> None:
        """After a trial: when the program ended by itself (``settled``), its exit is read; otherwise (out of time,
        a violation, garbage on the pipe) it is killed, and a server that does not report it gone is stopped."""
        from pcg_plugin.errors import InfrastructureError

        try:
            if settled and self.exit_code(5) is not None:
                return
            self.server.kill(self.id)
            if self.exit_code(5) is not None:
                return
        except InfrastructureError:
            return  # the trial's own outcome stands; the next trial gets a new server
        self.server.stop()


_SERVERS: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...], bool], ForkServer] = {}
_GUARD = threading.Lock()


def side_by_side() -> bool:
    """Whether this process keeps trials in flight (``core.session.inflight``): then its server runs them side by
    side."""
    from pcg_plugin.core.session.inflight.slots import installed

    slots = installed()
    return slots is not None and slots.trials > 1


@contextmanager
def lease(argv: list[str], env: dict[str, str], *, pid_namespace: bool) -> Iterator[ForkServer | None]:
    """This process's fork server started by ``argv`` with ``env`` (started on first use, and again after one that
    ended): shared by every trial in flight, or held by one trial at a time; None where none can be started, or
    while a one-at-a-time server is busy in another thread (the caller then starts a fresh interpreter)."""
    together = side_by_side()
    key = (tuple(argv), tuple(sorted(env.items())), together)
    with _GUARD:
        server = _SERVERS.get(key)
        if server is not None and not server.usable:
            server.stop()
            server = None
        if server is None:
            try:
                server = _SERVERS[key] = ForkServer(argv, env, pid_namespace, together)
            except OSError:  # no SOCK_SEQPACKET Unix sockets here (not Linux): a new interpreter per trial
                server = None
    if server is None or not server.ready():
        yield None
    elif together:
        yield server
    elif not server.busy.acquire(blocking=False):
        yield None
    else:
        try:
            yield server
        finally:
            server.busy.release()


@atexit.register
def stop_all() -> None:
    """Stop every fork server of this process (its children would also end when this process's socket closes)."""
    with _GUARD:
        for server in _SERVERS.values():
            server.stop()
        _SERVERS.clear()


if __name__ == "__main__":
    sys.exit(
        serve(int(sys.argv[1]), pid_namespace="--pid-namespace" in sys.argv, side_by_side="--side-by-side" in sys.argv)
    )
