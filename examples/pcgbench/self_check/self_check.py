"""Ask for a level, check its shape and tiles, and ask once more with the mistake named if it is wrong."""

import json
import re

from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_context import TrialContext
from llms4pcg.models.trial_loop import TrialLoop

FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)


def problem_with(answer: str, width: int, height: int, codes: set) -> str:
    """What is wrong with the answer's last code block ("" when it looks like a level)."""
    blocks = FENCE.findall(answer)
    if not blocks:
        return "there is no code block fenced by triple backticks"
    rows = [line.strip() for line in blocks[-1].splitlines() if line.strip()]
    if len(rows) != height:
        return f"the level has {len(rows)} rows, it needs {height}"
    for n, row in enumerate(rows, 1):
        if len(row) != width:
            return f"row {n} has {len(row)} digits, it needs {width}"
        if any(ch not in codes for ch in row):
            return f"row {n} uses a character that is not one of the tile codes {', '.join(sorted(codes))}"
    return ""


class SelfCheck(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, task: str) -> str:
        t = json.loads(task)
        legend = "\n".join(f"{code} = {name}" for code, name in t["legend"].items())
        control = ", ".join(f"{k} = {v}" for k, v in t["control"].items())
        prompt = (f"Design one level of {t['problem']}: a grid of {t['height']} rows and {t['width']} columns, each "
                  f"cell one digit:\n{legend}\n\n{t['goal']}\n\nThe level must meet: {control}.\n"
                  f"Give it as {t['height']} lines of {t['width']} digits in one code block fenced by triple backticks.")
        messages = [{"role": "user", "content": prompt}]
        answer = chat_with_llm(ctx, messages)[0]
        mistake = problem_with(answer, t["width"], t["height"], set(t["legend"]))
        if mistake:
            messages += [{"role": "assistant", "content": answer},
                         {"role": "user", "content": f"That is not a valid level: {mistake}. Give the corrected level."}]
            answer = chat_with_llm(ctx, messages)[0]
        return answer
