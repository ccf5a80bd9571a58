"""The reference's prompt texts, as package data (``data/*.json``, see ``data/SOURCE.md``), and their slots.

A text's slots are written ``<<name>>``; ``fill`` replaces them in one pass, so a value that itself holds
``<<...>>`` (a model's reply) is never filled again.
"""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from importlib import resources
from typing import Any

_SLOT = re.compile(r"<<(\w+)>>")


@cache
def texts(game: str) -> dict[str, Any]:
    """``askguess``, ``spyfall`` or ``tofukingdom``: that game's texts."""
    return json.loads(resources.files(__package__).joinpath("data", f"{game}.json").read_text(encoding="utf-8"))


def fill(template: str, **slots: object) -> str:
    """``template`` with each ``<<slot>>`` replaced by ``str(value)`` (Python's ``str``, as f-strings do)."""

    def one(match: re.Match[str]) -> str:
        return str(slots[match.group(1)])

    return _SLOT.sub(one, template)


@lru_cache(maxsize=1)
def askguess_labels() -> tuple[str, ...]:
    """The 100 words of ``askguess/labels.json``, in its order, typo ``cra`` kept."""
    raw = resources.files(__package__).joinpath("data", "askguess_labels.json").read_text(encoding="utf-8")
    return tuple(json.loads(raw))


@lru_cache(maxsize=1)
def spyfall_pairs() -> tuple[tuple[str, str], ...]:
    """The 11 ``spy word,villager word`` pairs of ``spyfall/labels.txt``, in its order."""
    raw = resources.files(__package__).joinpath("data", "spyfall_labels.txt").read_text(encoding="utf-8")
    pairs = [line.strip().split(",") for line in raw.splitlines() if line.strip()]
    return tuple((a, b) for a, b in pairs)
