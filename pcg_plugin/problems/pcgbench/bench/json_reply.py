"""Reading a JSON content (a list of rows, a rule object) out of the last fenced block of an LLM reply."""

from __future__ import annotations

import json
from typing import Any

from pcg_plugin.problems.pcgbench.bench.parse import last_fenced_block

NO_BLOCK = "no block: the reply has no fenced block (```...```)"


def parse_json_block(reply: str, what: str) -> tuple[Any, str | None]:
    """(value, None) from the last fenced block's JSON, or (None, reason): "no block: …" or "not <what>: …"."""
    body = last_fenced_block(reply)
    if body is None:
        return None, NO_BLOCK
    try:
        return json.loads(body), None
    except (ValueError, RecursionError) as err:
        return None, f"not {what}: the fenced block is not valid JSON ({str(err)[:80]})"
