"""The paper's three search generators (Random, a mu + lambda ES, a GA) over one variant, as the reference's
`generators/` run them under `run.py`, draw for draw.

A chromosome is a content and a control drawn from the env's spaces (`spaces.EnvSpaces`); the operators change
the content only (a crossover child takes one parent's control, picked after the content swap). Each generation
evaluates a batch with the benchmark's functions; a chromosome keeps the quality, controllability and diversity
of the batch it was last evaluated in (diversity is the benchmark's greedy over that batch). Random and the ES
evaluate only their new chromosomes; the GA evaluates its whole population every generation, its elites included,
so under QTD an elite's fitness can change. Sorting is Python's stable sort, best first: ties keep their order
(old before new after a merge). The generator's own draws (parent picks, swaps, tournaments) come from
`default_rng(seed)`; seed 0 seeds it with 0 here, where the reference leaves it unseeded.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.bench.evaluate import set_diversity
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control, Info
from pcg_plugin.problems.pcgbench.experiment.fitness import Fitness
from pcg_plugin.problems.pcgbench.experiment.spaces import EnvSpaces

GENERATORS = ("random", "es", "ga")
MUTATION = 0.05  # ES and GA: each content element is swapped with a fresh sample's with this probability
CROSSOVER = 0.5  # GA: the chance a selected parent is crossed with a second one
TOURNAMENT = 7
ELITISM = 0.1  # GA: ceil(0.1 * population) best kept unchanged (and re-evaluated)


@dataclass(eq=False)
class Chromosome:
    content: Any
    control: Control
    quality: float = 0.0
    controllability: float = 0.0
    diversity: float = 0.0

    def record(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "control": self.control,
            "quality": self.quality,
            "controllability": self.controllability,
            "diversity": self.diversity,
        }


def content_swap(first: Any, second: Any, probability: float, rng: np.random.Generator) -> Any:
    """A copy of `first` whose every element (an integer, walking lists in order and dictionaries in `first`'s key
    order) is taken from `second` with `probability`: one `rng.random()` per element, the benchmark's swap."""
    if isinstance(first, dict):
        return {k: content_swap(v, second[k], probability, rng) for k, v in first.items()}
    if isinstance(first, list | tuple):
        return [content_swap(a, b, probability, rng) for a, b in zip(first, second)]  # noqa: B905 (zip truncates)
    return second if rng.random() < probability else first


class Evaluator:
    """Scores a batch as `env.evaluate(contents, controls)` does; `diversity=False` skips the batch diversity
    (Q and QT never read it). Infos are kept by content (the GA re-evaluates its elites every generation)."""

    def __init__(self, problem: BenchProblem, diversity: bool, cache: int = 512) -> None:
        self.problem, self.diversity, self.size = problem, diversity, cache
        self.infos: OrderedDict[str, Info] = OrderedDict()
        self.evaluated = self.feasible = 0  # chromosomes scored, and how many of them had quality >= 1

    def info(self, content: Any) -> Info:
        key = json.dumps(content)
        found = self.infos.get(key)
        if found is None:
            found = self.infos[key] = self.problem.info(content)
            if len(self.infos) > self.size:
                self.infos.popitem(last=False)
        else:
            self.infos.move_to_end(key)
        return found

    def __call__(self, batch: list[Chromosome]) -> None:
        infos = [self.info(c.content) for c in batch]
        diversity = set_diversity(self.problem, infos)[1] if self.diversity else [0.0] * len(batch)
        for c, inf, div in zip(batch, infos, diversity, strict=True):
            c.quality = float(self.problem.quality(inf))
            c.controllability = float(self.problem.controllability(inf, c.control))
            c.diversity = float(div)
            self.feasible += c.quality >= 1
        self.evaluated += len(batch)


class Search:
    """What the three generators share: the env's spaces, the generator's stream, the fitness and the sort."""

    def __init__(self, spaces: EnvSpaces, fitness: Fitness, evaluate: Evaluator, seed: int, size: int) -> None:
        self.spaces, self.fitness, self.evaluate, self.size = spaces, fitness, evaluate, size
        self.rng = np.random.default_rng(seed)
        self.population: list[Chromosome] = []

    def fresh(self) -> Chromosome:
        return Chromosome(self.spaces.content(), self.spaces.control())

    def ranked(self, chromosomes: list[Chromosome]) -> list[Chromosome]:
        return sorted(chromosomes, key=self.fitness, reverse=True)  # stable: ties keep their order

    def mutant(self, parent: Chromosome) -> Chromosome:
        fresh = self.spaces.content()  # drawn before the swap, as the reference evaluates its arguments
        return Chromosome(content_swap(parent.content, fresh, MUTATION, self.rng), parent.control)

    def best(self) -> float:
        return self.fitness(self.population[0])

    def reset(self) -> None:
        self.population = [self.fresh() for _ in range(self.size)]
        self.evaluate(self.population)
        self.population = self.ranked(self.population)

    def update(self) -> None:
        raise NotImplementedError

    def merge(self, children: list[Chromosome]) -> None:
        """Random and ES: evaluate the new ones, keep the best `size` of old + new."""
        self.evaluate(children)
        self.population = self.ranked(self.population + children)[: self.size]


class RandomSearch(Search):
    def update(self) -> None:
        self.merge([self.fresh() for _ in range(self.size)])


class EvolutionStrategy(Search):
    """mu + lambda with mu = lambda = `size`: each child mutates a uniformly picked parent."""

    def update(self) -> None:
        self.merge([self.mutant(self.population[int(self.rng.integers(self.size))]) for _ in range(self.size)])


class GeneticAlgorithm(Search):
    """Elitism, tournament selection, element-wise crossover, mutation; the whole population re-evaluated."""

    def select(self) -> Chromosome:
        order = list(range(self.size))
        self.rng.shuffle(order)
        return self.ranked([self.population[i] for i in order[: min(TOURNAMENT, self.size)]])[0]

    def crossover(self, first: Chromosome, second: Chromosome) -> Chromosome:
        content = content_swap(first.content, second.content, 0.5, self.rng)
        return Chromosome(content, [first.control, second.control][int(self.rng.integers(2))])

    def update(self) -> None:
        children = self.population[: math.ceil(self.size * ELITISM)]
        while len(children) < self.size:
            child = self.select()
            if self.rng.random() < CROSSOVER:
                child = self.crossover(child, self.select())
            children.append(self.mutant(child))
        self.population = children
        self.evaluate(self.population)
        self.population = self.ranked(self.population)


MAKERS: dict[str, Callable[..., Search]] = {"random": RandomSearch, "es": EvolutionStrategy, "ga": GeneticAlgorithm}
