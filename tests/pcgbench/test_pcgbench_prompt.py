"""The prompt placeholders and the task a program receives, and the example levels they show."""

import json

import pytest

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.bench.examples import SOKOBAN_MICROBAN
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names
from pcg_plugin.problems.pcgbench.prompt import NO_EXAMPLES, examples_text, render_prompt, task_json


def test_every_placeholder_is_replaced_for_the_instance():
    binary = get_problem("binary-v0")
    text = render_prompt("<PROBLEM> <WIDTH>x<HEIGHT>, <CONTROL>; again <CONTROL>\n<LEGEND>", binary, {"path": 57})
    assert text == "binary-v0 14x14, path = 57; again path = 57\n0 = solid\n1 = empty"
    zelda = render_prompt("<CONTROL> <WIDTH>x<HEIGHT>", get_problem("zelda-v0"), {"player_key": 13, "key_door": 12})
    assert zelda == "player_key = 13, key_door = 12 11x7"
    sokoban = get_problem("sokoban-v0")
    every = render_prompt(" ".join(sokoban.placeholders), sokoban, {"crates": 2})
    assert len(sokoban.placeholders) == 7 and not any(p in every for p in sokoban.placeholders)
    assert "Example 1 (crates = 2):\n```\n01400\n" in every  # the README level, its measured control value


@pytest.mark.parametrize("name", [n for n in names() if get_problem(n).examples])
def test_every_example_is_feasible(name):
    problem = get_problem(name)
    assert all(evaluate_item(problem, content)["quality"] == 1.0 for content in problem.examples)
    assert examples_text(problem).count("```") == 2 * len(problem.examples)
    assert "()" not in examples_text(problem).split("\n")[0]  # no empty list of measured controls


def test_examples_say_the_controls_they_meet_where_the_evaluator_measures_them():
    assert examples_text(get_problem("zelda-v0")).startswith("Example 1 (player_key = 11, key_door = 12):\n```")
    assert examples_text(get_problem("arcade-v0")).startswith("Example 1:\n```json")  # a layout map is no measurement


MIRRORED = [n for n in names() if get_problem(n).content.kind == "grid" and len(get_problem(n).examples) == 3]


@pytest.mark.parametrize("name", MIRRORED)  # Lode Runner shows one 21×32 level, not three
def test_the_example_levels_and_their_mirrors_are_feasible(name):
    """What `<EXAMPLES>` shows must be good levels: quality 1 for the README level and both mirrors."""
    problem = get_problem(name)
    levels = list(problem.examples)
    assert levels[1] != levels[0] != levels[2]
    assert [evaluate_item(problem, level)["quality"] for level in levels] == [1.0, 1.0, 1.0]
    assert examples_text(problem).count("```") == 6


def test_a_program_gets_the_same_facts_as_json():
    task = json.loads(task_json(get_problem("sokoban-v0"), "crates2", {"crates": 2}))
    assert (task["problem"], task["instance"], task["control"]) == ("sokoban-v0", "crates2", {"crates": 2})
    assert (task["width"], task["height"]) == (5, 5)
    assert task["legend"] == {"0": "solid", "1": "empty", "2": "player", "3": "crate", "4": "target"}
    assert task["examples"][0] == SOKOBAN_MICROBAN and "crates" in task["goal"]


def test_a_variant_without_examples_says_so():
    problem = get_problem("binary-large-v0")
    assert problem.examples == () and render_prompt("<EXAMPLES>", problem, {"path": 80}) == NO_EXAMPLES
