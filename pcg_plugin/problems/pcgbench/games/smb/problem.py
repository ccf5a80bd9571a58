"""smb and smbtile: a Super Mario Bros level played by the benchmark's agents (pcg_benchmark 00b96f5).

An smb content is W slice ids (`smb_kind.SliceIds`), an smbtile content a 16×W grid of tile codes
(`smb_kind.TileRows`); both become the same level string (`smb_level.py`). `info` measures the level; when it
passes the gate (mostly empty, pipes paired, rows no noisier than their caps, few floating enemies) it is
played by the heuristic agent and, when that one does not reach the flag, by A* (`smb_engine.py`), for
ceil(W/10) seconds of game time, A* with 100 iterations a plan (50 below width 30). A level without any
enemy is an invalid content (`no_enemy`): the benchmark divides by zero on it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pcg_plugin.problems.pcgbench.bench.info_cache import cached
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control, Info
from pcg_plugin.problems.pcgbench.games.smb import level as lv
from pcg_plugin.problems.pcgbench.games.smb.engine import play_astar, play_heuristic
from pcg_plugin.problems.pcgbench.games.smb.kind import SliceIds, tile_rows


def played(rows: Sequence[str], seconds: int, iterations: float) -> dict[str, Any]:
    """The play-through's info fields: the heuristic agent's run if it reaches the flag, else A*'s."""
    text = "\n".join(rows) + "\n"
    result = play_heuristic(text, seconds)
    if result.complete < 1.0:
        result = play_astar(text, seconds, iterations)
    return {
        "complete": result.complete,
        "enemies": max(0, result.kills - result.fall_kills),
        "coins": result.coins,
        "jumps": result.jumps,
        "actions": result.actions,
        "locations": result.locations,
    }


def _problem(name: str, width: int, kind: Any, level: Any, empty: Any, tiles: bool) -> BenchProblem:
    seconds = math.ceil(width / 10)
    iterations = 100 / (int(width < 30) + 1)
    height = lv.HEIGHT
    errors = lv.control_errors(width)

    def info(content: Any) -> Info:
        rows = level(content)
        out = lv.static_info(rows, empty(content), width, bottom_floats=tiles)
        if tiles:
            out["height"] = len(content)
        if lv.passes_gate(out):
            out.update(played(rows, seconds, iterations))
        return out

    def controllability(inf: Info, control: Control) -> float:
        return lv.controllability(inf, control, width)

    def diversity(a: Info, b: Info) -> float:
        return lv.diversity(a, b, a.get("height", height))

    space = lv.control_space(width)
    goal = (
        f"Mario starts at the left and must reach the flag at the right within {seconds} seconds of game "
        f"time, played by the benchmark's agent (always run right and jump, then A* if that fails). The level "
        f"is played only if more than half of it is empty ({'tiles' if tiles else 'slices'} 0), every pipe is "
        f"two tiles wide, no row changes tile more often than the benchmark's per-row noise cap, and fewer "
        f"than 10% of the enemies float; a level needs at least one enemy. Quality rewards all of that and, "
        f"four times over, how far the agent gets. The controls ask for the number of enemies killed (within "
        f"{errors['enemies']}), jumps (within {errors['jumps']}) and coins collected (within "
        f"{errors['coins']}) on the way."
    )
    examples = (load_examples()[name]["content"],) if name in load_examples() else ()
    return BenchProblem(
        name=name,
        content=kind,
        control_space=space,
        info=cached(info),
        quality=lv.quality,
        controllability=controllability,
        diversity=diversity,
        goal=goal,
        examples=examples,
    )


def make(name: str, *, width: int) -> BenchProblem:
    """smb at one width: the benchmark's MarioProblem(width=...)."""
    kind = SliceIds(width)
    problem = _problem(name, width, kind, lv.slice_level, lv.smb_empty, tiles=False)
    kind.locate = _locator(problem)
    return problem


def make_tile(name: str, *, width: int, height: int = lv.HEIGHT) -> BenchProblem:
    """smbtile at one width: the benchmark's MarioProblem(width=...) over a 16-row tile grid."""
    kind = tile_rows(width, height)
    problem = _problem(name, width, kind, lv.tile_level, lv.tile_empty, tiles=True)
    object.__setattr__(kind, "locate", _locator(problem))
    return problem


def _locator(problem: BenchProblem) -> Any:
    """The agent's path for the report's picture (the cached info's locations)."""
    return lambda content: problem.info(content)["locations"]


@lru_cache(maxsize=1)
def load_examples() -> dict[str, dict[str, Any]]:
    """Per variant, a golden content of quality 1 (see data/smb/SOURCE.md)."""
    return json.loads((lv.DATA / "examples.json").read_text())
