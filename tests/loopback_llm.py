"""A real OpenAI-compatible HTTP server on 127.0.0.1 for the tests: records requests, injects faults.

One module that every test folder imports (`import loopback_llm`; tests/ is on sys.path through its conftest):
subclass ``FakeOpenAI`` to answer your own way and ``serve`` it; ``serve(state, wire)`` speaks another vendor's wire
format (``loopback_anthropic.WIRE``, ``loopback_gemini.WIRE``) with the same answers and faults.

Faults, injected in order, one per request (``faults``), or chosen per request by ``fault_for(body)``:

- ``("status", 429, {"Retry-After": "1"})``: that status, JSON error body, those headers (5xx, 429 with or without
  Retry-After); a fourth item is what the wire adds to its error body (Anthropic's ``error_code``, a Gemini
  quota id);
- ``("sleep", seconds)``: answer normally after a pause; ``("hang",)``: never answer (until the client gives up or
  the server stops);
- ``("reset",)``: close the connection before answering; ``("reset_body",)``: send the headers and half the body,
  then close;
- ``("malformed",)``: a 200 whose JSON body is cut short; ``("html",)``: a 200 with a proxy's HTML page;
- ``("empty_choices",)``, ``("null_content",)``: a 200 chat completion without an answer;
- ``("reply", text)``: a 200 answering ``text`` in every choice (a huge reply, a lone surrogate: JSON carries any
  string).

``n_answered`` counts the requests given a real answer (what a client may store), ``n_faulted`` the others."""

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
    requests: list[dict[str, Any]] = field(default_factory=list)  # as OpenAI-style bodies, whatever the wire
    wire_requests: list[dict[str, Any]] = field(default_factory=list)  # as the client sent them
    headers: list[dict[str, str]] = field(default_factory=list)
    # faults to inject, in order: ("status", 429, {"Retry-After": "1"}), ("sleep", seconds), ("reset",)
    faults: list[tuple[Any, ...]] = field(default_factory=list)
    usage: tuple[int, int] = (11, 7)
    lock: threading.Lock = field(default_factory=threading.Lock)
    n_answered: int = 0
    n_faulted: int = 0
    stopping: threading.Event = field(default_factory=threading.Event)

    def fault_for(self, body: dict[str, Any]) -> tuple[Any, ...] | None:
        """The fault for this request when ``faults`` is empty (subclasses choose by content); None: answer."""
        return None

    def answer(self, body: dict[str, Any]) -> list[str]:
        """Canned completion: echoes the last user message so tests can tell calls apart."""
        last = [m["content"] for m in body.get("messages", []) if m.get("role") == "user"][-1:]
        return [f"```\ndrop_block('b11', {i})\n``` re: {last[0] if last else ''}" for i in range(body.get("n", 1))]

    @property
    def bodies(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.requests)


class OpenAIWire:
    """The OpenAI chat completions wire format. Another vendor's fake (``loopback_anthropic``, ``loopback_gemini``)
    is a wire of the same shape: it reads its requests as OpenAI-style bodies (``model``, ``messages``, ``n``), so
    that every ``FakeOpenAI`` subclass answers, and is faulted, the same way in every format."""

    name = "openai"

    def base_url(self, root: str) -> str:
        return root + "/v1"

    def chat(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        """The request as an OpenAI-style body; None: not a chat route (404)."""
        return body if path.rstrip("/") in ("/v1/chat/completions", "/chat/completions") else None

    def refusal(self, raw: dict[str, Any]) -> str | None:
        """Why the real API would refuse this request as invalid (None: it would not; OpenAI's fake takes all)."""
        return None

    def error(self, status: int, headers: dict[str, str], extra: Any = None) -> dict[str, Any]:
        """An error's body; ``extra``: what the fault adds (a vendor's error code), each wire its own way."""
        return {"error": {"message": f"injected {status}", "type": "test"}}

    def malformed(self) -> bytes:
        return b'{"id": "chatcmpl-test", "choices": [{"index": 0, "message": {"role": "assis'

    def reply(self, body: dict[str, Any], choices: list[str | None], usage: tuple[int, int]) -> dict[str, Any]:
        """A 200's body: ``choices`` empty (no answer at all) or holding None (a null content) are faults."""
        p, c = usage
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [
                {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                for i, t in enumerate(choices)
            ],
            "usage": {"prompt_tokens": p, "completion_tokens": c * len(choices), "total_tokens": p + c * len(choices)},
        }


def _handler(state: FakeOpenAI, wire: Any) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:  # http.server API
            length = int(self.headers.get("Content-Length", "0"))
            raw = json.loads(self.rfile.read(length) or b"{}")
            body = wire.chat(self.path, raw)
            with state.lock:
                state.requests.append(body if body is not None else raw)
                state.wire_requests.append(raw)
                state.headers.append({k.lower(): v for k, v in self.headers.items()})
                fault = state.faults.pop(0) if state.faults else None
            if fault is None and body is not None:
                fault = state.fault_for(body)
            refusal = wire.refusal(raw) if body is not None and fault is None else None
            if refusal is not None:  # what the real API refuses as invalid (a 400), as it would
                self._send(400, wire.error(400, {}), {})
                return
            kind = fault[0] if fault else None
            if kind == "sleep":
                time.sleep(fault[1])
            elif kind is not None and kind != "reply":
                with state.lock:
                    state.n_faulted += 1
            if kind == "hang":
                state.stopping.wait(600)
                self.close_connection = True
                return
            if kind == "reset":
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if kind == "status":
                self._send(fault[1], wire.error(*fault[1:3], fault[3] if len(fault) > 3 else None), fault[2])
                return
            if kind == "malformed":
                self._raw(200, wire.malformed())
                return
            if kind == "html":
                self._raw(200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
                return
            if body is None:
                self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                return
            n = body.get("n", 1)
            if kind == "empty_choices":
                choices: list[Any] = []
            elif kind == "null_content":
                choices = [None] * n
            elif kind == "reply":
                choices = [fault[1]] * n
            else:
                choices = state.answer(body)
            if kind in (None, "sleep", "reply"):
                with state.lock:
                    state.n_answered += 1
            payload = wire.reply(body, choices, state.usage)
            if kind == "reset_body":
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self._send(200, payload, {})

        def _raw(self, status: int, data: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

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


class Server(ThreadingHTTPServer):
    request_queue_size = 128  # trials in flight connect at once: the default backlog of 5 resets the rest


@contextlib.contextmanager
def serve(state: FakeOpenAI, wire: Any = None) -> Iterator[FakeOpenAI]:
    """Serve ``state`` (a FakeOpenAI, or a subclass answering its own way) on 127.0.0.1 until the block ends, in
    ``wire``'s format (default OpenAI's; ``state.url`` is the base URL that format's SDK takes)."""
    wire = OpenAIWire() if wire is None else wire
    server = Server(("127.0.0.1", 0), _handler(state, wire))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = wire.base_url(f"http://127.0.0.1:{server.server_address[1]}")
    try:
        yield state
    finally:
        state.stopping.set()  # a hung request lets go
        server.shutdown()
        server.server_close()
