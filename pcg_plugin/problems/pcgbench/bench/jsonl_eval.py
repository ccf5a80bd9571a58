"""The `pcg pcgbench eval` contract as a generator: JSONL input lines in, output records out, one at a time.

Input: one JSON object per line, `{"content": <the variant's content in the benchmark's plain JSON form>,
"control": {...}}` (control optional); blank lines are skipped. Output: one `{"valid", "reason", "info",
"quality", "controllability"}` per input line, in order and as soon as it is evaluated (a caller prints each
before the next is read), then `{"diversity": fraction, "per_item": [...]}` over the valid items in input order
(HEAD greedy). A line that is not JSON, not an object, or has no "content" is an invalid item with a reason naming
the line; so is a content whose evaluation raised (the reason names the exception): one bad item never takes
the others with it. If the set diversity itself raises, the last record is `{"diversity": null, "per_item": [],
"error": "..."}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item, set_diversity, shown_info
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem


def _invalid(reason: str) -> dict[str, Any]:
    return {"valid": False, "reason": reason, "info": None, "quality": 0.0, "controllability": None}


def _item(problem: BenchProblem, number: int, line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return _invalid(f"line {number}: not JSON ({getattr(exc, 'msg', type(exc).__name__)})")
    if not isinstance(record, dict) or "content" not in record:
        return _invalid(f'line {number}: expected an object with "content"')
    try:
        return evaluate_item(problem, record["content"], record.get("control"))
    except Exception as exc:  # noqa: BLE001 - the item is named and scored 0; the rest of the file goes on
        return _invalid(f"line {number}: evaluation failed: {type(exc).__name__}: {exc}")


def evaluate_lines(problem: BenchProblem, lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The output records for `lines`: one per non-blank line as it is evaluated, then the diversity summary."""
    infos = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        item = _item(problem, n, line)
        if item["valid"]:
            infos.append(item["info"])
        yield {**item, "info": None if item["info"] is None else shown_info(item["info"])}
    try:
        fraction, per_item = set_diversity(problem, infos) if infos else (0.0, [])
    except Exception as exc:  # noqa: BLE001 - every item is already out; the summary names what failed
        yield {"diversity": None, "per_item": [], "error": f"diversity failed: {type(exc).__name__}: {exc}"}
        return
    yield {"diversity": fraction, "per_item": per_item}
