"""JSON text that is valid UTF-8 whatever strings it carries.

A lone surrogate (``"\\ud83d"``: valid in JSON and in a Python string, not in UTF-8; a reply cut inside an emoji)
is written as its ``\\uXXXX`` escape, everything else as it is (non-ASCII unescaped): ``json.loads`` gives the
very same value back, and the text can be stored in SQLite, sent over a pipe or written to a UTF-8 file."""

from __future__ import annotations

import json
import re
from typing import Any

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate as its ``\\uXXXX`` escape (within JSON: the escape of the same string)."""
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **kwargs)`` with lone surrogates escaped."""
    return escape_surrogates(json.dumps(value, ensure_ascii=False, **kwargs))
