"""The instances of a harness run: control values drawn with a seeded RNG from the problem's control space.

`instances(problem, count, seed)` seeds the control space as the benchmark's `env.seed(seed)` does
(`content.control_rngs`: one sub-RNG per key) and draws control dicts in order, skipping repeats, until
`count` distinct ones are found (a variant with its own `sample_control` draws from one `default_rng(seed)`);
the list is the same on every machine and every run with that seed. The id names the drawn values (`path52`,
`crates3`, `player_key14-key_door11`) so a node id says what was asked; the instance's `control` is the
benchmark's own JSON of it (`BenchProblem.native_control`: talakat's {"bullets": [...]}, arcade's 0/1 rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np

from pcg_plugin.problems.pcgbench.bench.content import control_rngs, sample_control
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control, Drawn

MAX_DRAWS = 10_000


@dataclass(frozen=True)
class Instance:
    id: str
    control: Control  # the benchmark's own JSON


def instance_id(control: Drawn) -> str:
    """`path52`; a key ending in a digit gets an underscore before its value (`1x1_12-1x3_10-...`)."""
    return "-".join(f"{key}{'_' if key[-1:].isdigit() else ''}{value}" for key, value in control.items())


def space_size(problem: BenchProblem) -> int:
    return prod(hi - lo for lo, hi in problem.control_space.values())


def instances(problem: BenchProblem, count: int, seed: int = 0) -> list[Instance]:
    """`count` distinct control values of `problem`, in draw order; a ValueError when the space is smaller."""
    size = space_size(problem)
    if count > size:
        raise ValueError(f"--pcg-grid-instances: {problem.name} has only {size} distinct control values, {count} asked")
    rngs = control_rngs(seed, problem.control_space)
    own = np.random.default_rng(seed)  # a variant with its own control sampler (building) draws from one RNG
    found: dict[str, Instance] = {}
    for _ in range(MAX_DRAWS):
        if len(found) == count:
            break
        if problem.sample_control is not None:
            control = {k: int(v) for k, v in problem.sample_control(own).items()}
        else:
            control = sample_control(rngs, problem.control_space)
        ident = instance_id(control)
        if ident not in found:
            found[ident] = Instance(ident, problem.native_control(control))
    if len(found) < count:
        raise ValueError(
            f"--pcg-grid-instances: {count} distinct controls of {problem.name} not found in "
            f"{MAX_DRAWS} draws; ask for fewer"
        )
    return list(found.values())


def instance_by_id(problem: BenchProblem, count: int, seed: int, ident: str) -> Instance:
    for inst in instances(problem, count, seed):
        if inst.id == ident:
            return inst
    raise KeyError(f"{problem.name}: no instance {ident!r} with count {count}, seed {seed}")
