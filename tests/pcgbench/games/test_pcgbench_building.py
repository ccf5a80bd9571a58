"""building: the drop rule, heights, quality, controllability and diversity on hand-worked cases and the README's
example (values measured on the reference: golden/building-readme-v0.json)."""

import numpy as np
import pytest

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.games.building.problem import Building, orient, simulate

README = (
    [{"x": 2, "y": 2, "type": 3}]
    + [{"x": 3, "y": 3, "type": 0}] * 7
    + [
        {"x": 1, "y": 3, "type": 1},
        {"x": 3, "y": 3, "type": 2},
        {"x": 3, "y": 1, "type": 2},
        {"x": 3, "y": 3, "type": 1},
    ]
)


def test_the_readme_example_in_a_12_block_variant():
    """All 12 land; 8 columns end at height 1 (the 3x3's uncovered rim and the 1x3/3x1 ends), so the lowest-top
    term is (49 - 8) / 49 / 4 and quality (1 + 41/196) / 2 = 0.6046 (the reference gives 0.6045918367133486)."""
    b = Building(7, 7, 12, 12)
    inf = b.info(README)
    assert inf["blocks"] == 12 and (inf["1x1"], inf["1x3"], inf["3x1"], inf["3x3"]) == (7, 2, 2, 1)
    assert sorted(inf["heights"]) == [1] * 8 + [9, 9, 10, 10, 11, 11, 12, 12, 12]
    assert b.quality(inf) == pytest.approx((1 + (49 - 8) / (49 + 1e-8) / 4) / 2, abs=1e-12)
    assert b.quality(inf) == pytest.approx(0.6045918367133486, abs=1e-15)


def test_a_piece_lands_on_the_first_filled_cell_of_its_footprint_and_is_clamped_inside():
    lvl, heights, failed = simulate([{"x": 6, "y": 6, "type": 3}, {"x": 4, "y": 6, "type": 1}], 7, 7, 12)
    assert failed == 0
    assert lvl[0, 4:7, 4:7].tolist() == [[4] * 3] * 3  # x, y 6 clamped to 4 (7 - 3)
    assert lvl[1, 6, 4:7].tolist() == [2, 2, 2]  # the 1x3 along x lands on top of it
    assert sorted(heights) == [1] * 6 + [2] * 3


def test_a_drop_on_a_full_column_fails_and_the_building_is_not_feasible():
    b = Building(7, 7, 12, 40)
    tower = [{"x": 0, "y": 0, "type": 0}] * 40
    inf = b.info(tower)
    assert inf["blocks"] == 12 and inf["heights"] == [12]
    assert b.quality(inf) == pytest.approx(12 / (40 + 1e-8) / 2)  # placed share, no height term


def test_four_piles_of_3x3_pieces_are_feasible_and_their_counts_control():
    problem = get_problem("building-v0")
    piles = [{"x": x, "y": y, "type": 3} for _ in range(10) for x, y in ((0, 0), (4, 0), (0, 4), (4, 4))]
    ev = evaluate_item(problem, piles, {"1x1": 0, "1x3": 0, "3x1": 0, "3x3": 40})
    assert ev["quality"] == 1.0 and ev["controllability"] == 1.0
    # 0 pieces of three types against 10 ± 2 (zero at or below 0), and 40 against 10 ± 2 (zero at or above 40)
    assert evaluate_item(problem, piles, {"1x1": 10, "1x3": 10, "3x1": 10, "3x3": 10})["controllability"] == 0.0
    half = evaluate_item(problem, piles, {"1x1": 0, "1x3": 0, "3x1": 0, "3x3": 35})["controllability"]
    assert half == 0.75  # three types at 0 within 0 ± 2; 40 3x3 pieces against 35 ± 2: 40 is the upper zero (B)


def test_orientation_shifts_to_the_running_minimum_and_transposes_a_deep_shape():
    occupied = np.zeros((2, 5, 5), dtype=int)
    occupied[0, 3, 1:4] = 1  # wide: x 1..3 at y 3
    assert orient(occupied)[0, 0, :3].tolist() == [1, 1, 1]
    deep = np.zeros((1, 5, 5), dtype=int)
    deep[0, 1:4, 2] = 1  # deep: y 1..3 at x 2 -> transposed (row 2, x 1..3), then shifted by (x 2, y 1) unswapped
    out = orient(deep)
    assert out.sum() == 3 and out[0, 1, :].tolist() == [1, 1, 0, 0, 1]  # x 1..3 - 2 wraps to 4, 0, 1


def test_the_same_building_is_not_diverse_and_a_moved_one_is_equal_after_orienting():
    b = Building(7, 7, 12, 4)
    here = [{"x": 0, "y": 0, "type": 3}] * 4
    there = [{"x": 4, "y": 4, "type": 3}] * 4
    assert b.diversity(b.info(here), b.info(there)) == 0.0  # orientation removes the offset
    other = [{"x": 0, "y": 0, "type": 0}] * 4
    assert b.diversity(b.info(here), b.info(other)) == pytest.approx((36 + 4) / (0.4 * 588 + 1e-8))


def test_the_control_sampler_sums_to_the_blocks_and_is_seeded():
    b = Building(7, 7, 12, 40)
    draws = [b.sample_control(np.random.default_rng(s)) for s in range(50)]
    assert all(sum(c.values()) == 40 and all(0 <= v <= 40 for v in c.values()) for c in draws)
    assert b.sample_control(np.random.default_rng(3)) == draws[3]


@pytest.mark.parametrize(
    "name,cerror,levels",
    [("building-v0", 2, 4), ("building-large-v0", 9, 4), ("building-tall-v0", 4, 9), ("building-huge-v0", 18, 9)],
)
def test_variant_constants(name, cerror, levels):
    """Spec pcgbench-problems §3's table."""
    problem = get_problem(name)
    kind = problem.content
    b = Building(kind.width, kind.length, kind.height, kind.count)
    assert (b.cerror, b.checked_levels) == (cerror, levels)
    assert problem.control_space == dict.fromkeys(("1x1", "1x3", "3x1", "3x3"), (0, kind.count))
