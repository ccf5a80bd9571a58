"""Reading `--pcg-*` options: the command line wins over the ini file."""

from __future__ import annotations

from typing import Any

import pytest


def option_value(config: pytest.Config, dest: str) -> Any:
    """An option's value: the command line wins over the ini file; None when neither sets it."""
    value = config.getoption(dest, None)
    if value is None:
        ini = config.getini(dest)
        value = ini if ini not in (None, "", []) else None
    return value


def flag(config: pytest.Config, dest: str) -> bool:
    """A switch (``--pcg-rules``) set on the command line or in the ini file (``pcg_rules = true``)."""
    if config.getoption(dest, False):
        return True
    try:
        return bool(config.getini(dest))
    except ValueError:  # the plugin that declares the ini key is disabled (-p no:pcg_rules)
        return False
