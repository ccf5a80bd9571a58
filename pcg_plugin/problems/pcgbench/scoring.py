"""Scoring a PCG Benchmark run: per instance and per submission, counts like the paper's Fig. 3, one score, a rank.

For each submission and instance, over its `trials` trials (an errored trial is missing and counts as a zero):
- feasible = trials with quality 1, controlled = trials with controllability 1 (the benchmark's "≥ 1");
- diversity = the benchmark's greedy fraction (HEAD, 00b96f5) over the trials that hold a level (the valid
  ones), and unique = the levels that greedy keeps (each at diversity 1); a trial without a level is not unique;
- the instance score = (trials that are feasible AND controlled AND unique) / trials.

A submission's **score is the mean of its instance scores**; `feasible`, `controlled` and `unique` are the three
fractions over all its instances × trials; `diversity_all` is the greedy fraction over all its valid trials of
every instance together (reported, not scored). Ranking: score, highest first; equal scores share a rank
(1, 1, 3) and are listed by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from pcg_plugin.core.stats.intervals import model_ranks
from pcg_plugin.problems.pcgbench.bench.evaluate import set_diversity
from pcg_plugin.problems.pcgbench.bench.greedy_diversity import head_survivors
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem
from pcg_plugin.problems.pcgbench.records import BenchRecord


@dataclass(frozen=True)
class InstanceScore:
    instance: str
    trials: int  # trials asked for (missing ones count as zeros)
    valid: int
    feasible: int
    controlled: int
    unique: int
    passed: int  # feasible AND controlled AND unique
    diversity: float
    unique_trials: tuple[int, ...] = ()  # trial numbers greedy keeps

    @property
    def score(self) -> float:
        return self.passed / self.trials if self.trials else 0.0


@dataclass(frozen=True)
class SubmissionScore:
    name: str
    score: float
    instances: tuple[InstanceScore, ...]
    diversity_all: float
    rank: int = 0
    reasons: dict[str, int] = field(default_factory=dict)  # zero reason -> trials
    model: str | None = None  # its model level in a several-model run (None: the run's one model)
    rank_in_model: int = 0

    def fraction(self, attr: str) -> float:
        total = sum(i.trials for i in self.instances)
        return sum(getattr(i, attr) for i in self.instances) / total if total else 0.0


def score_instance(problem: BenchProblem, instance: str, records: Sequence[BenchRecord], trials: int) -> InstanceScore:
    """One submission's trials of one instance (records in trial order)."""
    valid = sorted((r for r in records if r.valid), key=lambda r: r.trial)
    infos = [r.full_info() for r in valid]
    diversity = set_diversity(problem, infos)[0] if infos else 0.0
    kept = {valid[i].trial for i in head_survivors(infos, problem.diversity)}
    passed = [r for r in valid if r.feasible and r.controlled and r.trial in kept]
    return InstanceScore(
        instance=instance,
        trials=trials,
        valid=len(valid),
        feasible=sum(r.feasible for r in valid),
        controlled=sum(r.controlled for r in valid),
        unique=len(kept),
        passed=len(passed),
        diversity=diversity,
        unique_trials=tuple(sorted(kept)),
    )


def score_submission(
    problem: BenchProblem,
    name: str,
    records: Iterable[BenchRecord],
    instances: Sequence[str],
    trials: int,
    model: str | None = None,
) -> SubmissionScore:
    """One submission's trials of one model (``model``: a several-model run's level; None: the run's one model)
    scored as a run of that model alone scores them."""
    mine = [r for r in records if r.submission == name and r.model == model]
    per = tuple(score_instance(problem, i, [r for r in mine if r.instance == i], trials) for i in instances)
    valid = sorted((r for r in mine if r.valid), key=lambda r: (instances.index(r.instance), r.trial))
    every = set_diversity(problem, [r.full_info() for r in valid])[0] if valid else 0.0
    reasons: dict[str, int] = {}
    for r in mine:
        if r.reason:
            reasons[r.reason] = reasons.get(r.reason, 0) + 1
    score = sum(i.score for i in per) / len(per) if per else 0.0
    return SubmissionScore(
        name=name, score=score, instances=per, diversity_all=every, reasons=dict(sorted(reasons.items())), model=model
    )


def rank(scores: Iterable[SubmissionScore], models: Sequence[str | None] = (None,)) -> list[SubmissionScore]:
    """Highest score first, ties by name, then by the model's place in ``models``; equal scores share the rank
    of the first of them, across every row (``rank``) and among one model's rows (``rank_in_model``)."""
    ordered = sorted(scores, key=lambda s: (-s.score, s.name, models.index(s.model)))
    across, within = model_ranks(range(len(ordered)), lambda i: ordered[i].score, lambda i: ordered[i].model)
    return [replace(s, rank=across[i], rank_in_model=within[i]) for i, s in enumerate(ordered)]
