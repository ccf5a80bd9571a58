"""Per-item and per-set evaluation: the benchmark's info/quality/controllability and its set diversity.

A content the variant's kind rejects (`ContentKind.check`: wrong type, shape or alphabet) is a zero with a
named reason, never an exception: the benchmark itself would raise (or, for extra rows/columns, silently
accept), neither of which a competition can use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Info, to_plain
from pcg_plugin.problems.pcgbench.bench.content import check_control
from pcg_plugin.problems.pcgbench.bench.greedy_diversity import greedy_8ad18b6, greedy_head

GREEDIES = {"00b96f5": greedy_head, "8ad18b6": greedy_8ad18b6}
# Kept out of printed and recorded info: the content itself (the caller has it), there only for pairwise diversity.
HIDDEN_INFO = ("content",)


def evaluate_item(problem: BenchProblem, content: Any, control: Mapping[str, int] | None = None) -> dict[str, Any]:
    """{valid, reason, info, quality, controllability} for one content; controllability is None without control."""
    reason = problem.content.check(content)
    if reason is None and control is not None:
        reason = check_control(control, problem.control_space)
    if reason is not None:
        return {"valid": False, "reason": reason, "info": None, "quality": 0.0,
                "controllability": 0.0 if control is not None else None}
    inf = problem.info(to_plain(content))
    return {
        "valid": True, "reason": None, "info": inf, "quality": float(problem.quality(inf)),
        "controllability": None if control is None else float(problem.controllability(inf, control)),
    }


def shown_info(inf: Info) -> Info:
    """The info without the content it carries for diversity."""
    return {k: v for k, v in inf.items() if k not in HIDDEN_INFO}


def set_diversity(problem: BenchProblem, infos: Sequence[Info], version: str = "00b96f5") -> tuple[float, list[float]]:
    """The benchmark's diversity fraction and per-item values over `infos` (an empty set is 0.0, [])."""
    return GREEDIES[version](list(infos), problem.diversity)
