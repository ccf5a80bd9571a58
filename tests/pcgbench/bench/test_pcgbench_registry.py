"""The variant registry: one line per variant, both spellings, and the `pcgbench/*` family entry point that makes
every variant a harness problem without a pyproject line."""

import pytest

from pcg_plugin.core.contract import problem as problems
from pcg_plugin.core.contract.problem import Problem
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, ContentKind
from pcg_plugin.problems.pcgbench.bench.registry import REGISTRY, get_problem, names, variant_name


def test_every_variant_is_made_from_its_line_and_named_by_it():
    for name in names():
        problem = get_problem(name)
        assert isinstance(problem, BenchProblem) and isinstance(problem.content, ContentKind)
        assert problem.name == name and get_problem(f"pcgbench/{name}") is problem
    assert variant_name("pcgbench/zelda-large-v0") == "zelda-large-v0"


def test_the_benchmark_variants_of_binary_sokoban_zelda_are_registered():
    assert {
        "binary-v0",
        "binary-wide-v0",
        "binary-large-v0",
        "sokoban-v0",
        "sokoban-complex-v0",
        "sokoban-large-v0",
        "zelda-v0",
        "zelda-enemies-v0",
        "zelda-large-v0",
    } <= set(REGISTRY)


def test_an_unknown_variant_names_the_known_ones():
    with pytest.raises(KeyError, match="known: binary-v0, binary-wide-v0"):
        get_problem("nope-v0")


def test_the_family_entry_point_lists_every_variant_as_a_harness_problem():
    installed = problems.registered()
    assert {f"pcgbench/{name}" for name in names()} <= set(installed)
    zelda = problems.load("pcgbench/zelda-large-v0")
    assert isinstance(zelda, Problem) and zelda.name == "pcgbench/zelda-large-v0"
    assert zelda.placeholders == ("<PROBLEM>", "<CONTROL>", "<GOAL>", "<EXAMPLES>", "<WIDTH>", "<HEIGHT>", "<LEGEND>")


def test_an_unknown_harness_problem_names_the_closest_variants():
    with pytest.raises(pytest.UsageError, match=r"closest: pcgbench/.*; 52 installed"):
        problems.load("pcgbench/nope-v0")


def test_kind_placeholders_are_every_kinds_own():
    """The list a prompt is checked against (a placeholder of other variants is refused by name) is exactly the
    union of the content kinds' placeholders over the registry."""
    from pcg_plugin.problems.pcgbench.bench.problem import COMMON_PLACEHOLDERS, KIND_PLACEHOLDERS

    union = {p for name in names() for p in get_problem(name).placeholders} - set(COMMON_PLACEHOLDERS)
    assert set(KIND_PLACEHOLDERS) == union and len(KIND_PLACEHOLDERS) == len(union)
