"""What a submission sees of an instance: the prompt placeholders, and the task a TrialLoop program receives.

A prompt file may use these placeholders (each replaced everywhere it occurs), the common ones:

| placeholder | replaced by (binary-v0, control path 57) |
| --- | --- |
| `<PROBLEM>` | the benchmark variant: `binary-v0` |
| `<CONTROL>` | the instance's control values: `path = 57` (talakat `bullets = [90, 98, 79, 91, 79]`; arcade's layout
  as rows of 0/1) |
| `<GOAL>` | what makes a content feasible and what the control asks, in words (`BenchProblem.goal`) |
| `<EXAMPLES>` | the variant's example contents (`BenchProblem.examples`, e.g. the benchmark README's level and its two
  mirror images), each as a reply would write it with its measured control values |

and the content kind's own (`ContentKind.placeholders`): for grids `<WIDTH>` / `<HEIGHT>` (columns / rows:
`14` / `14`) and `<LEGEND>` (one `code = tile` line per tile: `0 = solid` / `1 = empty`).

The expected answer is what the kind's `parse` reads (for grids: one fenced block, the last one is read, of HEIGHT
rows of WIDTH codes, or a JSON list of lists). A program's `run(ctx, task)` gets `task` as a JSON object with the
same facts: `problem`, `instance`, `control` (the benchmark's own JSON), `goal`, `examples` (contents), and the
kind's `facts` (for grids `kind`, `width`, `height` and `legend`, code -> tile name).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control

NO_EXAMPLES = "(no example level for this variant)"


def control_text(control: Control) -> str:
    """A control in words: `key = value` per key (a list as JSON); a map (arcade's layout) as rows of 0/1."""
    if isinstance(control, Mapping):
        return ", ".join(
            f"{key} = {json.dumps(value) if isinstance(value, list) else value}" for key, value in control.items()
        )
    return "\n".join("".join(str(v) for v in row) for row in control)


def examples_text(problem: BenchProblem) -> str:
    """Each example with the control values it meets (measured by the evaluator itself), where its info measures
    them (an arcade layout map is not a measurement: those examples are shown bare)."""
    parts = []
    for n, content in enumerate(problem.examples, 1):
        inf = evaluate_item(problem, content)["info"]
        measured = control_text({key: inf[key] for key in problem.control_space if key in inf})
        parts.append(f"Example {n}{f' ({measured})' if measured else ''}:\n{problem.content.show(content)}")
    return "\n\n".join(parts) or NO_EXAMPLES


def _given(value: str) -> Callable[[], str]:
    """A value already computed, in the lazy form `render_prompt` calls (bound here, not to a loop variable)."""
    return lambda: value


def render_prompt(text: str, problem: BenchProblem, control: Control) -> str:
    """The prompt file with every placeholder replaced for one instance (`<EXAMPLES>` is computed only if used)."""
    kind = problem.content.placeholder_values()
    shown = problem.show_control or control_text
    values: dict[str, Callable[[], str]] = {
        "<PROBLEM>": lambda: problem.name,
        "<CONTROL>": lambda: shown(control),
        "<GOAL>": lambda: problem.goal,
        "<EXAMPLES>": lambda: examples_text(problem),
        **{key: _given(value) for key, value in kind.items()},
    }
    for placeholder, value in values.items():
        if placeholder in text:
            text = text.replace(placeholder, value())
    return text


def task_json(problem: BenchProblem, instance: str, control: Control) -> str:
    """The `task` string a TrialLoop program's `run(ctx, task)` receives."""
    return json.dumps(
        {
            "problem": problem.name,
            "instance": instance,
            "control": control,
            **problem.content.facts(),
            "goal": problem.goal,
            "examples": list(problem.examples),
        }
    )
