import pytest
from levels import ZELDA_README

from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.games.zelda.problem import Zelda

ZELDA = get_problem("zelda-v0")
info, quality, controllability, diversity = ZELDA.info, ZELDA.quality, ZELDA.controllability, ZELDA.diversity
path_string = Zelda().path_string


def test_readme_example_golden():
    """Spec §1.5 (measured): pk 11, kd 12, quality 1.0; control {14, 11} → 0.9583."""
    inf = info(ZELDA_README)
    assert (inf["player_key"], inf["key_door"]) == (11, 12)
    assert (inf["regions"], inf["players"], inf["keys"], inf["doors"], inf["enemies"]) == (1, 1, 1, 1, 3)
    assert quality(inf) == 1.0
    assert controllability(inf, {"player_key": 14, "key_door": 11}) == pytest.approx(0.9583, abs=1e-4)


def test_kd_path_is_empty_at_head_and_duplicates_pk_path_in_8ad18b6():
    head = info(ZELDA_README)
    assert head["kd_path"] == [] and len(head["pk_path"]) == 12
    assert Zelda(kd_path_8ad18b6=True).info(ZELDA_README)["kd_path"] == head["pk_path"]


def test_door_blocks_the_player_key_walk():
    level = [[1] * 11 for _ in range(7)]
    level[0][0], level[0][2] = 2, 3
    for y in range(7):
        level[y][1] = 0
    level[6][1] = 4  # the only gap in the wall is the door
    inf = info(level)
    assert inf["player_key"] == -1 and inf["key_door"] > 0
    assert quality(inf) < 1


def test_path_string_mirrors_from_the_first_point():
    assert path_string({"pk_path": [[10, 6], [9, 6]], "kd_path": []}) == "0,0|1,0|"
    assert path_string({"pk_path": [], "kd_path": []}) == ""


def test_identical_levels_are_not_diverse_and_unplayable_ones_compare_equal():
    inf = info(ZELDA_README)
    assert diversity(inf, inf) == 0.0
    empty = info([[1] * 11 for _ in range(7)])
    assert diversity(empty, empty) == 0.0


def test_control_space():
    assert ZELDA.control_space == {"player_key": (11, 19), "key_door": (11, 19)}
