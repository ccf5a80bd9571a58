"""A real OpenAI-compatible HTTP server on 127.0.0.1 for the tests: records requests, injects faults.

One module that every test folder imports (`import loopback_llm`; tests/ is on sys.path through its conftest):
subclass ``FakeOpenAI`` to answer your own way and ``serve`` it."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any



@dataclass
class FakeOpenAI:
    """State of the test server: the requests it saw and the faults still to inject (in order)."""

    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    # faults to inject, in order: ("status", 429, {"Retry-After": "1"}), ("sleep", seconds), ("reset",)
    faults: list[tuple[Any, ...]] = field(default_factory=list)
    usage: tuple[int, int] = (11, 7)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any]) -> list[str]:
        """Canned completion: echoes the last user message so tests can tell calls apart."""
        last = [m["content"] for m in body.get("messages", []) if m.get("role") == "user"][-1:]
        return [f"```\ndrop_block('b11', {i})\n``` re: {last[0] if last else ''}" for i in range(body.get("n", 1))]

    @property
    def bodies(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.requests)


def _handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server API
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with state.lock:
                state.requests.append(body)
                state.headers.append({k.lower(): v for k, v in self.headers.items()})
                fault = state.faults.pop(0) if state.faults else None
            if fault and fault[0] == "reset":
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if fault and fault[0] == "sleep":
                time.sleep(fault[1])
            if fault and fault[0] == "status":
                self._send(fault[1], {"error": {"message": f"injected {fault[1]}", "type": "test"}}, fault[2])
                return
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                return
            choices = state.answer(body)
            p, c = state.usage
            payload = {
                "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body.get("model"),
                "choices": [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                            for i, t in enumerate(choices)],
                "usage": {"prompt_tokens": p, "completion_tokens": c * len(choices),
                          "total_tokens": p + c * len(choices)},
            }  # fmt: skip
            self._send(200, payload, {})

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout): nothing to answer

    return Handler


@contextlib.contextmanager
def serve(state: FakeOpenAI) -> Iterator[FakeOpenAI]:
    """Serve ``state`` (a FakeOpenAI, or a subclass answering its own way) on 127.0.0.1 until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
