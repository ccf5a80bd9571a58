"""Checks every benchmark variant's golden file the same way (reference outputs under fixtures/<problem>/).

A golden file (written by a `fixtures/make_*_golden.py` run against pcg_benchmark 00b96f5, see the folder's
SOURCE.md) holds contents, controls, the reference's info, quality and controllability per content, the full
pairwise diversity matrix and the set diversity. Info values must match exactly (as JSON), the floats to 1e-9.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pcg_plugin.problems.pcgbench.bench.greedy_diversity import greedy_head
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem

FIXTURES = Path(__file__).parent / "fixtures"
TOL = 1e-9


def load(problem: str, variant: str) -> dict[str, Any]:
    return json.loads((FIXTURES / problem / f"{variant}.json").read_text())


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def check(bench: BenchProblem, golden: dict[str, Any]) -> list[dict[str, Any]]:
    """Assert agreement with the golden file; returns our infos (for further checks)."""
    infos = []
    for n, (content, control, ref) in enumerate(
        zip(golden["contents"], golden["controls"], golden["items"], strict=True)
    ):
        assert bench.content.check(content) is None, n
        inf = bench.info(content)
        infos.append(inf)
        mine = as_json(inf)
        for key, value in ref["info"].items():
            assert mine[key] == value, (n, key)
        assert abs(bench.quality(inf) - ref["quality"]) <= TOL, n
        assert abs(bench.controllability(inf, control) - ref["controllability"]) <= TOL, n
    for i, a in enumerate(infos):
        for j, b in enumerate(infos):
            assert abs(bench.diversity(a, b) - golden["pair_diversity"][i][j]) <= TOL, (i, j)
    stored = [as_json(inf) for inf in infos[:8]]  # what run records keep: the same pairs after a JSON round trip
    assert [bench.diversity(a, b) for a in stored for b in stored] == [
        bench.diversity(a, b) for a in infos[:8] for b in infos[:8]
    ]
    fraction, per_item = greedy_head(infos, bench.diversity)
    assert abs(fraction - golden["set_diversity"]["fraction"]) <= TOL
    assert all(abs(u - v) <= TOL for u, v in zip(per_item, golden["set_diversity"]["per_item"], strict=True))
    return infos
