"""Classification at scale: one model per device served to every xdist worker, or a thread-capped local model.

The service is a child process holding the only copy of the classifier. Workers connect over a local socket
(stdlib ``multiprocessing.connection`` with an authkey: Unix socket, abstract namespace on Linux), send images
and wait; a batcher thread groups requests from all workers into one forward pass (up to ``max_batch`` images
or ``max_wait_ms``, whichever first, and at once when every connected worker is already waiting). The service
reads its stdin, a pipe from the process that started it: when that process exits or dies the pipe closes and
the service exits too, so no orphan survives a crash.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import importlib
import io
import json
import os
import queue
import secrets
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from pcg_plugin.classify_cache import (
    CachedClassifier,
    ClassificationCache,
    ClassifierLike,
    ClassifierWrapper,
    cache_namespace,
    default_cache_dir,
)
from pcg_plugin.errors import InfrastructureError

Mode = Literal["auto", "service", "local"]
Dtype = Literal["fp32", "bf16", "fp16"]

ENV_VAR = "PCG_CLASSIFY_SERVICE"  # JSON ServiceInfo, inherited by xdist workers
INFO_FILE = ".pcg-classify-service.json"
LOCK_FILE = ".pcg-classify-service.lock"
DEFAULT_LOADER = "pcg_plugin.classify:Classifier.load"
DEFAULT_MAX_BATCH = 256
DEFAULT_MAX_WAIT_MS = 5.0
_TORCH_DTYPES = {"bf16": "bfloat16", "fp16": "float16"}
_RAW_MODES = {"1", "L", "LA", "RGB", "RGBA", "I", "F", "I;16"}  # modes whose tobytes() is the whole picture


# ----------------------------------------------------------------------------------------------- policy


def available_cores() -> int:
    """Cores this process may run on (the affinity mask, not the machine: CI containers lie otherwise)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS
        return max(1, os.cpu_count() or 1)


def threads_per_worker(workers: int, cores: int | None = None) -> int:
    """torch intra-op threads per worker so that workers x threads <= cores (at least 1)."""
    cores = available_cores() if cores is None else cores
    return max(1, cores // max(1, workers))


def resolve_device(device: str) -> str:
    """``auto`` picks CUDA, else MPS, else CPU: the official script's order."""
    if device != "auto":
        return device
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def resolve_mode(mode: Mode, device: str) -> Literal["service", "local"]:
    """GPU -> one shared service (one CUDA context, big batches); CPU -> per-worker model, threads capped.

    On CPU the local model measured faster on a 2-core box (README, section scale), so ``auto`` keeps it there.
    """
    if mode not in ("auto", "service", "local"):
        raise ValueError(f"classifier mode must be auto, service or local, not {mode!r}")
    if mode != "auto":
        return mode
    return "local" if resolve_device(device) == "cpu" else "service"


# ------------------------------------------------------------------------------------------- classifiers


def _import_loader(spec: str) -> Any:
    """``module:attr.attr`` -> the callable (lets tests and other models plug a loader in)."""
    module_name, _, attr_path = spec.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr_path.split("."):
        obj = getattr(obj, part)
    return obj


def _make_classification(probs: tuple[float, ...], embedding: tuple[float, ...]) -> Any:
    from pcg_plugin.classify import Classification

    return Classification(probs=tuple(probs), embedding=tuple(embedding))


@dataclass
class _Autocast(ClassifierWrapper):
    """Runs a classifier's forward pass in bf16/fp16 via torch.autocast (softmax stays fp32 where torch says)."""

    inner: ClassifierLike
    device_type: str
    dtype: str

    def classify(self, images: Sequence[Any]) -> list[Any]:
        import torch

        with torch.autocast(self.device_type, dtype=getattr(torch, _TORCH_DTYPES[self.dtype])):
            return self.inner.classify(images)


def load_classifier(
    model: str | Path | None,
    *,
    device: str,
    threads: int | None,
    dtype: Dtype = "fp32",
    loader: str = DEFAULT_LOADER,
) -> ClassifierLike:
    """Load one in-process classifier at the requested precision."""
    if dtype not in ("fp32", "bf16", "fp16"):
        raise ValueError(f"dtype must be fp32, bf16 or fp16, not {dtype!r}")
    clf = _import_loader(loader)(None if model is None else str(model), device=device, threads=threads)
    if dtype == "fp32":
        return clf
    return _Autocast(clf, "cuda" if device.startswith("cuda") else device.split(":")[0], dtype)


_LOCAL: dict[tuple[Any, ...], ClassifierLike] = {}


def _local_classifier(model: str | Path | None, device: str, threads: int, dtype: Dtype, loader: str) -> ClassifierLike:
    """Per-process memo: a worker loads its model once, whatever the number of items."""
    key = (None if model is None else str(model), device, threads, dtype, loader)
    if key not in _LOCAL:
        _LOCAL[key] = load_classifier(model, device=device, threads=threads, dtype=dtype, loader=loader)
    return _LOCAL[key]


# ------------------------------------------------------------------------------------------ wire format


@dataclass(frozen=True)
class ServiceInfo:
    """Everything a worker needs to reach the service; JSON-able for ``workerinput`` and the env var."""

    address: str
    authkey: str  # hex
    pid: int
    digest: str
    name: str
    dtype: str
    device: str
    resize: tuple[int, int, int] | None = None  # (w, h, resample): clients shrink images to this first

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServiceInfo:
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        if fields.get("resize") is not None:
            fields["resize"] = tuple(fields["resize"])
        return cls(**fields)

    def to_env(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_env(cls, text: str) -> ServiceInfo:
        return cls.from_dict(json.loads(text))


_PRERESIZE_MODES = {"RGB", "RGBA", "L"}  # the modes the start-up probe checks


def _to_wire(image: Any, resize: tuple[int, int, int] | None = None) -> tuple[Any, ...]:
    """Raw pixels when they are the whole picture (no encode/decode cost), PNG otherwise (palettes).

    With ``resize`` the worker does the processor's first step itself (RGB, then resize to the model's
    input size): a 1024x1024 RGBA level travels as 150 KB instead of 4 MB and the service's CPU is spared
    the 1024-pixel resize, which otherwise caps a GPU service far below the GPU's rate.
    """
    if resize is not None and image.mode in _PRERESIZE_MODES:
        w, h, resample = resize
        image = image.convert("RGB").resize((w, h), resample)
    if image.mode in _RAW_MODES:
        return ("raw", image.mode, tuple(image.size), image.tobytes())
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)
    return ("png", buf.getvalue())


def _from_wire(item: Any) -> Any:
    from PIL import Image

    kind = item[0]
    if kind == "raw":
        _, mode, size, data = item
        return Image.frombytes(mode, tuple(size), data)
    if kind == "png":
        im = Image.open(io.BytesIO(item[1]))
        im.load()
        return im
    if kind == "path":
        im = Image.open(item[1])
        im.load()
        return im
    raise ValueError(f"unknown image encoding {kind!r}")


def _probe_images() -> list[Any]:
    """Level-like pictures: 1024x1024 RGBA black-on-white (as rendered), a small RGB one, a grey one."""
    from PIL import Image, ImageDraw

    big = Image.new("RGBA", (1024, 1024), (255, 255, 255, 255))
    draw = ImageDraw.Draw(big)
    for k in range(40):
        x, y = 100 + (k * 53) % 760, 100 + (k * 97) % 760
        draw.rectangle((x, y, x + 72 - (k % 3) * 24, y + 24 + (k % 2) * 48), fill=(0, 0, 0, 255))
    small = big.convert("RGB").resize((300, 180), 0)
    grey = big.convert("L").resize((160, 500), 0)
    return [big, small, grey]


def _unwrap(clf: Any) -> Any:
    while hasattr(clf, "inner"):
        clf = clf.inner
    return clf


def preresize_plan(clf: ClassifierLike, device: str) -> tuple[int, int, int] | None:
    """(w, h, resample) if shrinking images in the workers gives the same results as sending them whole.

    Read from the classifier's image processor (``size``, ``resample``), then checked on probe images:
    exactly equal on CPU, within 1e-5 elsewhere (GPU kernels may differ by batch). None means send whole.
    """
    proc = getattr(_unwrap(clf), "processor", None)
    size = getattr(proc, "size", None)
    if proc is None or not getattr(proc, "do_resize", True) or size is None:
        return None
    try:
        w, h = int(size["width"]), int(size["height"])
        resample = int(getattr(proc, "resample", 2))
    except (KeyError, TypeError, ValueError):
        return None
    plan = (w, h, resample)
    probes = _probe_images()
    whole = clf.classify(probes)
    shrunk = clf.classify([_from_wire(_to_wire(im, plan)) for im in probes])
    tol = 0.0 if device == "cpu" else 1e-5
    for a, b in zip(whole, shrunk, strict=True):
        pairs = list(zip(a.probs, b.probs)) + list(zip(a.embedding, b.embedding))
        if any(abs(x - y) > tol for x, y in pairs):
            return None
    return plan


# ------------------------------------------------------------------------------------------------ server


@dataclass
class _Request:
    images: list[Any]
    done: threading.Event = field(default_factory=threading.Event)
    result: list[tuple[tuple[float, ...], tuple[float, ...]]] | None = None
    error: str | None = None


@dataclass
class _Stats:
    requests: int = 0
    images: int = 0
    batches: int = 0
    max_batch_seen: int = 0
    busy_s: float = 0.0
    clients: int = 0
    client_errors: int = 0
    started: float = field(default_factory=time.monotonic)


class _Server:
    """Accepts connections (one thread each) and batches their requests on ``concurrency`` batcher threads.

    More than one batcher overlaps one batch's CPU preprocessing with another's forward pass on the GPU
    (torch and Pillow release the GIL); on CPU one batcher is right, the forward pass already uses every core.
    """

    def __init__(self, classifier: ClassifierLike, max_batch: int, max_wait_ms: float, concurrency: int = 1) -> None:
        self.classifier = classifier
        self.max_batch = max(1, max_batch)
        self.max_wait = max(0.0, max_wait_ms) / 1000.0
        self.concurrency = max(1, concurrency)
        self.pending: queue.Queue[_Request] = queue.Queue()
        self.stop = threading.Event()
        self.stats = _Stats()
        self._lock = threading.Lock()
        self._taken = 0  # requests pulled by a batcher and not yet answered
        self._active = 0  # batches running now
        self._active_since = 0.0

    # connection side
    def handle(self, conn: Any) -> None:
        with self._lock:
            self.stats.clients += 1
        try:
            while not self.stop.is_set():
                try:
                    msg = conn.recv()
                except (EOFError, OSError):
                    return  # the worker exited or crashed: nothing to clean up but this thread
                conn.send(self._answer(msg))
        except (OSError, ValueError):
            with self._lock:
                self.stats.client_errors += 1  # it died while we were answering
        finally:
            with self._lock:
                self.stats.clients -= 1
            with contextlib.suppress(OSError):
                conn.close()

    def _answer(self, msg: Any) -> tuple[str, Any]:
        kind = msg[0] if isinstance(msg, tuple) and msg else None
        if kind == "classify":
            try:
                images = [_from_wire(item) for item in msg[1]]
            except Exception as exc:  # noqa: BLE001 - a bad image must not take the service down
                return ("error", f"could not decode an image sent to the classification service: {exc}")
            req = _Request(images)
            self.pending.put(req)
            req.done.wait()
            return ("error", req.error) if req.error is not None else ("ok", req.result)
        if kind == "stats":
            with self._lock:
                return ("ok", {**asdict(self.stats), "uptime_s": time.monotonic() - self.stats.started})
        if kind == "ping":
            return ("ok", os.getpid())
        return ("error", f"unknown request {kind!r}")

    # batching side
    def _take(self) -> None:
        with self._lock:
            self._taken += 1

    def _everyone_waiting(self) -> bool:
        with self._lock:
            return self._taken + self.pending.qsize() >= self.stats.clients

    def next_batch(self) -> list[_Request]:
        """Block for one request, then gather more until max_batch images, max_wait, or no one left to wait for."""
        try:
            first = self.pending.get(timeout=0.2)
        except queue.Empty:
            return []
        self._take()
        batch, n = [first], len(first.images)
        deadline = time.monotonic() + self.max_wait
        while n < self.max_batch:
            try:
                req = self.pending.get_nowait()
            except queue.Empty:
                remaining = deadline - time.monotonic()
                # every connected worker already has its request in: waiting longer gains nothing
                if remaining <= 0 or self._everyone_waiting():
                    break
                try:
                    req = self.pending.get(timeout=remaining)
                except queue.Empty:
                    break
            self._take()
            batch.append(req)
            n += len(req.images)
        return batch

    def run_batch(self, batch: list[_Request]) -> None:
        with self._lock:
            if self._active == 0:
                self._active_since = time.monotonic()
            self._active += 1
        try:
            self._run_batch(batch)
        finally:
            with self._lock:
                self._active -= 1
                if self._active == 0:  # busy = wall time with at least one batch running
                    self.stats.busy_s += time.monotonic() - self._active_since
                self._taken -= len(batch)

    def _run_batch(self, batch: list[_Request]) -> None:
        images = [im for req in batch for im in req.images]
        try:
            results: list[Any] = []
            for start in range(0, len(images), self.max_batch):
                results.extend(self.classifier.classify(images[start : start + self.max_batch]))
            if len(results) != len(images):
                raise RuntimeError(f"classifier returned {len(results)} results for {len(images)} images")
        except Exception as exc:  # noqa: BLE001
            if len(batch) > 1:  # isolate the request that broke it; the others still get answers
                for req in batch:
                    self._run_batch([req])
                return
            batch[0].error = f"classification failed: {type(exc).__name__}: {exc}"
            batch[0].done.set()
            return
        with self._lock:
            self.stats.batches += 1
            self.stats.images += len(images)
            self.stats.requests += len(batch)
            self.stats.max_batch_seen = max(self.stats.max_batch_seen, len(images))
        pos = 0
        for req in batch:
            req.result = [
                (tuple(r.probs), tuple(r.embedding)) for r in results[pos : pos + len(req.images)]
            ]
            pos += len(req.images)
            req.done.set()

    def _batcher(self) -> None:
        while not self.stop.is_set():
            batch = self.next_batch()
            if batch:
                self.run_batch(batch)

    def loop(self) -> None:
        """Run the batchers until ``stop`` (the calling thread is one of them)."""
        extra = [threading.Thread(target=self._batcher, daemon=True) for _ in range(self.concurrency - 1)]
        for t in extra:
            t.start()
        self._batcher()
        for t in extra:
            t.join(5)


def _serve(config: dict[str, Any]) -> int:
    """Child-process main: load, listen, announce on stdout, batch until stdin closes."""
    from multiprocessing.connection import Listener

    # stdout carries exactly one line (the announcement); anything a library prints goes to stderr, so a
    # chatty loader can neither corrupt the announcement nor fill a pipe nobody reads and block us.
    announce = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # Ctrl-C reaches the whole process group: the owner decides, and we go when its pipe closes
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def say(obj: dict[str, Any]) -> None:
        announce.write(json.dumps(obj) + "\n")
        announce.close()

    try:
        device = resolve_device(config["device"])
        clf = load_classifier(
            config["model"], device=device, threads=config["threads"], dtype=config["dtype"], loader=config["loader"]
        )
        authkey = secrets.token_bytes(32)
        if sys.platform.startswith("linux"):  # abstract socket: no file to leak if we are killed
            address = f"\0pcg-classify-{os.getpid()}-{secrets.token_hex(8)}"
        else:
            address = os.path.join(config["socket_dir"], f"pcg-classify-{os.getpid()}.sock")
        listener = Listener(address, family="AF_UNIX", authkey=authkey, backlog=1024)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises InfrastructureError
        say({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    plan = preresize_plan(clf, device) if config.get("preresize", True) else None
    concurrency = config.get("concurrency") or (1 if device == "cpu" else 4)
    server = _Server(clf, config["max_batch"], config["max_wait_ms"], concurrency)

    def accept() -> None:
        while not server.stop.is_set():
            try:
                conn = listener.accept()
            except Exception:  # noqa: BLE001 - failed auth or handshake from one client
                if server.stop.is_set():
                    return
                continue
            threading.Thread(target=server.handle, args=(conn,), daemon=True).start()

    def watch_parent() -> None:
        with contextlib.suppress(OSError):
            while sys.stdin.buffer.read(1024):
                pass
        server.stop.set()

    threading.Thread(target=accept, daemon=True).start()
    threading.Thread(target=watch_parent, daemon=True).start()
    info = ServiceInfo(address, authkey.hex(), os.getpid(), clf.digest, clf.name, config["dtype"], device, plan)
    say(info.to_dict())
    try:
        server.loop()
    finally:
        with contextlib.suppress(OSError):
            listener.close()
        if not address.startswith("\0"):
            with contextlib.suppress(OSError):
                os.unlink(address)
    return 0


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
    loader: str = DEFAULT_LOADER,
    startup_timeout: float = 600.0,
    export_env: bool = True,
) -> ServiceHandle:
    """Start the service and wait until its model is loaded; the caller owns it (``stop()`` it at session end).

    Sets ``$PCG_CLASSIFY_SERVICE`` (xdist workers inherit it) unless ``export_env`` is false, and writes the
    same JSON to ``run_dir/.pcg-classify-service.json`` (0600) when ``run_dir`` is given. Service logs go to
    ``run_dir/classify-service.log`` (else stderr). ``concurrency`` batcher threads (default 1 on CPU, 4 on
    GPU); ``preresize`` lets workers shrink images to the model's input size when a start-up probe shows the
    results are unchanged.
    """
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
    }
    log: Any = None
    if run_dir is not None:
        run_dir.mkdir(parents=True, exist_ok=True)
        log = open(run_dir / "classify-service.log", "ab")  # noqa: SIM115 - the child keeps it
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pcg_plugin.classify_service", "--serve", json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            close_fds=True,
        )
    finally:
        if log is not None:
            log.close()
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
    path = run_dir / INFO_FILE
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(info.to_env())
    os.replace(tmp, path)


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
    except Exception:  # noqa: BLE001
        return False


def _pid_alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (exited, not yet reaped by its owner) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc (macOS): kill(0) is all we know


def _connect(info: ServiceInfo, timeout: float = 30.0) -> Any:
    from multiprocessing.connection import Client

    deadline = time.monotonic() + timeout
    while True:
        try:
            return Client(info.address, family="AF_UNIX", authkey=bytes.fromhex(info.authkey))
        except (ConnectionRefusedError, FileNotFoundError) as exc:  # backlog full, or the service is gone
            if not _pid_alive(info.pid) or time.monotonic() > deadline:
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
        payload = self._request(("classify", [_to_wire(im, self.info.resize) for im in images]))
        return [_make_classification(p, e) for p, e in payload]

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


# ----------------------------------------------------------------------------------------------- factory


def classifier_for_run(
    *,
    model: str | Path | None,
    device: str,
    mode: Mode,
    workers: int,
    run_dir: Path,
    dtype: Dtype = "fp32",
    service: ServiceInfo | dict[str, Any] | str | None = None,
    cache: bool = True,
    cache_dir: Path | None = None,
    max_batch: int = DEFAULT_MAX_BATCH,
    max_wait_ms: float = DEFAULT_MAX_WAIT_MS,
    loader: str = DEFAULT_LOADER,
) -> ClassifierLike:
    """The classifier one pytest process should use for this run.

    ``service`` mode connects to ``service`` (workerinput), else ``$PCG_CLASSIFY_SERVICE``, else to the
    service named in the run folder's info file if it answers, else starts one (first process wins, under
    a lock file; it lives as long as that process, and a survivor restarts it if that process dies). ``local``
    mode loads the model in this process with torch threads capped to ``cores // workers`` on CPU. With
    ``cache`` the result is wrapped in the stage cache (``cache_dir`` or the user cache folder).
    """
    chosen = resolve_mode(mode, device)
    inner: ClassifierLike
    if chosen == "local":
        dev = resolve_device(device)
        threads = threads_per_worker(workers) if dev == "cpu" else 1
        inner = _local_classifier(model, dev, threads, dtype, loader)
    else:
        given = service if service is not None else os.environ.get(ENV_VAR)
        restart = {
            "model": model, "device": device, "dtype": dtype,
            "max_batch": max_batch, "max_wait_ms": max_wait_ms, "loader": loader,
        }  # fmt: skip
        if given is not None:  # the controller's service: it owns the lifecycle
            client = connect(given)
            client._run_dir = run_dir
        else:  # first process in starts it; if its owner dies, whoever notices restarts it
            client = ServiceClient(ensure_service(run_dir=run_dir, **restart), run_dir=run_dir, restart=restart)
        if client.info.dtype != dtype:
            raise InfrastructureError(
                f"the running classification service uses {client.info.dtype}, this run asked for {dtype}"
            )
        inner = client
    if not cache:
        return inner
    store = ClassificationCache(cache_dir or default_cache_dir(), cache_namespace(inner.digest, dtype))
    return CachedClassifier(inner, store, _make_classification)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pcg_plugin.classify_service")
    parser.add_argument("--serve", required=True, help="JSON config (internal: written by start_service)")
    args = parser.parse_args(argv)
    return _serve(json.loads(args.serve))


if __name__ == "__main__":
    raise SystemExit(main())
