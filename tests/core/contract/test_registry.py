"""The problem registry: listing the installed problems (what every pytest start does) imports their names and
options only, never a game, numpy, torch, transformers or pymunk; a family lists its variants the same way;
a chosen problem is made from its entry."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pcg_plugin.core.contract import problem as problems
from pcg_plugin.core.contract.base import BaseProblem
from pcg_plugin.core.contract.problem import Entry, Family, Problem

HEAVY = ("numpy", "torch", "transformers", "pymunk", "PIL", "jinja2", "openai")
LISTING = """
import json, sys
import pytest
before = set(sys.modules)
from pcg_plugin.core.contract import problem as problems
entries = problems.registered()
problems.add_options(pytest.Parser(_ispytest=True), entries.values())
print(json.dumps({"names": sorted(entries), "modules": sorted(set(sys.modules) - before)}))
"""


@pytest.fixture(scope="module")
def listing() -> dict[str, list[str]]:
    out = subprocess.run([sys.executable, "-c", LISTING], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_listing_the_problems_imports_no_game_and_nothing_heavy(listing):
    assert len(listing["names"]) >= 50 and {"science-birds", "imagegame", "gameeval/spyfall"} <= set(listing["names"])
    assert sorted({m.split(".")[0] for m in listing["modules"]} & set(HEAVY)) == []
    ours = [m for m in listing["modules"] if m.startswith("pcg_plugin.")]
    assert [m for m in ours if ".games." in m or m.rsplit(".", 1)[-1] in ("askguess", "spyfall", "tofukingdom")] == []
    assert [
        m for m in ours if m.endswith(".problem") and m != "pcg_plugin.core.contract.problem"
    ] == []  # no implementation
    assert len(ours) <= 40


def test_gameeval_is_one_family_as_pcgbench_is(listing):
    from pcg_plugin.problems.gameeval import GAME_NAMES
    from pcg_plugin.problems.gameeval.games import GAMES

    assert tuple(GAMES) == GAME_NAMES
    assert [n for n in listing["names"] if n.startswith("gameeval/")] == [f"gameeval/{g}" for g in sorted(GAMES)]
    spyfall = problems.load("gameeval/spyfall")
    assert isinstance(spyfall, Problem) and isinstance(spyfall, BaseProblem)
    assert (spyfall.name, spyfall.target_label, spyfall.game.name) == ("gameeval/spyfall", "pair", "spyfall")


def test_every_problem_subclasses_the_one_base():
    for name in ("science-birds", "imagegame", "pcgbench/binary-v0", "gameeval/tofukingdom"):
        problem = problems.load(name)
        assert isinstance(problem, BaseProblem) and problem.name == name


def test_a_family_names_each_variant_and_makes_it_with_its_name():
    family = Family("pcg_plugin.problems.pcgbench.problem:PcgBenchProblem", variants="builtins:tuple")
    assert family.entries("x") == {}
    made = Entry("pcgbench/zelda-v0", "pcg_plugin.problems.pcgbench.problem:PcgBenchProblem", args=("zelda-v0",)).load()
    assert made.name == "pcgbench/zelda-v0" and made.benchmark == "zelda-v0"


def test_a_problem_missing_a_required_method_cannot_be_made():
    class Half(BaseProblem):
        def configure(self, config): ...

    with pytest.raises(TypeError, match="abstract"):
        Half()  # type: ignore[abstract]


def test_the_contract_is_eight_methods_and_the_base_defines_the_rest():
    required = {n for n in dir(Problem) if not n.startswith("_") and callable(getattr(Problem, n))}
    assert required == set(BaseProblem.__abstractmethods__) and len(required) <= 10
