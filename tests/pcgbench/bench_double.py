"""A scripted LLM test double for any registered PCG Benchmark variant (`--pcg-backend scripted --pcg-model
bench_double:respond`): it finds the variant's name in the prompt and answers with one of its feasible examples,
written the way its content kind writes a reply (`show`), picked by `TRIAL=n`; `MODE=noblock` answers without a
fenced block, `MODE=junk` with a block the kind cannot read, `MODE=sample` with a uniform random content.
"""

import re

import numpy as np

from pcg_plugin.problems.pcgbench.registry import get_problem, names

_NAME = re.compile("|".join(sorted((re.escape(n) for n in names()), key=len, reverse=True)))


def answer(variant: str, mode: str, trial: int) -> str:
    problem = get_problem(variant)
    if mode == "noblock":
        return "I would rather describe it in words."
    if mode == "junk":
        return "Here:\n```\n@@ not a content @@\n```"
    if mode == "sample":
        return "A random one:\n" + problem.content.show(problem.content.sample(np.random.default_rng(trial)))
    examples = problem.examples
    return "Here it is.\n" + problem.content.show(examples[(trial - 1) % len(examples)])


def respond(messages, n=1):
    text = messages[-1]["content"]
    variant = _NAME.search(text).group(0)
    mode = re.search(r"MODE=(\w+)", text)
    trial = re.search(r"TRIAL=(\d+)", text)
    return [answer(variant, mode.group(1) if mode else "valid", int(trial.group(1)) if trial else 1)] * n
