"""The run folder: its id and its default place."""

from __future__ import annotations

import secrets
from datetime import datetime

DEFAULT_OUT = "pcg-runs"  # the run folder is <rootdir>/pcg-runs/<run id> unless --pcg-out is given


def new_run_id(now: datetime | None = None) -> str:
    """``20261122-180000-ab12cd``: sortable by time, unique across parallel runs (not a seed)."""
    now = now or datetime.now()
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
