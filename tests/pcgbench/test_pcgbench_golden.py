"""Every registered binary, sokoban, zelda and building variant against golden vectors of the reference
(pcg_benchmark 00b96f5; golden/SOURCE.md): info, quality, controllability, every pairwise diversity and the set
diversity, for uniform and shaped contents."""

import json
from pathlib import Path

import pytest

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item, set_diversity
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.games.building import problem as building

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(p.stem for p in GOLDEN.glob("*.json"))


def problem_of(name):
    if name == "building-readme-v0":
        return building.make(name, width=7, length=7, height=12, blocks=12)
    return get_problem(name)


def ours(key, value):
    """Our info value in the reference's form (sokoban moves are [dx, dy] here, {"x", "y"} there)."""
    if key == "solution":
        return [{"x": dx, "y": dy} for dx, dy in value]
    return value


@pytest.mark.parametrize("name", FILES)
def test_the_reference_scores_are_reproduced(name):
    doc = json.loads((GOLDEN / f"{name}.json").read_text())
    problem = problem_of(name)
    infos = []
    for n, item in enumerate(doc["items"]):
        ev = evaluate_item(problem, item["content"], item["control"])
        assert ev["valid"], (n, ev["reason"])
        for key, value in item["info"].items():
            if key == "flat":  # binary keeps its maze flattened for the Hamming distance; ours keeps the grid
                assert [v for row in ev["info"]["content"] for v in row] == value, n
                continue
            assert ours(key, ev["info"][key]) == value, (n, key)
        assert ev["quality"] == pytest.approx(item["quality"], abs=1e-12), n
        assert ev["controllability"] == pytest.approx(item["controllability"], abs=1e-12), n
        infos.append(ev["info"])
    pairs = [problem.diversity(a, b) for a in infos for b in infos]
    assert pairs == pytest.approx([v for row in doc["pairwise_diversity"] for v in row], abs=1e-12)
    fraction, per_item = set_diversity(problem, infos)
    assert fraction == pytest.approx(doc["set_diversity"]["fraction"], abs=1e-12)
    assert per_item == pytest.approx(doc["set_diversity"]["per_item"], abs=1e-12)


def test_the_golden_set_reaches_the_interesting_branches():
    """Not only zeros: feasible items where the benchmark allows them, sokoban levels that were solved."""
    feasible = {
        n: sum(i["quality"] >= 1 for i in json.loads((GOLDEN / f"{n}.json").read_text())["items"]) for n in FILES
    }
    assert all(
        feasible[n] >= 1 for n in ("sokoban-v0", "zelda-v0", "zelda-large-v0", "building-v0", "building-tall-v0")
    )
    solved = [
        i for i in json.loads((GOLDEN / "sokoban-large-v0.json").read_text())["items"] if i["info"]["heuristic"] >= 0
    ]
    assert solved
