"""The official log line format ``[YYYY-MM-DD HH:MM:SS] message`` and log file name."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path


def log_file_name(team_name: str, now: datetime | None = None) -> str:
    """``<team>_raw_<%Y_%m_%d_%H_%M_%S_%Z%z>.log``: the official datetime is naive, so it ends in ``_.log``."""
    now = now or datetime.now()
    return f"{team_name}_raw_{now.strftime('%Y_%m_%d_%H_%M_%S_%Z%z')}.log"


def write_log(path: Path | None, message: str) -> None:
    """Append one official log line; no path (the sandbox child without a log) logs nothing."""
    if path is None:
        return
    stamp = datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"[{stamp}] {message}\n")
