"""The sandbox child: load the participant's module, guard it with an audit hook, run one trial, report by pipe.

Run as ``python -m pcg_plugin.sandbox.child`` for one trial, or forked from the fork server
(``pcg_plugin.sandbox.forks``), which calls ``run_trial`` in each forked child."""

from __future__ import annotations

import errno
import importlib.util
import inspect
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from pcg_plugin.errors import SandboxViolation
from pcg_plugin.sandbox.official_api.guards import credit, official_exception
from pcg_plugin.sandbox.official_api.models import TrialContext, TrialLoop
from pcg_plugin.sandbox.official_api.registry import registered

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_PATH_EVENTS = {
    "os.remove": 0,
    "os.rename": 0,
    "os.rmdir": 0,
    "os.mkdir": 0,
    "os.symlink": 1,
    "os.link": 1,
    "os.truncate": 0,
    "os.chmod": 0,
    "os.chown": 0,
    "os.utime": 0,
    "shutil.rmtree": 0,
    "os.replace": 0,
}
_PROCESS_EVENTS = (
    "os.fork",
    "os.forkpty",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "subprocess.Popen",
    "pty.spawn",
    "os.startfile",
)


class Channel:
    """JSON lines over two inherited pipe fds; the parent answers each ``chat`` request in order."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._r = os.fdopen(read_fd, "rb", buffering=0)
        self._w = os.fdopen(write_fd, "wb", buffering=0)
        self._buf = b""

    def send(self, message: dict[str, Any]) -> None:
        self._w.write(json.dumps(message).encode() + b"\n")

    def receive(self) -> dict[str, Any]:
        while b"\n" not in self._buf:
            chunk = os.read(self._r.fileno(), 1 << 16)
            if not chunk:
                raise SystemExit(3)  # the parent went away: nothing to report to
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def chat(self, messages: list, n: int, ctx: TrialContext | None = None) -> list[str]:
        """Ask the parent; its guards decide (TimeoutError/ValueError exactly as the official function).

        The tokens the parent counted are mirrored on ``ctx`` for programs that read them; changing them
        changes nothing, the parent's counters are the ones enforced.
        """
        self.send({"op": "chat", "messages": messages, "n": n})
        reply = self.receive()
        if ctx is not None:
            prompt, completion = reply.get("usage", (0, 0))
            credit(ctx, int(prompt), int(completion))
        if "error" in reply:
            raise official_exception(reply["error"], reply.get("message", ""))
        return list(reply["choices"])


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r + os.sep) for r in roots)


def _other_process_proc(path: str) -> bool:
    """``/proc/<pid>/...`` of another process (the parent's environ holds the API key)."""
    parts = os.path.realpath(path).split(os.sep)
    return len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit() and int(parts[2]) != os.getpid()


def install_guard(roots: tuple[str, ...], channel: Channel) -> None:
    """Audit hook: no network, no new processes, no writes outside ``roots``, no peeking at other processes.

    Not a security boundary against native code (ctypes, C extensions); the rlimits, the process group and
    the network namespace (where ``unshare -rn`` works) are.
    """
    reported: list[str] = []

    def deny(what: str) -> None:
        if not reported:
            reported.append(what)
            try:  # noqa: SIM105 - the guard runs beside the program's code: builtins only, no contextlib
                channel.send({"op": "violation", "what": what})
            except OSError:
                pass
        raise SandboxViolation(f"pcg sandbox: {what} is not allowed")

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            if isinstance(path, (str, bytes)) and not isinstance(path, int):
                p = os.fsdecode(path)
                if _other_process_proc(p):
                    deny(f"reading {p}")
                writing = (mode is not None and any(ch in str(mode) for ch in "wax+")) or (
                    isinstance(flags, int) and flags & _WRITE_FLAGS
                )
                if writing and not _inside(p, roots):
                    deny(f"writing {p} outside the scratch folder")
        elif event in (
            "socket.connect",
            "socket.bind",
            "socket.sendto",
            "socket.getaddrinfo",
            "socket.gethostbyname",
            "socket.gethostbyaddr",
        ):
            deny(f"network access ({event})")
        elif event == "socket.__new__" and len(args) > 1 and args[1] in (2, 10, 17):  # AF_INET, AF_INET6, AF_PACKET
            deny("opening a network socket")
        elif event in _PROCESS_EVENTS:
            deny(f"starting a process ({event})")
        elif event == "os.kill" and args and args[0] not in (0, os.getpid()):
            deny(f"signalling process {args[0]}")
        elif event in _PATH_EVENTS:
            target = args[_PATH_EVENTS[event]]
            if isinstance(target, (str, bytes, os.PathLike)) and not _inside(os.fsdecode(target), roots):
                deny(f"{event} on {os.fsdecode(target)} outside the scratch folder")

    sys.addaudithook(hook)


def find_loop(module: Any) -> type[TrialLoop]:
    """The TrialLoop the program passed to run_evaluation, else the only concrete subclass it defines."""
    chosen = registered()
    if chosen is not None:
        return chosen
    found = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, TrialLoop) and obj is not TrialLoop and not inspect.isabstract(obj)
    ]
    own = [cls for cls in found if cls.__module__ == module.__name__] or found
    if len(own) != 1:
        names = ", ".join(c.__name__ for c in own) or "none"
        raise LookupError(f"expected exactly one TrialLoop subclass in the program, found {names}")
    return own[0]


def _tail(limit: int = 4000) -> str:
    return traceback.format_exc()[-limit:]


def run_trial(spec: dict[str, Any], channel: Channel) -> None:
    """Load the participant's module under the guard and run one trial; every outcome goes to ``channel``.

    ``spec``: ``entry``, ``letter``, ``roots`` (the folders the program may write), ``paths`` (its import folders,
    in order), ``team``, ``trial``, ``model`` (None: ``ctx.get_model_name()`` has none).
    """
    from pcg_plugin.sandbox.official_api import SHIMS

    entry, letter = Path(spec["entry"]), spec["letter"]
    sys.path[:0] = [str(SHIMS), *spec["paths"]]  # the entry's folder, the submission root, its installed requirements
    sys.argv = [str(entry)]
    install_guard(tuple(os.path.realpath(r) for r in spec["roots"]), channel)
    try:
        module_spec = importlib.util.spec_from_file_location("pcg_submission", entry)
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"cannot load {entry.name}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules["pcg_submission"] = module
        module_spec.loader.exec_module(module)
        loop = find_loop(module)
        ctx = TrialContext(spec["team"], letter, int(spec["trial"]), None, spec.get("model") or None)
        ctx._transport = lambda messages, n: channel.chat(messages, n, ctx)
        result = loop.run(ctx, letter)
    except MemoryError:
        channel.send({"op": "memory", "traceback": _tail()})
        return
    except BaseException as error:  # noqa: BLE001 - every fault of the program is reported, none escapes
        if isinstance(error, OSError) and error.errno == errno.EFBIG:  # Python ignores SIGXFSZ: RLIMIT_FSIZE hit
            channel.send({"op": "file_size"})
            return
        kind = "violation_error" if isinstance(error, SandboxViolation) else "program_error"
        channel.send({"op": kind, "error": f"{type(error).__name__}: {error}", "traceback": _tail()})
        return
    if not isinstance(result, str):
        channel.send({"op": "bad_return", "type": type(result).__name__})
        return
    channel.send({"op": "result", "value": result})


def main() -> int:
    """A new interpreter for one trial (``--pcg-sandbox-start exec``): the trial's facts, the same the fork server
    sends, come as one JSON value in the environment, taken out before the program runs."""
    spec = json.loads(os.environ.pop("PCG_SANDBOX_TRIAL"))
    import resource

    for which, soft, hard in spec["rlimits"]:  # as the fork server sets them in its forked child
        resource.setrlimit(which, (soft, hard))
    run_trial(spec, Channel(*spec["fds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
