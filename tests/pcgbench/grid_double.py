"""The scripted LLM test double of the PCG Benchmark harness tests (`--pcg-backend scripted --pcg-model
grid_double:respond`), for every registered variant and content kind: it reads the variant's name from the
prompt and answers with one of its example contents (`BenchProblem.examples`, picked by `TRIAL=n` in the prompt;
a variant without examples gets a uniform sample of its content space seeded by the trial), written as the
kind's `show` writes it, or with a broken answer when the prompt says `MODE=noblock|shape|alphabet|json|words|
noplayer` (`MODE=cycle` walks through valid, noblock, shape, alphabet by trial). `shape` drops the last line of
the block (a row of a grid, a drop of a building), `alphabet` puts a 9 first (a tile or x out of range),
`noplayer` makes a grid's player tile (code 2) empty: a Sokoban level the solver cannot load.
"""

import json
import re

import numpy as np

from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names

CYCLE = ("valid", "noblock", "shape", "alphabet")
# longest first, so that "zelda-large-v0" is not read as a shorter name
NAMES = re.compile("|".join(re.escape(n) for n in sorted(names(), key=len, reverse=True)))


def content_for(problem: str, trial: int):
    p = get_problem(problem)
    if p.examples:
        return p.examples[(trial - 1) % len(p.examples)]
    return p.content.sample(np.random.default_rng(trial))


def answer(problem: str, mode: str, trial: int) -> str:
    if mode == "cycle":
        mode = CYCLE[(trial - 1) % len(CYCLE)]
    content = content_for(problem, trial)
    shown = get_problem(problem).content.show(content)
    lines = shown.split("\n")[1:-1]  # the block's body
    if mode == "noblock":
        return "I would rather describe the level in words: a long winding corridor."
    if mode == "shape":
        lines = lines[:-1]
    elif mode == "alphabet":
        lines[0] = "9" + lines[0][1:]
    elif mode == "noplayer":
        lines = [line.replace("2", "1") for line in lines]
    elif mode == "json":
        return "```json\n" + json.dumps(content) + "\n```"
    elif mode == "words":
        return "```\n" + "\n".join("wall " * len(line) for line in lines) + "\n```"
    return "Here is a level.\n```\n" + "\n".join(lines) + "\n```\nThe last block is the level."


def respond(messages, n=1):
    text = messages[-1]["content"]
    if NAMES.search(text) is None:  # the self_check example's second call names only the mistake
        text = messages[0]["content"]
    problem = NAMES.search(text).group(0)
    mode = re.search(r"MODE=(\w+)", text)
    trial = re.search(r"TRIAL=(\d+)", text)
    return [answer(problem, mode.group(1) if mode else "valid", int(trial.group(1)) if trial else 1)] * n
