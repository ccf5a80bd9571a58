"""One run of the paper's experiment, as the reference's `run.py` makes one: the env seeded with the run's seed,
the generator reset with that seed and the fitness, then `generations` updates; the best fitness after the reset
and after each update, and the final population with Fig. 3's counts."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from pcg_plugin.problems.pcgbench.bench.evaluate import set_diversity
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, variant_name
from pcg_plugin.problems.pcgbench.experiment.fitness import FITNESSES
from pcg_plugin.problems.pcgbench.experiment.search import MAKERS, Chromosome, Evaluator, Search
from pcg_plugin.problems.pcgbench.experiment.spaces import EnvSpaces


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's result (the store files a finished run under it)."""

    variant: str
    generator: str
    fitness: str
    seed: int
    population: int = 100
    generations: int = 200
    spaces: str = "reference"

    @property
    def name(self) -> str:
        return f"{self.generator}-{self.fitness}-s{self.seed}"


def searcher(spec: RunSpec, all_diversity: bool = False) -> Search:
    """The generator of `spec`, not yet reset; `all_diversity` computes batch diversity under Q and QT too (the
    reference always does; neither fitness reads it)."""
    problem = get_problem(spec.variant)
    evaluate = Evaluator(problem, diversity=all_diversity or spec.fitness == "qtd", cache=4 * spec.population)
    spaces = EnvSpaces(problem, spec.seed, spec.spaces)
    return MAKERS[spec.generator](spaces, FITNESSES[spec.fitness], evaluate, spec.seed, spec.population)


def search(spec: RunSpec, observe: Callable[[Search], None] | None = None, all_diversity: bool = False) -> Search:
    """Reset and update as `run.py` does; `observe` sees the generator after the reset and after each update."""
    gen = searcher(spec, all_diversity)
    gen.reset()
    if observe:
        observe(gen)
    for _ in range(spec.generations):
        gen.update()
        if observe:
            observe(gen)
    return gen


def final_counts(gen: Search) -> dict[str, int]:
    """Fig. 3's counts in a final population: feasible (quality >= 1), controlled (and controllability >= 1),
    unique (diversity >= 1 when the population is scored as one set)."""
    pop = gen.population
    _, per_item = set_diversity(gen.evaluate.problem, [gen.evaluate.info(c.content) for c in pop])
    return {
        "feasible": sum(1 for c in pop if c.quality >= 1),
        "controlled": sum(1 for c in pop if c.quality >= 1 and c.controllability >= 1),
        "unique": sum(1 for v in per_item if v >= 1),
    }


def run_unit(spec: RunSpec) -> dict[str, Any]:
    """One run, as a JSON record: the spec, `best` (generations + 1 values), `final` counts, the final population
    (best first) and the cost (wall and CPU seconds: on a shared machine the CPU time is the one to project from)."""
    best: list[float] = []
    start, cpu = time.perf_counter(), time.process_time()
    gen = search(spec, lambda g: best.append(g.best()))
    return {
        **asdict(spec),
        "variant": variant_name(spec.variant),
        "best": best,
        "final": final_counts(gen),
        "final_population": [c.record() for c in gen.population],
        "evaluated": gen.evaluate.evaluated,
        "seconds": round(time.perf_counter() - start, 3),
        "cpu_seconds": round(time.process_time() - cpu, 3),
    }


def chromosomes(records: list[dict[str, Any]]) -> list[Chromosome]:
    return [Chromosome(**r) for r in records]
