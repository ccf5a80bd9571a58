"""The env's draws after `env.seed(seed)`, quirks included (every leaf space its own `default_rng(seed)`), the
uniform draw, and the benchmark's element-wise content swap."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.experiment.search import content_swap
from pcg_plugin.problems.pcgbench.experiment.spaces import EnvSpaces, rule_set_leaves


def draws(variant: str, seed: int, n: int, mode: str = "reference") -> tuple[list, list]:
    spaces = EnvSpaces(get_problem(variant), seed, mode)
    return [spaces.content() for _ in range(n)], [spaces.control() for _ in range(n)]


def test_a_seeded_grid_is_one_stream_read_cell_after_cell() -> None:
    (first, second), _ = draws("zelda-v0", 11, 2)
    rng = np.random.default_rng(11)
    expected = [[[int(rng.integers(0, 6)) for _ in range(11)] for _ in range(7)] for _ in range(2)]
    assert [first, second] == expected


def test_seeded_dictionary_leaves_draw_equal_values_for_equal_ranges() -> None:
    """Zelda's two control keys, isaac's four rooms, a building drop's x and y: one value each (the quirk)."""
    _, controls = draws("zelda-v0", 3, 20)
    assert all(c["player_key"] == c["key_door"] for c in controls)
    plans, _ = draws("isaac-v0", 3, 20)
    assert all(p["start"] == p["boss"] == p["shop"] == p["treasure"] for p in plans)
    buildings, controls = draws("building-v0", 2, 5)
    assert all(d["x"] == d["y"] for b in buildings for d in b)
    assert controls == [{"1x1": 10, "1x3": 10, "3x1": 10, "3x3": 10}] * 5  # four equal draws scaled to 40


def test_the_uniform_draw_has_no_seeded_quirk() -> None:
    buildings, _ = draws("building-v0", 2, 2, "uniform")
    assert any(d["x"] != d["y"] for b in buildings for d in b)
    _, controls = draws("zelda-v0", 3, 20, "uniform")
    assert any(c["player_key"] != c["key_door"] for c in controls)
    (grid,), _ = draws("zelda-v0", 11, 1, "uniform")  # one shared leaf: the same grid in both modes
    assert grid == draws("zelda-v0", 11, 1)[0][0]


def test_a_zero_building_draw_is_drawn_again_where_the_reference_raises() -> None:
    """Seed 5's third draw is 0 (the reference's sampler divides 0 by 0 there); the next draw is used."""
    values = [int(v) for v in np.random.default_rng(5).integers(0, 40, size=4)]
    assert values[2] == 0 and all(values[k] for k in (0, 1, 3))
    _, controls = draws("building-v0", 5, 3)
    assert all(sum(c.values()) == 40 for c in controls) and len(controls) == 3


def test_arcade_leaves_follow_its_dictionary_layout() -> None:
    """x, y, seed, win, then per colour a behaviour, a start count, 4 x and 4 y (each array one leaf), then 9 rules
    of action and score: 4 + 3 * 10 + 18 draws, 4 + 3 * 4 + 18 leaves."""
    leaves = rule_set_leaves()
    assert len(leaves) == 52 and len(set(leaves)) == 34
    assert leaves[4:14] == [4, 5, 6, 6, 6, 6, 7, 7, 7, 7]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 6))
def test_content_swap_draws_once_per_element_and_takes_the_other_below_the_probability(
    seed: int, rows: int, cols: int
) -> None:
    first = [[0] * cols for _ in range(rows)]
    second = [[1] * cols for _ in range(rows)]
    rng, twin = np.random.default_rng(seed), np.random.default_rng(seed)
    swapped = content_swap(first, second, 0.3, rng)
    assert swapped == [[int(twin.random() < 0.3) for _ in range(cols)] for _ in range(rows)]
    assert rng.random() == twin.random()  # no draw more or less than one per element
    assert content_swap({"a": 1, "b": [2, 3]}, {"a": 9, "b": [8, 7]}, 1.0, rng) == {"a": 9, "b": [8, 7]}
    assert first == [[0] * cols for _ in range(rows)]  # the parents are not changed
