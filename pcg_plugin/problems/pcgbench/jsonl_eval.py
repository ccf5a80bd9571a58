"""The `pcg pcgbench eval` contract as a pure function: JSONL input lines in, output records out.

Input: one JSON object per line, `{"content": [[...]], "control": {...}}` (control optional); blank lines
are skipped. Output: one `{"valid", "reason", "info", "quality", "controllability"}` per input line, in
order, then `{"diversity": fraction, "per_item": [...]}` over the valid items in input order (HEAD greedy).
A line that is not JSON, not an object, or has no "content" is an invalid item with a reason naming the line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pcg_plugin.problems.pcgbench.evaluate import evaluate_item, set_diversity
from pcg_plugin.problems.pcgbench.grid_problem import GridProblem

# Kept out of the printed info: the level itself (the caller has it) is only there for pairwise diversity.
_HIDDEN_INFO = ("content",)


def _invalid(reason: str) -> dict[str, Any]:
    return {"valid": False, "reason": reason, "info": None, "quality": 0.0, "controllability": None}


def _item(problem: GridProblem, number: int, line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except ValueError as exc:
        return _invalid(f"line {number}: not JSON ({exc.msg})")
    if not isinstance(record, dict) or "content" not in record:
        return _invalid(f'line {number}: expected an object with "content"')
    return evaluate_item(problem, record["content"], record.get("control"))


def evaluate_lines(problem: GridProblem, lines: Iterable[str]) -> list[dict[str, Any]]:
    """The output records for `lines`: one per non-blank line, then the diversity summary."""
    items = [_item(problem, n, line) for n, line in enumerate(lines, 1) if line.strip()]
    infos = [it["info"] for it in items if it["valid"]]
    fraction, per_item = set_diversity(problem, infos) if infos else (0.0, [])
    out = [{**it, "info": None if it["info"] is None else
            {k: v for k, v in it["info"].items() if k not in _HIDDEN_INFO}} for it in items]
    return out + [{"diversity": fraction, "per_item": per_item}]
