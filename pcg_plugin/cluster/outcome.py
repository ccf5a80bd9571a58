"""What one trial sends back from an actor to the driver: its record (JSON), the files it wrote under its
node-local staging copy of the run folder, and how it failed (setup or call), as plain picklable data."""

from __future__ import annotations

import pickle
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _pytest.outcomes import Failed, OutcomeException, Skipped, XFailed

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.errors import RemoteError


@dataclass(frozen=True)
class Outcome:
    """One trial's result as it left the actor."""

    record: str | None = None  # the record's to_json()
    failed_in: str | None = None  # "setup" or "call" when the trial raised
    error: bytes | None = None  # the pickled exception (or a RemoteError standing in for it)
    files: tuple[tuple[str, bytes], ...] = ()  # (path relative to the run folder, content)
    worker: str = ""  # which actor ran it (node id and pid), for the run's worker facts
    attempt: int = 1
    calls: tuple[Any, ...] | None = (
        None  # the trial's model calls (core.records.calls.Call): its transcript on the driver
    )

    def exception(self) -> BaseException | None:
        if self.error is None:
            return None
        exc = pickle.loads(self.error)
        return exc.rebuild() if isinstance(exc, _PytestOutcome) else exc


@dataclass(frozen=True)
class _PytestOutcome:
    """pytest.fail/skip/xfail raised on a node: their exceptions do not pickle, so they travel as what makes them."""

    name: str  # Failed, Skipped or XFailed (pytest names their module "builtins", so the name is looked up here)
    msg: str | None
    pytrace: bool

    def rebuild(self) -> BaseException:
        cls = {c.__name__: c for c in (Failed, Skipped, XFailed)}.get(self.name, Failed)
        return cls(msg=self.msg, pytrace=self.pytrace)


def pack_error(exc: BaseException) -> bytes:
    """The exception itself when it pickles and unpickles (pytest's outcomes, the project's errors), else a
    RemoteError carrying the remote traceback, so a bug on a node still shows where it happened."""
    if isinstance(exc, OutcomeException):
        return pickle.dumps(_PytestOutcome(type(exc).__name__, exc.msg, exc.pytrace))
    try:
        data = pickle.dumps(exc)
        pickle.loads(data)
        return data
    except Exception:  # noqa: BLE001 - any exception that cannot travel is described instead
        text = "".join(traceback.format_exception(exc))
        return pickle.dumps(RemoteError(f"{type(exc).__name__}: {exc}\n(on the cluster node)\n{text}"))


def take_files(root: Path) -> tuple[tuple[str, bytes], ...]:
    """Every file under ``root`` (a trial's staging run folder), read and removed; sorted by path."""
    found = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
    out = tuple((p.relative_to(root).as_posix(), p.read_bytes()) for p in found)
    for p in found:
        p.unlink()
    return out


def put_files(run_dir: Path, files: tuple[tuple[str, bytes], ...]) -> None:
    """The driver writes a trial's files into the real run folder (refusing a path that leaves it)."""
    base = run_dir.resolve()
    for rel, data in files:
        target = (base / rel).resolve()
        if not target.is_relative_to(base):
            raise ValueError(f"a trial's file {rel!r} lies outside the run folder {base}")
        atomic_write(target, data)
