"""Code extraction exactly as the official npm ``extractCode``: last fenced block, literal calls only."""

from __future__ import annotations

import re

_FENCE = re.compile(r"```([^`]+)```")


def _call_pattern(prefix: str) -> re.Pattern[str]:
    # Official pattern with its quirks: '|' inside the classes, spaces only after the comma, \d* may be empty.
    return re.compile(re.escape(prefix) + r"\(['|\"]b[1|3][1|3]['|\"], *[0-9]*\)")


def extract_code(response: str, prefix: str = "drop_block") -> str | None:
    """The official extracted text (one call per line, quotes normalised, lowercased), or None for "no code".

    Only the last complete backtick-free fenced block counts; comments are not recognised; variables,
    keywords and floats are silently dropped (they do not match).
    """
    last = None
    for match in _FENCE.finditer(response):  # the last one counts
        last = match
    if last is None:
        return None
    calls = _call_pattern(prefix).findall(last.group(0))
    if not calls:
        return None
    return "".join(call.replace('"', "'") + "\n" for call in calls).lower()
