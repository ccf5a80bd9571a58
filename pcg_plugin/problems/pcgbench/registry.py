"""The three PCG Benchmark problems the paper's LLM appendix uses, by their benchmark names."""

from __future__ import annotations

from pcg_plugin.problems.pcgbench.binary import BINARY
from pcg_plugin.problems.pcgbench.grid_problem import GridProblem
from pcg_plugin.problems.pcgbench.sokoban import SOKOBAN
from pcg_plugin.problems.pcgbench.zelda import ZELDA

PROBLEMS: dict[str, GridProblem] = {p.name: p for p in (BINARY, SOKOBAN, ZELDA)}


def get_problem(name: str) -> GridProblem:
    """The problem called `name` (e.g. "binary-v0"); a KeyError lists the known names."""
    try:
        return PROBLEMS[name]
    except KeyError:
        raise KeyError(f"unknown PCG Benchmark problem {name!r}; known: {', '.join(PROBLEMS)}") from None
