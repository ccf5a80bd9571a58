"""Compare two Science Birds runs trial by trial: how many trials differ in each outcome, and whether the scores do.

    python scripts/checks/compare_results.py A/results.json B/results.json

For checks that a speed change changed no result: run the same replay with two trees and compare. Submissions
are paired by name (a submission in one run only is named as such). To compare two runs' scores with paired
bootstrap intervals, for any problem, use `pcg compare RUN_A RUN_B` (pcg_plugin/core/results/compare.py).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

FIELDS = ("reason", "total_blocks", "moving_blocks", "sta", "sim", "top", "probs")


def trials(results: dict[str, Any]) -> dict[tuple[str, str, int], dict[str, Any]]:
    """Every trial of a results.json by (submission, letter, trial)."""
    return {
        (sub["name"], letter, t["trial"]): t
        for sub in results["submissions"]
        for letter, block in sub["letters"].items()
        for t in block["trials"]
    }


def differences(a: dict[str, Any], b: dict[str, Any]) -> dict[str, int]:
    """Per outcome field, the number of trials whose values differ (a trial missing on one side counts as 'missing')."""
    ta, tb = trials(a), trials(b)
    out = {field: sum(ta[k].get(field) != tb[k].get(field) for k in ta.keys() & tb.keys()) for field in FIELDS}
    out["missing"] = len(ta.keys() ^ tb.keys())
    return out


def scores(results: dict[str, Any]) -> list[tuple[str, str]]:
    return [(sub["name"], sub["normalized_score"]) for sub in results["submissions"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    args = parser.parse_args()
    a, b = (json.loads(p.read_text()) for p in (args.a, args.b))
    print(f"{len(trials(a))} and {len(trials(b))} trials; trials that differ: {differences(a, b)}")
    same = scores(a) == scores(b)
    print("scores: the same, digit for digit" if same else "scores differ:")
    if not same:
        sa, sb = dict(scores(a)), dict(scores(b))
        for name in list(sa) + [n for n in sb if n not in sa]:
            print(f"    {name}: {sa.get(name, '(only in B)')} | {sb.get(name, '(only in A)')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
