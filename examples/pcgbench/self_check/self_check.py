"""Ask for a level, check its form, and ask once more with the mistake named if it is wrong.

Works on every PCG Benchmark variant: a tile grid (the task has a `legend`) is asked as rows of codes and checked
for its size and codes; any other content (slice ids, spawner rows, a rule set, drops, a floor plan, letters) is
asked as JSON like the task's `examples` and checked to be a non-empty block (valid JSON where it starts like
JSON).
"""

import json
import re

from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_context import TrialContext
from llms4pcg.models.trial_loop import TrialLoop

FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)


def grid_problem(answer: str, width: int, height: int, codes: set) -> str:
    """What is wrong with the answer's last code block as a grid ("" when it looks like a level)."""
    blocks = FENCE.findall(answer)
    if not blocks:
        return "there is no code block fenced by triple backticks"
    wide = any(len(code) > 1 for code in codes)  # more than ten tiles: codes separated by spaces
    rows = [line.split() if wide else list(line.strip()) for line in blocks[-1].splitlines() if line.strip()]
    if len(rows) != height:
        return f"the level has {len(rows)} rows, it needs {height}"
    for n, row in enumerate(rows, 1):
        if len(row) != width:
            return f"row {n} has {len(row)} {'codes' if wide else 'digits'}, it needs {width}"
        if any(code not in codes for code in row):
            return f"row {n} uses a character that is not one of the tile codes {', '.join(sorted(codes, key=int))}"
    return ""


def block_problem(answer: str) -> str:
    """What is wrong with the answer's last code block ("" when it has one, and its JSON parses where it starts
    like JSON; a word of letters or lines of numbers are fine for the variants that read them)."""
    blocks = FENCE.findall(answer)
    if not blocks or not blocks[-1].strip():
        return "there is no code block fenced by triple backticks, or it is empty"
    body = blocks[-1].strip()
    if body[0] in "[{":
        try:
            json.loads(body)
        except ValueError as exc:
            return f"the code block is not valid JSON ({exc})"
    return ""


def grid_prompt(t: dict) -> str:
    legend = "\n".join(f"{code} = {name}" for code, name in t["legend"].items())
    control = ", ".join(f"{k} = {v}" for k, v in t["control"].items())
    cell, codes = ("one code", "codes separated by spaces") if len(t["legend"]) > 10 else ("one digit", "digits")
    return (
        f"Design one level of {t['problem']}: a grid of {t['height']} rows and {t['width']} columns, each "
        f"cell {cell}:\n{legend}\n\n{t['goal']}\n\nThe level must meet: {control}.\n"
        f"Give it as {t['height']} lines of {t['width']} {codes} in one code block fenced by triple backticks."
    )


def json_prompt(t: dict) -> str:
    facts = {k: v for k, v in t.items() if k not in ("problem", "instance", "control", "goal", "examples")}
    example = (
        f"\nAn example of the form (not of a good answer):\n```json\n{json.dumps(t['examples'][0])}\n```\n"
        if t["examples"]
        else ""
    )
    return (
        f"Design one content for the benchmark problem {t['problem']}. Its facts: {json.dumps(facts)}\n\n"
        f"{t['goal']}\n\nThe content must meet this control: {json.dumps(t['control'])}.\n{example}"
        "Give the content as JSON in one code block fenced by triple backticks."
    )


class SelfCheck(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, task: str) -> str:
        t = json.loads(task)
        grid = "legend" in t and "width" in t and "height" in t
        messages = [{"role": "user", "content": grid_prompt(t) if grid else json_prompt(t)}]
        answer = chat_with_llm(ctx, messages)[0]
        mistake = grid_problem(answer, t["width"], t["height"], set(t["legend"])) if grid else block_problem(answer)
        if mistake:
            what = "level" if grid else "answer"
            messages += [
                {"role": "assistant", "content": answer},
                {"role": "user", "content": f"That is not a valid {what}: {mistake}. Give the corrected {what}."},
            ]
            answer = chat_with_llm(ctx, messages)[0]
        return answer
