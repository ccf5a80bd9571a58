"""How each trial of a participant program starts (``--pcg-sandbox-start``): one setting of the process, for
every problem that runs programs in ``pcg_plugin.sandbox.run``."""

from __future__ import annotations

START_METHODS = ("fork", "exec")
_method = ["fork"]


def use_start_method(method: str) -> None:
    """``fork``: each trial is forked from this process's fork server (``pcg_plugin.sandbox.forks``); ``exec``: a
    new interpreter per trial (the earlier way, about 50 ms more per trial). Both run the same child code with
    the same limits, folders and environment."""
    if method not in START_METHODS:
        raise ValueError(f"--pcg-sandbox-start: {method!r} is not one of {', '.join(START_METHODS)}")
    _method[0] = method


def start_method() -> str:
    return _method[0]
