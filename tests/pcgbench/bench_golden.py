"""Checks shared by the per-problem tests of BenchProblem variants: golden vectors and item properties."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names

FIXTURES = Path(__file__).parent / "fixtures"
TOL = 1e-9


def variants(problem: str) -> dict[str, BenchProblem]:
    """The registered variants of one problem (`loderunner` does not take `loderunnertile-*`)."""
    return {name: get_problem(name) for name in names() if name.startswith(f"{problem}-")}


def load_golden(problem: str) -> dict[str, Any]:
    return json.loads((FIXTURES / problem / "golden.json").read_text())


def assert_close(ours: Any, theirs: Any, where: str) -> None:
    """Equal structures, numbers to TOL (ints and floats compare as numbers: JSON keeps 0.0 and 0 apart)."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and set(ours) == set(theirs), f"{where}: keys {sorted(ours)} != {sorted(theirs)}"
        for k in theirs:
            assert_close(ours[k], theirs[k], f"{where}.{k}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list | tuple) and len(ours) == len(theirs), f"{where}: {ours!r} != {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_close(a, b, f"{where}[{i}]")
    elif isinstance(theirs, int | float) and not isinstance(theirs, bool):
        assert isinstance(ours, int | float) and math.isclose(ours, theirs, rel_tol=0, abs_tol=TOL), (
            f"{where}: {ours!r} != {theirs!r}"
        )
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def check_golden(problem: str, make_variant: Callable[[str], BenchProblem]) -> int:
    """Every golden case and diversity pair of `problem` agrees with the reference; returns the case count."""
    golden = load_golden(problem)
    variants = {name: make_variant(name) for name in {c["variant"] for c in golden["cases"]}}
    infos = []
    for n, case in enumerate(golden["cases"]):
        bench = variants[case["variant"]]
        where = f"{problem} case {n} ({case['variant']})"
        assert bench.content.check(case["content"]) is None, where
        inf = bench.info(case["content"])
        assert_close(inf, case["info"], f"{where} info")
        assert_close(bench.quality(inf), case["quality"], f"{where} quality")
        for control, value in case["controllability"]:
            assert_close(bench.controllability(inf, control), value, f"{where} controllability {control}")
        infos.append(inf)
    for a, b, value in golden["diversity"]:
        bench = variants[golden["cases"][a]["variant"]]
        assert_close(bench.diversity(infos[a], infos[b]), value, f"{problem} diversity {a}-{b}")
    return len(golden["cases"])


def check_item(bench: BenchProblem, content: Any, control: dict[str, int]) -> None:
    """A valid content evaluates without error, its info is JSON, quality and controllability lie in [0, 1]."""
    assert bench.content.check(content) is None
    inf = bench.info(content)
    assert json.loads(json.dumps(inf)) == inf
    assert 0.0 <= bench.quality(inf) <= 1.0
    assert 0.0 <= bench.controllability(inf, control) <= 1.0
    assert 0.0 <= bench.diversity(inf, inf) <= 1.0
