"""ddave (pcg_benchmark 00b96f5 `probs/ddave`): golden vectors from the reference, the spec's measured random
baseline (§10b), the repair's index quirk, the jump physics, and properties over the content space."""

from __future__ import annotations

import sys
from pathlib import Path
from statistics import mean

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parents[1]))
import golden_matrix

from pcg_plugin.problems.pcgbench.games.ddave import problem as ddave
from pcg_plugin.problems.pcgbench.games.ddave.game import start_state

V0 = ddave.make("ddave-v0", **ddave.VARIANTS["ddave-v0"])


def walk_and_jump() -> list[list[int]]:
    """A 7×11 room: player bottom left, 1-high walls at x 3 and 7, the key between them, the exit bottom right."""
    grid = [[1] * 11 for _ in range(7)]
    grid[6] = [2, 1, 1, 0, 1, 5, 1, 0, 1, 1, 3]
    assert grid == ddave.walk_and_jump(7, 11)
    return grid


@pytest.mark.parametrize("variant", list(ddave.VARIANTS))
def test_golden_vectors_match_the_reference(variant):
    golden = golden_matrix.load("ddave", variant)
    bench = ddave.make(variant, **ddave.VARIANTS[variant])
    infos = golden_matrix.check(bench, golden)
    played = [i for i in infos if i["heuristic"] >= 0]
    assert len(infos) >= 30 and len(played) >= 10  # the file reaches the solver, wins and no-wins alike
    assert any(i["status"] == "win" for i in played) and any(i["status"] != "win" for i in played)
    assert any(i["diamond_reachable"] for i in played)


def test_random_baseline_is_the_measured_one():
    """Spec §10b (measured on the reference): 50 uniform random grids, mean quality 0.259 (max 0.269)."""
    rng = np.random.default_rng(0)
    qualities = [V0.quality(V0.info(V0.content.sample(rng))) for _ in range(50)]
    assert mean(qualities) == pytest.approx(0.259, abs=0.01)
    assert max(qualities) < 0.33


def test_a_jump_rises_two_cells_hangs_one_turn_then_falls():
    state = start_state(walk_and_jump())
    ys = []
    for action in [(0, -1), (0, 0), (0, 0), (0, 0), (0, 0)]:
        state = state.step(*action)
        ys.append((state.y, state.air))
    assert ys == [(6, 2), (5, 1), (5, 0), (6, 0), (7, 0)]  # padded y: ground row is 7
    assert state.jumps == 1


def test_walk_and_jump_is_won_with_two_jumps():
    inf = V0.info(walk_and_jump())
    assert (inf["players"], inf["exits"], inf["keys"], inf["playerOnGround"], inf["exitOnGround"]) == (1, 1, 1, 1, 1)
    assert inf["heuristic"] == 0 and inf["status"] == "win" and inf["col_key"] == 1
    assert inf["num_jumps"] == 2
    assert inf["solution"][0] == {"x": 0, "y": 6, "action": inf["solution"][0]["action"]}  # content coordinates
    assert inf["solution"][-1]["x"] == 10 and inf["solution"][-1]["action"] == {"x": 0, "y": 0}
    assert V0.quality(inf) == 1.0
    assert V0.controllability(inf, {"sx": 0, "sy": 6, "ex": 10, "ey": 6, "diamonds": 0}) == 1.0
    assert V0.diversity(inf, inf) == 0.0


def test_a_three_high_wall_is_never_passed():
    grid = walk_and_jump()
    grid[4][7] = grid[5][7] = 0
    inf = V0.info(grid)
    assert inf["solution"] == [] and inf["status"] == "running"
    assert inf["heuristic"] == 4 + 0  # the best node holds the key (x 5) and stands at x 6: 4 from the door
    assert V0.quality(inf) < 1.0


def test_repair_keeps_the_region_of_the_player_argmax_names():
    """Players (0,0) and (1,0) share a 14-cell region left of a wall, (5,6) has the 56-cell one. The sizes list
    skips (1,0) (already filled), so argmax 1 names players[1] = (1,0): the small region is kept."""
    grid = [[1] * 11 for _ in range(7)]
    for row in grid:
        row[2] = 0
    grid[0][0] = grid[0][1] = grid[6][5] = 2
    repaired = ddave.repair(grid)
    assert all(v == 0 for row in repaired for v in row[2:])
    inf = V0.info(grid)
    assert inf["players"] == 2 and inf["player_locations"] == [[0, 0], [1, 0]]
    assert inf["heuristic"] == -1


def test_diversity_mirrors_and_controllability_without_player():
    a = V0.info(walk_and_jump())
    mirrored = V0.info([row[::-1] for row in walk_and_jump()])
    assert mirrored["heuristic"] == 0
    empty = V0.info([[1] * 11 for _ in range(7)])
    assert V0.controllability(empty, {"sx": 0, "sy": 6, "ex": 0, "ey": 0, "diamonds": 0}) == pytest.approx(1 / 3)
    assert V0.diversity(empty, empty) == 0.0
    assert 0.0 <= V0.diversity(a, mirrored) <= 1.0


def test_control_space_and_named_reasons():
    assert V0.control_space == {"sx": (0, 11), "sy": (5, 7), "ex": (0, 11), "ey": (0, 3), "diamonds": (0, 7)}
    assert "wrong alphabet" in V0.content.check([[7] * 11] * 7)
    assert "wrong shape" in V0.content.check([[1] * 7] * 11)


def _grids(rows: int, cols: int):
    return st.lists(st.lists(st.integers(0, 6), min_size=cols, max_size=cols), min_size=rows, max_size=rows)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_any_content_evaluates_within_bounds(data):
    variant = data.draw(st.sampled_from(list(ddave.VARIANTS)))
    bench = ddave.make(variant, **ddave.VARIANTS[variant])
    rows, cols = bench.content.rows, bench.content.cols
    grid = data.draw(_grids(rows, cols))
    if data.draw(st.booleans()):  # one player, exit and key, so the solver runs when they share a region;
        # at most 2 diamonds (each runs the whole solver chain again: the golden files cover many)
        cells_with_diamonds = [(x, y) for y, row in enumerate(grid) for x, v in enumerate(row) if v == 4]
        for x, y in cells_with_diamonds[2:]:
            grid[y][x] = 1
        grid = [[1 if v in (2, 3, 5) else v for v in row] for row in grid]
        cells = data.draw(
            st.lists(st.tuples(st.integers(0, cols - 1), st.integers(0, rows - 1)), min_size=3, max_size=3, unique=True)
        )
        for (x, y), tile in zip(cells, (2, 3, 5), strict=True):
            grid[y][x] = tile
    control = {k: data.draw(st.integers(lo, hi - 1)) for k, (lo, hi) in bench.control_space.items()}
    inf = bench.info(grid)
    assert 0.0 <= bench.quality(inf) <= 1.0
    assert 0.0 <= bench.controllability(inf, control) <= 1.0
    assert 0.0 <= bench.diversity(inf, inf) <= 1.0


@pytest.mark.parametrize("variant", list(ddave.VARIANTS))
def test_examples_are_feasible_and_registered(variant):
    from pcg_plugin.problems.pcgbench.bench.registry import get_problem

    bench = get_problem(f"pcgbench/{variant}")
    assert bench.name == variant and bench.goal
    assert len(bench.examples) == {"ddave-v0": 3, "ddave-complex-v0": 3, "ddave-large-v0": 3}[variant]
    for level in bench.examples:
        assert bench.content.check(level) is None
        assert bench.quality(bench.info(level)) == 1.0


def test_the_readme_level_as_the_reference_scores_it():
    """The ddave README's 11×7 example with its README control (golden item 0; the README states no values):
    won with 3 jumps, all 11 diamonds reachable, quality 0.99048 (11 diamonds > min(W, H) = 7 costs a little)."""
    golden = golden_matrix.load("ddave", "ddave-v0")
    readme, control = golden["contents"][0], golden["controls"][0]
    assert readme[6] == [2, 1, 1, 1, 1, 1, 1, 0, 3, 1, 1] and control == {
        "sx": 0,
        "sy": 6,
        "ex": 3,
        "ey": 0,
        "diamonds": 4,
    }
    inf = V0.info(readme)
    assert (inf["heuristic"], inf["status"], inf["num_jumps"], inf["diamonds"]) == (0, "win", 3, 11)
    assert inf["diamond_reachable"] == [0] * 11
    assert V0.quality(inf) == pytest.approx(0.9904761904537415, abs=1e-12)
    assert V0.controllability(inf, control) == pytest.approx(0.765993265881895, abs=1e-12)
