import pytest
from levels import SOKOBAN_MICROBAN

from pcg_plugin.problems.pcgbench.bench.evaluate import set_diversity
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.games.sokoban.problem import normalise, solution_letters

SOKOBAN = get_problem("sokoban-v0")
info, quality, controllability, diversity = SOKOBAN.info, SOKOBAN.quality, SOKOBAN.controllability, SOKOBAN.diversity


def test_microban_golden():
    """Spec §1.4 (measured): 1 player, 2 crates, 2 targets, solved, 10 moves, quality 1.0."""
    inf = info(SOKOBAN_MICROBAN)
    assert (inf["players"], inf["crates"], inf["targets"]) == (1, 2, 2)
    assert inf["heuristic"] == 0 and len(inf["solution"]) == 10
    assert quality(inf) == 1.0
    assert controllability(inf, {"crates": 2}) == 1.0
    assert controllability(inf, {"crates": 5}) < 1.0


def test_precondition_failure_is_not_played():
    level = [[1] * 5 for _ in range(5)]
    level[0][0] = 2
    inf = info(level)
    assert inf["heuristic"] == -1 and inf["solution"] == []
    # stats only: player 1, crates R(0)=0, balance 1 → (2/3)/2
    assert quality(inf) == pytest.approx(1 / 3)


def test_short_solution_is_penalised():
    level = [[1, 1, 1, 1, 1], [1, 2, 3, 4, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]]
    inf = info(level)
    assert inf["heuristic"] == 0 and len(inf["solution"]) == 1
    assert quality(inf) == pytest.approx((1 + (1 + 1 / 10) / 2) / 2, abs=1e-6)


def test_unsolvable_level_reports_the_best_heuristic():
    level = [[2, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [3, 1, 1, 1, 4]]
    inf = info(level)  # the crate starts in a dead corner: never pushed, heuristic stays 4
    assert inf["solution"] == [] and inf["heuristic"] == 4
    assert quality(inf) < 1


def test_normalisation_and_letters():
    assert normalise([(0, -1), (1, 0)]) == [(1, 0), (0, 1)]  # up-first → transposed to left → mirrored
    assert normalise([(-1, 0), (0, -1)]) == [(1, 0), (0, 1)]
    level = [[1, 1, 1, 1, 1], [1, 2, 3, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 4], [1, 1, 1, 1, 1]]
    assert solution_letters(level, [(1, 0), (1, 0), (0, 1)]) == "ed"  # push, push (collapsed), walk


def test_diversity_of_unsolved_levels_is_zero():
    a = info([[2, 1, 1, 1, 1]] + [[1] * 5 for _ in range(4)])
    assert diversity(a, a) == 0.0
    solved = info(SOKOBAN_MICROBAN)
    assert diversity(solved, a) == 1.0  # "" vs anything: ratio 0


def test_control_space():
    assert SOKOBAN.control_space == {"crates": (1, 6)}


NO_PLAYER = [[1 if v == 2 else v for v in row] for row in SOKOBAN_MICROBAN]


def test_a_level_without_a_player_has_the_empty_solution_string_like_the_benchmark():
    """The benchmark never plays such a level (solution []) and turns an empty solution into "" without loading
    the level; replaying it here used to raise StopIteration (no player to find) and end the run."""
    empty = info(NO_PLAYER)
    assert (empty["players"], empty["heuristic"], empty["solution"]) == (0, -1, [])
    assert solution_letters(NO_PLAYER, []) == ""
    solved = info(SOKOBAN_MICROBAN)
    assert diversity(empty, solved) == diversity(solved, empty) == 1.0  # "" against a real solution: ratio 0
    assert diversity(empty, info(NO_PLAYER)) == 0.0  # "" against "": ratio 1
    assert set_diversity(SOKOBAN, [empty, solved, info(NO_PLAYER)])[0] == 2 / 3  # two of the three kept
