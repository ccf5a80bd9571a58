"""The run folder: its id, its default place, and the folder a running trial writes its files in."""

from __future__ import annotations

import contextlib
import contextvars
import secrets
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

DEFAULT_OUT = "pcg-runs"  # the run folder is <rootdir>/pcg-runs/<run id> unless --pcg-out is given


def new_run_id(now: datetime | None = None) -> str:
    """``20261122-180000-ab12cd``: sortable by time, unique across parallel runs (not a seed)."""
    now = now or datetime.now()
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


_trial_folder: contextvars.ContextVar[Path | None] = contextvars.ContextVar("pcg_trial_folder", default=None)


def trial_folder(run_dir: Path) -> Path:
    """Where the running trial writes its files: the run folder, or the folder its runner gave it (``writing_to``:
    a cluster's actor with trials in flight stages each trial apart, so each sends back only its own files)."""
    return _trial_folder.get() or run_dir


@contextlib.contextmanager
def writing_to(folder: Path) -> Iterator[None]:
    """The trial running on this thread writes its files under ``folder`` (``trial_folder``) until the block ends."""
    token = _trial_folder.set(folder)
    try:
        yield
    finally:
        _trial_folder.reset(token)
