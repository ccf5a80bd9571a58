"""What a submission sees of an instance: the prompt placeholders, and the task a TrialLoop program receives.

A prompt file may use these placeholders (each replaced everywhere it occurs):

| placeholder | replaced by (binary-v0, control path 57) |
| --- | --- |
| `<PROBLEM>` | the benchmark problem: `binary-v0` |
| `<WIDTH>` / `<HEIGHT>` | columns / rows of the grid: `14` / `14` |
| `<LEGEND>` | one `code = tile` line per tile: `0 = solid` / `1 = empty` |
| `<CONTROL>` | the instance's control values: `path = 57` |
| `<GOAL>` | what makes a level feasible and what the control asks, in words (from the benchmark's formulas) |
| `<EXAMPLES>` | the benchmark README's feasible level and its two mirror images, each in a fenced block with its
  measured control values |

The expected answer ends with one fenced block (the last one is read) of HEIGHT rows of WIDTH digits, or a JSON
list of lists (`parse.py`). A program's `run(ctx, task)` gets `task` as a JSON object with the same facts:
`problem`, `instance`, `control`, `width`, `height`, `legend` (code -> tile name), `goal`, `examples` (grids).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from pcg_plugin.problems.pcgbench.content import Grid
from pcg_plugin.problems.pcgbench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.examples import README_LEVELS, mirrored
from pcg_plugin.problems.pcgbench.grid_problem import GridProblem

PLACEHOLDERS = ("<PROBLEM>", "<WIDTH>", "<HEIGHT>", "<LEGEND>", "<CONTROL>", "<GOAL>", "<EXAMPLES>")

GOALS = {
    "binary-v0": ("A good maze has all its empty tiles connected in one region, and the longest shortest path "
                  "between two empty tiles is at least 28 steps. The control `path` asks for that longest path to "
                  "be within 7 steps of its value."),
    "sokoban-v0": ("A good level has exactly one player, at least one crate and as many targets as crates, and "
                   "can be solved (every crate pushed onto a target) in at least 10 moves. The player and the crates "
                   "never start on a target. The control `crates` asks for that many crates, give or take one."),
    "zelda-v0": ("A good dungeon has all its non-wall tiles connected, exactly one player, one key and one door, "
                 "and 2 to 4 enemies. The key must be reachable from the player without crossing the door, the door "
                 "reachable from the key, and the two walks must together be at least 18 steps long. The controls "
                 "`player_key` and `key_door` ask for the length of each walk, within 2 steps."),
}  # fmt: skip


def legend_text(problem: GridProblem) -> str:
    return "\n".join(f"{code} = {name}" for code, name in enumerate(problem.legend))


def control_text(control: Mapping[str, int]) -> str:
    return ", ".join(f"{key} = {value}" for key, value in control.items())


def grid_text(grid: Grid) -> str:
    """A level as the answer should look: rows of digits in a fenced block."""
    return "```\n" + "\n".join("".join(str(v) for v in row) for row in grid) + "\n```"


def example_levels(problem: GridProblem) -> list[Grid]:
    return mirrored(README_LEVELS[problem.name])


def examples_text(problem: GridProblem) -> str:
    """Each example level with the control values it meets (measured by the evaluator itself)."""
    parts = []
    for n, grid in enumerate(example_levels(problem), 1):
        inf = evaluate_item(problem, grid)["info"]
        measured = control_text({key: inf[key] for key in problem.control_space})
        parts.append(f"Example {n} ({measured}):\n{grid_text(grid)}")
    return "\n\n".join(parts)


def render_prompt(text: str, problem: GridProblem, control: Mapping[str, int]) -> str:
    """The prompt file with every placeholder replaced for one instance (`<EXAMPLES>` is computed only if used)."""
    values = {"<PROBLEM>": lambda: problem.name, "<WIDTH>": lambda: str(problem.cols),
              "<HEIGHT>": lambda: str(problem.rows), "<LEGEND>": lambda: legend_text(problem),
              "<CONTROL>": lambda: control_text(control), "<GOAL>": lambda: GOALS[problem.name],
              "<EXAMPLES>": lambda: examples_text(problem)}  # fmt: skip
    for placeholder, value in values.items():
        if placeholder in text:
            text = text.replace(placeholder, value())
    return text


def task_json(problem: GridProblem, instance: str, control: Mapping[str, int]) -> str:
    """The `task` string a TrialLoop program's `run(ctx, task)` receives."""
    return json.dumps({"problem": problem.name, "instance": instance, "control": dict(control),
                       "width": problem.cols, "height": problem.rows,
                       "legend": {str(code): name for code, name in enumerate(problem.legend)},
                       "goal": GOALS[problem.name], "examples": example_levels(problem)})  # fmt: skip
