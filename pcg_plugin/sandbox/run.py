"""Run one trial of an untrusted participant program in a limited child process; serve its chat calls over a pipe."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pcg_plugin.errors import OfficialFailure, Reason
from pcg_plugin.sandbox.start import START_METHODS, start_method, use_start_method

GiB = 1 << 30
MiB = 1 << 20
KEEP_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
TRIAL_ENV = "PCG_SANDBOX_TRIAL"  # a new interpreter's trial facts (the fork server's children get them by socket)
# Chat time counts toward the official guard (checked by the parent's chat before each call), not toward the
# child's wall clock: after each answer the child gets at least this long to use it and return.
AFTER_CHAT_GRACE_S = 10.0


@dataclass(frozen=True)
class SandboxLimits:
    """Per-trial limits of the child process.

    ``wall_time``: seconds of the program's own time (the edition's max_time + margin); ``cpu_time``: CPU
    seconds (RLIMIT_CPU); ``memory_bytes``: address space (RLIMIT_AS); ``max_output_bytes``: largest file the
    program may write, stdout/stderr included (RLIMIT_FSIZE); ``max_response_bytes``: largest final response
    or pipe message; ``max_copy_bytes``: largest submission folder copied to the scratch folder;
    ``network``: ``"deny"`` (network namespace when ``unshare -rn`` works, plus the audit hook) or ``"hook"``
    (audit hook only).
    """

    wall_time: float = 180.0
    cpu_time: int = 180
    memory_bytes: int = 4 * GiB
    max_output_bytes: int = 64 * MiB
    max_response_bytes: int = 4 * MiB
    max_copy_bytes: int = 1 * GiB
    max_open_files: int = 256
    network: str = "deny"

    @classmethod
    def for_max_time(cls, max_time: float, *, margin: float = 60.0) -> SandboxLimits:
        """A competition's official max_time plus ``margin`` (the defaults are 2024's 120 s + 60 s)."""
        return cls(wall_time=max_time + margin, cpu_time=int(max_time + margin))


NAMESPACE_OPTIONS = (
    # user + network + PID namespace with its own /proc: no interfaces, no other process visible, and the
    # whole namespace dies with its first process (so forks that call setsid() cannot outlive the trial).
    ("-rnpf", "--kill-child", "--mount-proc"),
    ("-rn",),  # user + network namespace only
)


@lru_cache(maxsize=1)
def network_namespace_prefix() -> tuple[str, ...]:
    """The strongest ``unshare`` prefix this machine allows unprivileged, or ``()`` (audit hook only)."""
    tool = shutil.which("unshare")
    if not tool:
        return ()
    for options in NAMESPACE_OPTIONS:
        try:
            if subprocess.run([tool, *options, "true"], capture_output=True, timeout=10).returncode == 0:
                return (tool, *options)
        except (OSError, subprocess.SubprocessError):
            continue
    return ()


def _scrubbed_env(home: Path | None, tmp: Path | None) -> dict[str, str]:
    """Only the harmless basics: no OPENAI_*, no tokens, no proxies, nothing else from the harness (HOME and
    TMPDIR left out when None: the fork server's children set their own)."""
    env = {k: os.environ[k] for k in KEEP_ENV if k in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    if home is not None and tmp is not None:
        env.update(HOME=str(home), TMPDIR=str(tmp))
    env.update(PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    return env


def _in_namespaces(prefix: tuple[str, ...], cmd: list[str]) -> list[str]:
    """``cmd`` under the ``unshare`` prefix; with a PID namespace a shell is PID 1 (init ignores its own default
    signals) and ``cmd`` PID 2, and the whole namespace dies with the shell."""
    if "--kill-child" in prefix:
        return [*prefix, shutil.which("sh") or "/bin/sh", "-c", '"$@"; exit $?', "pcg-init", *cmd]
    return [*prefix, *cmd]


def _rlimits(limits: SandboxLimits) -> list[tuple[int, int, int]]:
    """The trial's resource limits as (resource, soft, hard): applied in the trial's child before the program runs
    (``child.main``, or the fork server's ``_child``)."""
    return [
        (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_CPU, limits.cpu_time, limits.cpu_time + 1),
        (resource.RLIMIT_FSIZE, limits.max_output_bytes, limits.max_output_bytes),
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files),
    ]


def _copy_submission(folder: Path, dest: Path, limit: int) -> None:
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    if size > limit:
        raise OfficialFailure(
            f"submission folder is {size / MiB:.0f} MiB, over the {limit / MiB:.0f} MiB limit",
            reason=Reason.SANDBOX_VIOLATION,
        )
    shutil.copytree(
        folder, dest, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".git"), dirs_exist_ok=True
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()


def _tail(path: Path, limit: int = 2000) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, path.stat().st_size - limit))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def run_program_trial(
    entry: Path,
    *,
    letter: str,
    chat: Callable[[list[dict], int], list[str]],
    limits: SandboxLimits | None = None,
    workdir: Path,
    team: str | None = None,
    trial: int = 1,
    root: Path | None = None,
    cwd: Path | None = None,
    site_dirs: Sequence[Path] = (),
    model: str | None = None,
) -> str:
    """Run ``TrialLoop.run(ctx, letter)`` of the program at ``entry`` in a child process; return its final response.

    ``root`` is the submission folder (default: the entry's folder), copied whole into a scratch folder under
    ``workdir``; the program runs with the copy of ``cwd`` (default ``root``) as its working folder, as the
    participant ran ``python tot/tot.py`` from their folder, and imports from its own folder, then from
    ``root``, then from ``site_dirs`` (its installed requirements); ``model`` is what ``ctx.get_model_name()``
    returns (2025's ``run_evaluation`` passed it). The child's ``chat_with_chatgpt``/``chat_with_llm`` reach
    ``chat`` (which enforces the official guards and stores responses) over a pipe. Participant faults raise
    OfficialFailure (score 0) with reason
    ``program_error``, ``timeout``, ``token_limit``, ``memory``, ``killed``, ``bad_return``, ``response_too_large``
    or ``sandbox_violation``; a failing ``chat`` infrastructure error stops the child and is re-raised as is.
    The child is forked from this process's fork server, or a new interpreter (``use_start_method``).
    """
    limits = limits or SandboxLimits()
    entry, workdir = Path(entry).resolve(), Path(workdir).resolve()
    root = Path(root).resolve() if root is not None else entry.parent
    scratch, home, tmp = workdir / "submission", workdir / "home", workdir / "tmp"
    if not entry.is_file():
        raise OfficialFailure(f"program {entry} does not exist", reason=Reason.PROGRAM_ERROR)
    inner_entry = scratch / entry.relative_to(root)
    inner_cwd = scratch / Path(cwd).resolve().relative_to(root) if cwd is not None else scratch
    _copy_submission(root, scratch, limits.max_copy_bytes)
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    command = {
        "entry": str(inner_entry),
        "letter": letter,
        "roots": [str(scratch), str(home), str(tmp)],
        "paths": list(dict.fromkeys(map(str, (inner_entry.parent, scratch, *site_dirs)))),  # in order, once each
        "team": team or root.name,
        "trial": trial,
        "model": model or "",
        "rlimits": _rlimits(limits),  # set by the child before the program (no code between fork and exec here)
    }
    prefix = network_namespace_prefix() if limits.network == "deny" else ()
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    if start_method() == "fork":
        from pcg_plugin.sandbox import forks as sandbox_forks

        argv = _in_namespaces(prefix, [sys.executable, "-I", "-B", "-m", "pcg_plugin.sandbox.forks"])
        with sandbox_forks.lease(argv, _scrubbed_env(None, None), pid_namespace="--kill-child" in prefix) as server:
            if server is not None:
                command.update(cwd=str(inner_cwd), home=str(home), tmp=str(tmp))
                with open(workdir / "stdout.txt", "wb") as out, open(workdir / "stderr.txt", "wb") as err:
                    forked = server.start(command, [to_child_r, from_child_w, out.fileno(), err.fileno()])
                if forked is not None:  # else it could not fork, or has ended: a new interpreter runs this trial
                    os.close(to_child_r)
                    os.close(from_child_w)
                    return _exchange(from_child_r, to_child_w, chat, limits, workdir, forked.exit_code, forked.release)
    env = _scrubbed_env(home, tmp)
    env[TRIAL_ENV] = json.dumps({**command, "fds": [to_child_r, from_child_w]})  # the child pops it before the program
    cmd = _in_namespaces(prefix, [sys.executable, "-I", "-B", "-m", "pcg_plugin.sandbox.child"])
    init_shell = "--kill-child" in prefix
    with open(workdir / "stdout.txt", "wb") as out, open(workdir / "stderr.txt", "wb") as err:
        try:
            proc = subprocess.Popen(
                cmd,
                cwd=inner_cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                pass_fds=(to_child_r, from_child_w),
                start_new_session=True,  # no preexec_fn: Python code between fork and exec can deadlock a process
                # with threads (trials in flight); the child applies the limits itself, first thing (child.main)
            )
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
    return _exchange(
        from_child_r,
        to_child_w,
        chat,
        limits,
        workdir,
        lambda timeout: _exec_exit_code(proc, timeout, init_shell),
        lambda settled: _kill_group(proc),
    )  # the child and anything it forked


def _exec_exit_code(proc: subprocess.Popen[bytes], timeout: float, init_shell: bool) -> int | None:
    """The program's exit status as ``Popen.returncode``; the init shell reports its child's signal N as 128 + N."""
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return 128 - code if init_shell and code > 128 else code


def _exchange(
    rfd: int,
    wfd: int,
    chat: Callable[[list[dict], int], list[str]],
    limits: SandboxLimits,
    workdir: Path,
    exit_code: Callable[[float], int | None],
    release: Callable[[bool], None],
) -> str:
    """Serve the trial, then read its outcome; ``release(settled)`` ends the child's side (``settled``: the
    program reported or exited by itself, so its process is ending on its own)."""
    settled = False
    try:
        final, guard, violation = _serve(rfd, wfd, chat, limits)
        settled = True
        if final is None:
            raise _death(exit_code(5), workdir, limits, guard, violation)
        return _final(final, guard, violation, limits)
    finally:
        release(settled)
        os.close(rfd)
        with contextlib.suppress(OSError):
            os.close(wfd)


def _serve(
    rfd: int, wfd: int, chat: Callable[[list[dict], int], list[str]], limits: SandboxLimits
) -> tuple[dict[str, Any] | None, OfficialFailure | None, str | None]:
    """Answer chat requests until the child reports (its final message), dies (None), or runs out of time
    (raises); with the guard failure and violation seen on the way."""
    sel = selectors.DefaultSelector()
    sel.register(rfd, selectors.EVENT_READ)
    deadline = time.monotonic() + limits.wall_time
    buf = b""
    guard_failure: OfficialFailure | None = None
    violation: str | None = None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise OfficialFailure(
                    f"the program ran past the sandbox wall-clock limit of {limits.wall_time:g} s",
                    reason=Reason.TIMEOUT,
                )
            if not sel.select(timeout=min(left, 1.0)):
                continue
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                return None, guard_failure, violation
            buf += chunk
            if len(buf) > limits.max_response_bytes + 64 * 1024 and b"\n" not in buf:
                raise OfficialFailure(
                    f"the program sent more than {limits.max_response_bytes} bytes in one message",
                    reason=Reason.RESPONSE_TOO_LARGE,
                )
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                message = _decode(line)
                op = message.get("op")
                if op == "chat":
                    reply, guard_failure = _answer(chat, message, guard_failure)
                    with contextlib.suppress(BrokenPipeError):
                        os.write(wfd, json.dumps(reply).encode() + b"\n")
                    deadline = max(deadline, time.monotonic() + AFTER_CHAT_GRACE_S)
                elif op == "violation":  # stop at once: a program that catches the PermissionError pays no more
                    violation = violation or str(message.get("what"))
                    raise guard_failure or OfficialFailure(
                        f"the program was stopped by the sandbox: {violation}", reason=Reason.SANDBOX_VIOLATION
                    )
                else:
                    return message, guard_failure, violation
    finally:
        sel.close()


def _decode(line: bytes) -> dict[str, Any]:
    garbage = OfficialFailure("the program wrote garbage to the harness pipe", reason=Reason.SANDBOX_VIOLATION)
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise garbage from None
    if not isinstance(message, dict):
        raise garbage
    return message


def _answer(
    chat: Callable[[list[dict], int], list[str]], message: dict[str, Any], failure: OfficialFailure | None
) -> tuple[dict[str, Any], OfficialFailure | None]:
    """One chat call in the parent: official guard failures go back to the program as its official exception."""
    messages, n = message.get("messages"), message.get("n", 1)
    if not isinstance(messages, list) or not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 128:
        return {"error": "bad_request", "message": "messages must be a list and 1 <= n <= 128"}, failure
    from pcg_plugin.sandbox.official_api.guards import tokens_used

    before = tokens_used(chat)
    try:
        reply: dict[str, Any] = {"choices": list(chat(messages, n))}
    except OfficialFailure as guard:
        reply, failure = {"error": guard.reason, "message": guard.message}, failure or guard
    after = tokens_used(chat)
    reply["usage"] = [after[0] - before[0], after[1] - before[1]]
    return reply, failure


def _final(message: dict[str, Any], guard: OfficialFailure | None, violation: str | None, limits: SandboxLimits) -> str:
    op = message.get("op")
    if guard is not None:  # the official runner: a guard error is a failed trial, no file
        raise guard
    if violation is not None:
        raise OfficialFailure(f"the program was stopped by the sandbox: {violation}", reason=Reason.SANDBOX_VIOLATION)
    if op == "result":
        value = message.get("value")
        if not isinstance(value, str):
            raise OfficialFailure("the program's final response is not a string", reason=Reason.BAD_RETURN)
        if len(value.encode("utf-8", "surrogatepass")) > limits.max_response_bytes:
            raise OfficialFailure(
                f"the final response is over {limits.max_response_bytes} bytes", reason=Reason.RESPONSE_TOO_LARGE
            )
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise OfficialFailure(
                "the final response is not valid text (lone surrogates)", reason=Reason.BAD_RETURN
            ) from None
        return value
    if op == "bad_return":
        raise OfficialFailure(f"run() returned {message.get('type')}, not str", reason=Reason.BAD_RETURN)
    if op == "memory":
        raise OfficialFailure(
            f"the program ran out of its {limits.memory_bytes / GiB:g} GiB memory limit", reason=Reason.MEMORY
        )
    if op == "file_size":
        raise OfficialFailure(
            f"the program wrote more than {limits.max_output_bytes} bytes to one file", reason=Reason.SANDBOX_VIOLATION
        )
    if op in ("program_error", "violation_error"):
        raise OfficialFailure(f"{message.get('error')}\n{message.get('traceback', '')}", reason=Reason.PROGRAM_ERROR)
    raise OfficialFailure(f"unexpected message {op!r} from the program", reason=Reason.SANDBOX_VIOLATION)


def _death(
    code: int | None, workdir: Path, limits: SandboxLimits, guard: OfficialFailure | None, violation: str | None
) -> OfficialFailure:
    """The child closed the pipe without a result (``code``: its exit status, None when unknown): say why in the
    official terms."""
    if guard is not None:
        return guard
    if violation is not None:
        return OfficialFailure(f"the program was stopped by the sandbox: {violation}", reason=Reason.SANDBOX_VIOLATION)
    err = _tail(workdir / "stderr.txt")
    if code is not None and code < 0:
        sig = signal.Signals(-code)
        if sig == signal.SIGXCPU:
            return OfficialFailure(f"the program used its {limits.cpu_time} s CPU limit", reason=Reason.TIMEOUT)
        if sig == signal.SIGXFSZ:
            return OfficialFailure(
                f"the program wrote more than {limits.max_output_bytes} bytes to one file",
                reason=Reason.SANDBOX_VIOLATION,
            )
        return OfficialFailure(f"the program was killed by {sig.name}\n{err}", reason=Reason.KILLED)
    if "MemoryError" in err:
        return OfficialFailure(
            f"the program ran out of its {limits.memory_bytes / GiB:g} GiB memory limit", reason=Reason.MEMORY
        )
    return OfficialFailure(
        f"the program exited (status {code}) without a final response\n{err}", reason=Reason.PROGRAM_ERROR
    )


__all__ = ["START_METHODS", "SandboxLimits", "network_namespace_prefix", "run_program_trial", "use_start_method"]
