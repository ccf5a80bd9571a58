"""The classification service's own process: load one model, accept workers, batch their requests, answer.

Started by ``service.start_service`` as
``python -m pcg_plugin.problems.science_birds.classify.server --serve CONFIG``. It announces itself with one JSON
line on stdout (a ServiceInfo, or an error), then batches until its stdin, a pipe from the process that started
it, closes. The wire format it shares with the clients is ``wire``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import secrets
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pcg_plugin._util.devices import resolve_device
from pcg_plugin.problems.science_birds.classify.base import ClassifierLike
from pcg_plugin.problems.science_birds.classify.local import load_classifier
from pcg_plugin.problems.science_birds.classify.wire import TCP, ServiceInfo, from_wire, preresize_plan


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
                images = [from_wire(item) for item in msg[1]]
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
        except Exception as exc:  # noqa: BLE001 - a failed batch is answered with its error, the service stays up
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
            req.result = [(tuple(r.probs), tuple(r.embedding)) for r in results[pos : pos + len(req.images)]]
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


HANDSHAKE_S = 10.0  # a client that has not proved the authkey by then is dropped


def admit(conn: Any, authkey: bytes, handle: Any, timeout: float = HANDSHAKE_S) -> bool:
    """A new client's handshake, then ``handle(conn)``: the authkey's HMAC challenge both ways
    (``multiprocessing.connection``'s own, in raw bytes of at most 256), so nothing the client sends is unpickled
    before it has proved the key; a wrong key, or silence for ``timeout`` seconds, closes the connection. In the
    client's own thread, so that a client that never answers holds up nobody else (with the authkey on the
    ``Listener``, ``accept`` would run the handshake and wait for it in the one accepting thread)."""
    import socket
    from multiprocessing.connection import answer_challenge, deliver_challenge

    raw = socket.socket(fileno=os.dup(conn.fileno()))  # shutdown wakes a recv that close alone would not

    def drop() -> None:
        with contextlib.suppress(OSError):
            raw.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(timeout, drop)
    timer.start()
    try:
        deliver_challenge(conn, authkey)
        answer_challenge(conn, authkey)
    except Exception:  # noqa: BLE001 - a wrong key, a bad message or silence: this client only
        with contextlib.suppress(OSError):
            conn.close()
        return False
    finally:
        timer.cancel()
        raw.close()
    handle(conn)
    return True


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
        if config.get("listen"):  # tcp:HOST (a cluster's GPU node serving other nodes): any free port on HOST
            listener = Listener((config["listen"][len(TCP) :], 0), family="AF_INET", backlog=1024)
            address = f"{TCP}{listener.address[0]}:{listener.address[1]}"
        else:
            if sys.platform.startswith("linux"):  # abstract socket: no file to leak if we are killed
                address = f"\0pcg-classify-{os.getpid()}-{secrets.token_hex(8)}"
            else:
                address = os.path.join(config["socket_dir"], f"pcg-classify-{os.getpid()}.sock")
            listener = Listener(address, family="AF_UNIX", backlog=1024)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises InfrastructureError
        say({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    plan = preresize_plan(clf, device) if config.get("preresize", True) else None
    concurrency = config.get("concurrency") or (1 if device == "cpu" else 4)
    server = _Server(clf, config["max_batch"], config["max_wait_ms"], concurrency)

    def accept() -> None:  # the listener has no authkey: each client's handshake runs in its own thread (admit)
        while not server.stop.is_set():
            try:
                conn = listener.accept()
            except Exception:  # noqa: BLE001 - one client's failed connect
                if server.stop.is_set():
                    return
                continue
            threading.Thread(target=admit, args=(conn, authkey, server.handle), daemon=True).start()

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
        if not address.startswith(("\0", TCP)):
            with contextlib.suppress(OSError):
                os.unlink(address)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pcg_plugin.problems.science_birds.classify.server")
    parser.add_argument("--serve", required=True, help="JSON config (internal: written by service.start_service)")
    args = parser.parse_args(argv)
    return _serve(json.loads(args.serve))


if __name__ == "__main__":
    raise SystemExit(main())
