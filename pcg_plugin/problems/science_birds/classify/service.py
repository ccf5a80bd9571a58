"""The classification service's lifecycle and client: one model per device served to every xdist worker.

The service (``server``) is a child process holding the only copy of the classifier. This module starts it,
finds it, and talks to it. Workers connect over a local socket (stdlib ``multiprocessing.connection`` with an
authkey: Unix socket, abstract namespace on Linux), send images and wait; a batcher thread groups requests from
all workers into one forward pass (up to ``max_batch`` images or ``max_wait_ms``, whichever first, and at once
when every connected worker is already waiting). The service reads its stdin, a pipe from the process that
started it: when that process exits or dies the pipe closes and the service exits too, so no orphan survives a
crash.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.trial_dirs import pid_alive
from pcg_plugin.errors import InfrastructureError
from pcg_plugin.problems.science_birds.classify.base import Classification
from pcg_plugin.problems.science_birds.classify.local import Dtype
from pcg_plugin.problems.science_birds.classify.wire import TCP, ServiceInfo, client_address, to_wire

ENV_VAR = "PCG_CLASSIFY_SERVICE"  # JSON ServiceInfo, inherited by xdist workers
INFO_FILE = ".pcg-classify-service.json"
LOCK_FILE = ".pcg-classify-service.lock"
SERVER_MODULE = (
    "pcg_plugin.problems.science_birds.classify.server"  # run as ``python -m``: a fresh process, not an import
)
DEFAULT_MAX_BATCH = 256
DEFAULT_MAX_WAIT_MS = 5.0


# -------------------------------------------------------------------------------------------- lifecycle


@dataclass
class ServiceHandle:
    """The starting process's handle: ``stop()`` closes the service's stdin pipe and waits for it to go."""

    info: ServiceInfo
    process: subprocess.Popen[bytes]
    run_dir: Path | None = None

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 10.0) -> None:
        """Idempotent; escalates to terminate, then kill, so the service is always gone afterwards."""
        if self.run_dir is not None:
            _remove_info(self.run_dir, self.info)
        if os.environ.get(ENV_VAR) == self.info.to_env():
            del os.environ[ENV_VAR]
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                if self.process.stdin:
                    self.process.stdin.close()
            for action in (None, self.process.terminate, self.process.kill):
                if action is not None:
                    with contextlib.suppress(OSError):
                        action()
                try:
                    self.process.wait(timeout)
                    break
                except subprocess.TimeoutExpired:
                    continue
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if stream:
                    stream.close()

    def __enter__(self) -> ServiceHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_service(
    *,
    model: str | Path | None,
    device: str = "auto",
    dtype: Dtype = "fp32",
    run_dir: Path | None = None,
    max_batch: int = DEFAULT_MAX_BATCH,
    max_wait_ms: float = DEFAULT_MAX_WAIT_MS,
    threads: int | None = None,
    concurrency: int | None = None,
    preresize: bool = True,
    loader: str | None = None,
    startup_timeout: float = 600.0,
    export_env: bool = True,
    listen: str | None = None,
) -> ServiceHandle:
    """Start the service and wait until its model is loaded; the caller owns it (``stop()`` it at session end).

    Sets ``$PCG_CLASSIFY_SERVICE`` (xdist workers inherit it) unless ``export_env`` is false, and writes the
    same JSON to ``run_dir/.pcg-classify-service.json`` (0600) when ``run_dir`` is given. Service logs go to
    ``run_dir/classify-service.log`` (else stderr). ``concurrency`` batcher threads (default 1 on CPU, 4 on
    GPU); ``preresize`` lets workers shrink images to the model's input size when a start-up probe shows the
    results are unchanged. ``listen="tcp:HOST"``: a TCP listener on HOST instead of a local socket, for clients on
    other hosts (a cluster's CPU-only nodes, ``pcg_plugin/cluster/services.py``); the authkey still guards it.
    """
    if listen is not None and not listen.startswith(TCP):
        raise ValueError(f"listen={listen!r}: expected tcp:HOST")
    config = {
        "model": None if model is None else str(model),
        "device": device,
        "dtype": dtype,
        "threads": threads,
        "concurrency": concurrency,
        "preresize": preresize,
        "max_batch": max_batch,
        "max_wait_ms": max_wait_ms,
        "loader": loader,
        "socket_dir": str(run_dir) if run_dir is not None else "/tmp",
        "listen": listen,
    }
    with contextlib.ExitStack() as stack:  # the log is the child's: this process closes its copy once started
        log: Any = None
        if run_dir is not None:
            run_dir.mkdir(parents=True, exist_ok=True)
            log = stack.enter_context(open(run_dir / "classify-service.log", "ab"))
        proc = subprocess.Popen(
            [sys.executable, "-m", SERVER_MODULE, "--serve", json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            close_fds=True,
        )
    line = _read_line(proc, startup_timeout)
    try:
        data = json.loads(line) if line else {}
    except json.JSONDecodeError:
        data = {"error": f"unexpected output {line[:200]!r}"}
    if "error" in data or not data:
        proc.kill()
        proc.wait()
        why = data.get("error") or f"exited with status {proc.returncode} before it was ready"
        where = f" (log: {run_dir / 'classify-service.log'})" if run_dir is not None else ""
        raise InfrastructureError(f"classification service failed to start: {why}{where}")
    handle = ServiceHandle(ServiceInfo.from_dict(data), proc, run_dir)
    atexit.register(handle.stop)
    if export_env:
        os.environ[ENV_VAR] = handle.info.to_env()
    if run_dir is not None:
        _write_info(run_dir, handle.info)
    return handle


def _read_line(proc: subprocess.Popen[bytes], timeout: float) -> str:
    """One stdout line within ``timeout`` (the model load), or '' if the child died or hung."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    buf = b""
    fd = proc.stdout.fileno()
    while not buf.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return ""
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk
    return buf.decode(errors="replace").strip()


def _write_info(run_dir: Path, info: ServiceInfo) -> None:
    atomic_write(run_dir / INFO_FILE, info.to_env(), mode=0o600)


def _read_info(run_dir: Path) -> ServiceInfo | None:
    try:
        return ServiceInfo.from_env((run_dir / INFO_FILE).read_text())
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remove_info(run_dir: Path, info: ServiceInfo) -> None:
    if _read_info(run_dir) == info:
        with contextlib.suppress(OSError):
            (run_dir / INFO_FILE).unlink()


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


_OWNED: list[ServiceHandle] = []  # services this process started lazily (stopped at exit via atexit)


def ensure_service(*, run_dir: Path, **start_kwargs: Any) -> ServiceInfo:
    """The first process that needs the service starts it (under a lock file); the others find it.

    A service started here lives as long as this process: the others reconnect or restart it if it goes.
    """
    with _file_lock(run_dir / LOCK_FILE):
        info = _read_info(run_dir)
        if info is not None and _reachable(info):
            return info
        handle = start_service(run_dir=run_dir, export_env=False, **start_kwargs)
        _OWNED.append(handle)
        return handle.info


def _reachable(info: ServiceInfo) -> bool:
    try:
        with contextlib.closing(_connect(info, timeout=5.0)) as conn:
            conn.send(("ping",))
            return bool(conn.recv()[0] == "ok")
    except Exception:  # noqa: BLE001 - whatever stops a ping (gone, refused, a bad answer) means not reachable
        return False


def _connect(info: ServiceInfo, timeout: float = 30.0) -> Any:
    from multiprocessing.connection import Client

    deadline = time.monotonic() + timeout
    while True:
        try:
            address, family = client_address(info.address)
            return Client(address, family=family, authkey=bytes.fromhex(info.authkey))
        except (ConnectionRefusedError, FileNotFoundError) as exc:  # backlog full, or the service is gone
            gone = family == "AF_UNIX" and not pid_alive(info.pid)  # a TCP service's pid is another host's
            if gone or time.monotonic() > deadline:
                raise InfrastructureError(f"classification service at pid {info.pid} is not reachable: {exc}") from exc
            time.sleep(0.05)


# ------------------------------------------------------------------------------------------------ client


class ServiceClient:
    """A ClassifierLike that forwards to the service: one connection per process, one request at a time."""

    def __init__(self, info: ServiceInfo, *, run_dir: Path | None = None, restart: dict[str, Any] | None = None):
        self.info = info
        self._run_dir = run_dir
        self._restart = restart  # start_service kwargs: set when this process may (re)start the service
        self._conn: Any = None
        self._lock = threading.Lock()

    @property
    def digest(self) -> str:
        return self.info.digest

    @property
    def name(self) -> str:
        return self.info.name

    def _request(self, msg: tuple[Any, ...]) -> Any:
        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._conn is None:
                        self._conn = _connect(self.info)
                    self._conn.send(msg)
                    status, payload = self._conn.recv()
                    break
                except (EOFError, OSError, InfrastructureError) as exc:
                    self.close_connection()
                    if attempt == 2 or not self._recover():
                        raise InfrastructureError(
                            f"classification service (pid {self.info.pid}) went away: {exc or type(exc).__name__}"
                        ) from exc
        if status != "ok":
            raise InfrastructureError(str(payload))
        return payload

    def _recover(self) -> bool:
        """After a lost connection: find (or, if allowed, start) a live service to retry once against."""
        if self._run_dir is None:
            return False
        if self._restart is not None:
            self.info = ensure_service(run_dir=self._run_dir, **self._restart)
            return True
        info = _read_info(self._run_dir)
        if info is not None and info != self.info and _reachable(info):
            self.info = info
            return True
        return False

    def classify(self, images: Sequence[Any]) -> list[Any]:
        if not images:
            return []
        payload = self._request(("classify", [to_wire(im, self.info.resize) for im in images]))
        return [Classification(tuple(p), tuple(e)) for p, e in payload]

    def stats(self) -> dict[str, Any]:
        """The service's counters: images, batches, busy seconds (for the benchmark and workeroutput)."""
        return dict(self._request(("stats",)))

    def close_connection(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.close()
            self._conn = None


def connect(info: ServiceInfo | dict[str, Any] | str) -> ServiceClient:
    """A client for a running service, from a ServiceInfo, its dict (workerinput) or its JSON (env var)."""
    if isinstance(info, str):
        info = ServiceInfo.from_env(info)
    elif isinstance(info, dict):
        info = ServiceInfo.from_dict(info)
    return ServiceClient(info)
