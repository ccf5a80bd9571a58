"""The three generators under the three fitnesses against the reference experiment's own runs (golden/, made by
running amidos2006/benchmark_experiments 2c7ce70 over pcg_benchmark 00b96f5; SOURCE.md there): for the same
variant, generator, fitness, seed, population and generations, the same population after the reset and after
every generation (contents, controls, quality, controllability, diversity, in the same order) and so the same best
fitness. The default run checks seed 1 of four variants, 3 generators x 3 fitnesses each; `-m slow` every run."""

from __future__ import annotations

import gzip
import hashlib
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.problems.pcgbench.experiment.fitness import FITNESSES, fitness_name
from pcg_plugin.problems.pcgbench.experiment.run import RunSpec, chromosomes, run_unit, search

GOLDEN = Path(__file__).parent / "golden"
QUICK = ("binary-v0", "zelda-v0", "isaac-v0", "ddave-v0")
ALL = tuple(sorted(p.name.removesuffix(".json.gz") for p in GOLDEN.glob("*.json.gz")))
TOL = 1e-9


@cache
def golden(variant: str) -> dict[str, Any]:
    return json.loads(gzip.decompress((GOLDEN / f"{variant}.json.gz").read_bytes()))


def spec_of(variant: str, run: dict[str, Any]) -> RunSpec:
    return RunSpec(
        variant, run["generator"], fitness_name(run["fitness"]), run["seed"], run["population"], run["generations"]
    )


def ours(spec: RunSpec) -> list[list[dict[str, Any]]]:
    """Our population after the reset and after every generation (diversity computed under every fitness, as
    the reference computes it)."""
    seen: list[list[dict[str, Any]]] = []
    search(spec, lambda gen: seen.append([c.record() for c in gen.population]), all_diversity=True)
    return seen


def same_chromosome(mine: dict[str, Any], ref: dict[str, Any], controls: bool) -> str | None:
    """None when equal; else what differs."""
    if "content_sha256" in ref:
        if hashlib.sha256(json.dumps(mine["content"], sort_keys=True).encode()).hexdigest() != ref["content_sha256"]:
            return "content"
    elif mine["content"] != ref["content"]:
        return "content"
    if controls and mine["control"] != ref["control"]:
        return f"control {mine['control']} != {ref['control']}"
    pairs = [("quality", "quality")] + ([("controllability", "controlability"), ("diversity", "diversity")] * controls)
    for key, theirs in pairs:
        if not math.isclose(mine[key], ref[theirs], rel_tol=0, abs_tol=TOL):
            return f"{key} {mine[key]} != {ref[theirs]}"
    return None


def check_run(variant: str, run: dict[str, Any]) -> None:
    spec = spec_of(variant, run)
    controls = variant != "arcade-v0"  # its control sampler is unseeded in the reference: contents and quality only
    mine = ours(spec)
    assert len(mine) == len(run["iterations"]) == spec.generations + 1
    for it, (pop, ref) in enumerate(zip(mine, run["iterations"], strict=True)):
        assert len(pop) == len(ref), (spec, it)
        for i, (a, b) in enumerate(zip(pop, ref, strict=True)):
            problem = same_chromosome(a, b, controls)
            assert problem is None, f"{spec.name} {variant}: generation {it}, chromosome {i}: {problem}"
    fit = FITNESSES[spec.fitness]
    best = [fit(c) for c in chromosomes([iteration[0] for iteration in mine])]
    assert best == pytest.approx([fit(c) for c in chromosomes(reference_records(run))], abs=TOL)


def reference_records(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Each iteration's best chromosome in our record form."""
    return [
        {
            "content": None,
            "control": it[0]["control"],
            "quality": it[0]["quality"],
            "controllability": it[0]["controlability"],
            "diversity": it[0]["diversity"],
        }
        for it in run["iterations"]
    ]


def cases(variants: tuple[str, ...], quick: bool) -> list[Any]:
    return [
        pytest.param(v, i, id=f"{v}-{r['generator']}-{r['fitness']}-s{r['seed']}")
        for v in variants
        for i, r in enumerate(golden(v)["runs"])
        if not quick or r["seed"] == 1
    ]


@pytest.mark.parametrize(("variant", "index"), cases(QUICK, quick=True))
def test_a_run_is_the_reference_run(variant: str, index: int) -> None:
    check_run(variant, golden(variant)["runs"][index])


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "index"), cases(ALL, quick=False))
def test_every_golden_run_is_the_reference_run(variant: str, index: int) -> None:
    check_run(variant, golden(variant)["runs"][index])


def test_the_golden_files_cover_four_problems_by_three_generators_by_three_fitnesses() -> None:
    for variant in QUICK:
        runs = {(r["generator"], fitness_name(r["fitness"])) for r in golden(variant)["runs"] if r["seed"] == 1}
        assert runs == {(g, f) for g in ("random", "es", "ga") for f in ("q", "qt", "qtd")}, variant
    assert len(ALL) == 12


def test_seed_zero_random_is_the_reference_run() -> None:
    """Seed 0 leaves the reference generator's own stream unseeded; Random never reads it, so its run repeats."""
    (run,) = [r for r in golden("binary-v0")["runs"] if r["seed"] == 0]
    assert run["generator"] == "random"
    check_run("binary-v0", run)


def test_a_run_record_has_the_best_after_reset_and_each_generation() -> None:
    run = next(r for r in golden("zelda-v0")["runs"] if r["generator"] == "ga" and r["fitness"].endswith("diversity"))
    spec = spec_of("zelda-v0", run)
    record = run_unit(spec)
    fit = FITNESSES[spec.fitness]
    assert record["best"] == pytest.approx([fit(c) for c in chromosomes(reference_records(run))], abs=TOL)
    assert len(record["best"]) == spec.generations + 1 and len(record["final_population"]) == spec.population
    assert set(record["final"]) == {"feasible", "controlled", "unique"}
