"""The scripted LLM test double of the PCG Benchmark harness tests (`--pcg-backend scripted --pcg-model
grid_double:respond`): it reads the problem from the prompt and answers with one of the benchmark README's
feasible levels (or its mirror images, picked by `TRIAL=n` in the prompt), or with a broken answer when the prompt
says `MODE=noblock|shape|alphabet|json|words|noplayer` (`MODE=cycle` walks through valid, noblock, shape, alphabet
by trial; `noplayer` is the level with its player tile, code 2, made empty: a Sokoban level the solver cannot load).
"""

import json
import re

from pcg_plugin.problems.pcgbench.registry import get_problem

CYCLE = ("valid", "noblock", "shape", "alphabet")


def level_for(problem: str, trial: int) -> list[list[int]]:
    return get_problem(problem).examples[(trial - 1) % 3]


def answer(problem: str, mode: str, trial: int) -> str:
    if mode == "cycle":
        mode = CYCLE[(trial - 1) % len(CYCLE)]
    level = level_for(problem, trial)
    rows = ["".join(str(v) for v in row) for row in level]
    if mode == "noblock":
        return "I would rather describe the level in words: a long winding corridor."
    if mode == "shape":
        rows = rows[:-1]
    elif mode == "alphabet":
        rows[0] = "9" + rows[0][1:]
    elif mode == "noplayer":
        rows = [r.replace("2", "1") for r in rows]
    elif mode == "json":
        return "```json\n" + json.dumps(level) + "\n```"
    elif mode == "words":
        return "```\n" + "\n".join("wall " * len(r) for r in rows) + "\n```"
    return "Here is a level.\n```\n" + "\n".join(rows) + "\n```\nThe last block is the level."


def respond(messages, n=1):
    text = messages[-1]["content"]
    if "That is not a valid level" in text:  # the self_check example's second call
        text = messages[0]["content"]
    problem = re.search(r"(binary|sokoban|zelda|mdungeons|ddave)-v0", text).group(0)
    mode = re.search(r"MODE=(\w+)", text)
    trial = re.search(r"TRIAL=(\d+)", text)
    return [answer(problem, mode.group(1) if mode else "valid", int(trial.group(1)) if trial else 1)] * n
