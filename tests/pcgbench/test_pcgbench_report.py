"""The HTML leaderboard's level drawings: one coloured square per tile, a colour for every tile of every problem."""

import re

import pytest

from pcg_plugin.problems.pcgbench.registry import PROBLEMS, get_problem
from pcg_plugin.problems.pcgbench.report import COLOURS, TILE, level_svg


def test_a_level_is_one_square_per_tile_in_its_tile_colour():
    svg = level_svg([[0, 1, 2], [3, 4, 5]], get_problem("zelda-v0").legend)
    assert f'width="{3 * TILE}" height="{2 * TILE}"' in svg
    rects = re.findall(r'<rect x="(\d+)" y="(\d+)" width="\d+" height="\d+" fill="(#[0-9a-f]{6})"/>', svg)
    names = ("wall", "empty", "player", "key", "door", "enemy")
    expected = [(str(x * TILE), str(y * TILE), COLOURS[names[3 * y + x]]) for y in range(2) for x in range(3)]
    assert rects == expected


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_every_tile_has_a_colour_and_tiles_can_be_told_apart(name):
    legend = get_problem(name).legend
    colours = [COLOURS[tile] for tile in legend]
    assert len(set(colours)) == len(colours)
