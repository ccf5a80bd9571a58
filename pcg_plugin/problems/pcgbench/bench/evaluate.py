"""Per-item and per-set evaluation: the benchmark's info/quality/controllability and its set diversity.

A content the variant's kind rejects (`ContentKind.check`: wrong type, shape or alphabet) is a zero with a
named reason, never an exception; so is one the benchmark's space accepts but its evaluation raises on, where
that depends on more than the shape (`errors.BenchmarkFails`, raised by `info` or `controllability`: reason
`benchmark_fails`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pcg_plugin.errors import BenchmarkFails
from pcg_plugin.problems.pcgbench.bench.greedy_diversity import greedy_8ad18b6, greedy_head
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control, Info, to_plain

GREEDIES = {"00b96f5": greedy_head, "8ad18b6": greedy_8ad18b6}
# Kept out of printed and recorded info: the content itself (the caller has it), there only for pairwise diversity.
HIDDEN_INFO = ("content",)


def evaluate_item(problem: BenchProblem, content: Any, control: Control | None = None) -> dict[str, Any]:
    """{valid, reason, info, quality, controllability} for one content and a control in the benchmark's own JSON;
    controllability is None without control."""
    reason = problem.content.check(content)
    if reason is None and control is not None:
        reason = problem.control_problem(control)
    if reason is None:
        try:
            inf = problem.info(to_plain(content))
            quality = float(problem.quality(inf))
            controllability = None if control is None else float(problem.controllability(inf, control))
        except BenchmarkFails as exc:
            reason = f"benchmark fails: {exc}"
    if reason is not None:
        return {
            "valid": False,
            "reason": reason,
            "info": None,
            "quality": 0.0,
            "controllability": 0.0 if control is not None else None,
        }
    return {"valid": True, "reason": None, "info": inf, "quality": quality, "controllability": controllability}


def shown_info(inf: Info) -> Info:
    """The info without the content it carries for diversity."""
    return {k: v for k, v in inf.items() if k not in HIDDEN_INFO}


def set_diversity(problem: BenchProblem, infos: Sequence[Info], version: str = "00b96f5") -> tuple[float, list[float]]:
    """The benchmark's diversity fraction and per-item values over `infos` (an empty set is 0.0, [])."""
    return GREEDIES[version](list(infos), problem.diversity)
