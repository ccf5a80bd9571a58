import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from levels import BINARY_README, SOKOBAN_MICROBAN, ZELDA_README

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item, set_diversity
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names


def contents(problem):
    """Any content of the variant's content space (its kind's uniform sample, from any seed)."""
    return st.integers(0, 2**63).map(lambda seed: problem.content.sample(np.random.default_rng(seed)))


def controls(problem):
    """Any control the harness can draw, in the benchmark's own JSON (talakat's list, arcade's map)."""
    drawn = st.fixed_dictionaries({k: st.integers(lo, hi - 1) for k, (lo, hi) in problem.control_space.items()})
    return drawn.map(problem.native_control)


@pytest.mark.parametrize("name", names())
def test_any_content_of_the_content_space_evaluates(name):
    problem = get_problem(name)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(contents(problem), controls(problem))
    def check(content, control):
        record = evaluate_item(problem, content, control)
        assert record["valid"] and record["reason"] is None
        assert 0.0 <= record["quality"] <= 1.0
        assert 0.0 <= record["controllability"] <= 1.0

    check()


@pytest.mark.parametrize(
    "name,level", [("binary-v0", BINARY_README), ("sokoban-v0", SOKOBAN_MICROBAN), ("zelda-v0", ZELDA_README)]
)
def test_readme_levels_pass_and_identical_copies_are_not_diverse(name, level):
    problem = get_problem(name)
    record = evaluate_item(problem, level)
    assert record["quality"] == 1.0 and record["controllability"] is None
    frac, values = set_diversity(problem, [record["info"]] * 3)
    assert frac == pytest.approx(1 / 3)
    assert values == pytest.approx([1 / 3, 1.0, 0.5])  # the HEAD per-item order quirk, spec §1.2
    assert set_diversity(problem, [record["info"]] * 2) == (0.5, [0.5, 1.0])
    assert set_diversity(problem, [record["info"]]) == (1.0, [1.0])


def test_bad_content_is_a_named_zero_never_a_crash():
    binary = get_problem("binary-v0")
    record = evaluate_item(binary, [[1] * 14] * 13, {"path": 50})
    assert record == {
        "valid": False,
        "reason": "wrong shape: 13 rows, expected 14",
        "info": None,
        "quality": 0.0,
        "controllability": 0.0,
    }
    assert evaluate_item(binary, [[2] * 14] * 14)["reason"].startswith("wrong alphabet")
    assert "lacks the key(s) ['path']" in evaluate_item(binary, BINARY_README, {"crates": 2})["reason"]


def test_old_greedy_is_an_option():
    zelda = get_problem("zelda-v0")
    inf = evaluate_item(zelda, ZELDA_README)["info"]
    assert set_diversity(zelda, [inf] * 3, version="8ad18b6") == (pytest.approx(1 / 3), [0.0, 0.0, 1.0])


@given(
    st.lists(st.sampled_from([BINARY_README, [[0] * 14] * 14, [[1] * 14] * 14]), min_size=2, max_size=6).filter(
        lambda xs: len({str(x) for x in xs}) < len(xs)
    )
)
@settings(max_examples=20, deadline=None)
def test_a_batch_with_duplicates_has_diversity_below_one(levels):
    binary = get_problem("binary-v0")
    frac, values = set_diversity(binary, [evaluate_item(binary, lv)["info"] for lv in levels])
    assert frac < 1 and len(values) == len(levels)
