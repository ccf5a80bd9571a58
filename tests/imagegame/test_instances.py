import json
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ig_helpers import make_instance, published_episodes

from pcg_plugin.problems.imagegame import clembench_io, grid, instances, rules

V2 = instances.load_instances()


def test_the_v2_set_has_59_instances_with_clembench_ids() -> None:
    ids = Counter(i.experiment for i in V2)
    assert ids == {"compact_grids": 30, "random_grids": 29}
    assert [i.game_id for i in V2 if i.experiment == "compact_grids"] == list(range(30))
    assert [i.game_id for i in V2 if i.experiment == "random_grids"] == list(range(1, 30))
    assert all(grid.size(i.target_grid) == (5, 5) and i.grid_dimension == 5 for i in V2)
    assert all(len({c for row in grid.rows(i.target_grid) for c in row} - {"▢"}) == 1 for i in V2)


def test_filled_cell_ranges_and_letter_counts_match_the_spec() -> None:
    compact = [grid.filled_count(i.target_grid) for i in V2 if i.experiment == "compact_grids"]
    scattered = [grid.filled_count(i.target_grid) for i in V2 if i.experiment == "random_grids"]
    assert (min(compact), max(compact)) == (8, 25) and (min(scattered), max(scattered)) == (4, 10)
    assert {i.to_clembench()["number_of_letters"] for i in V2} == {0, 9, 13}


def test_every_instance_carries_the_v2_prompts_and_regexes() -> None:
    assert {i.player_1_question for i in V2} == {rules.STANDARD_QUESTION}
    assert {i.player_1_response_pattern for i in V2} == {rules.COMMAND_PATTERN_V2}
    assert {i.player_1_terminate_pattern for i in V2} == {rules.TERMINATE_PATTERN_V2}
    assert {i.player_2_response_pattern for i in V2} == {rules.GRID_PATTERN_V2}
    assert len({(i.player_1_prompt_header, i.player_2_prompt_header) for i in V2}) == 1
    assert V2[0].player_1_prompt_header.endswith(
        "Ok. Please do this for the following example, which is a 5 by 5 grid."
    )


def test_the_packaged_set_is_what_the_generator_makes_from_seed_123() -> None:
    doc = instances.generate_instances(instances.V2_SEED, instances.v2_patterns(), V2[0], instances.V2_DROPPED)
    assert instances.parse_instances(doc) == V2


@pytest.mark.parametrize("folder", published_episodes(), ids=lambda p: "/".join(p.parts[-4:]))
def test_published_first_messages_are_the_standard_ones_for_that_instance(folder) -> None:
    interactions = json.loads((folder / "interactions.json").read_text(encoding="utf-8"))
    experiment, game_id = clembench_io.episode_key(folder)
    instance = clembench_io.find_instance(V2, experiment, game_id, str(folder))
    first = interactions["turns"][0]
    assert first[0]["action"]["content"] == rules.giver_first_message(instance)
    if len(first) > 3:
        command = first[2]["action"]["content"]
        assert first[3]["action"]["content"] == rules.follower_first_message(instance, command)
    for later in interactions["turns"][1:]:
        assert later[0]["action"]["content"] == rules.giver_next_message(instance)
        if len(later) > 3:
            assert later[3]["action"]["content"] == rules.follower_next_message(later[2]["action"]["content"])


@given(st.integers(0, 2**32))
def test_generated_sets_follow_the_generator_rules(seed) -> None:
    patterns = instances.v2_patterns()[:6]
    grids = instances.generate_grids(seed, patterns)
    for pattern, compact, scattered in zip(patterns, grids["compact_grids"], grids["random_grids"], strict=True):
        letters = set(compact.replace("▢", "").split()) | set(scattered.replace("▢", "").split())
        assert len(letters) == 1
        assert [c == "▢" for c in compact] == [c == "▢" for c in pattern]
        assert 1 <= grid.filled_count(scattered) <= min(pattern.count("X"), 10)
    assert grids == instances.generate_grids(seed, patterns)


def test_random_grid_draws_at_most_every_cell_once_and_collisions_count_once() -> None:
    capped = instances.random_grid(random.Random(0), "A", 60, 2)  # min(2·2, 60) = 4 draws
    assert capped == instances.random_grid(random.Random(0), "A", 4, 2)
    assert grid.filled_count(capped) == 2  # seed 0 draws two cells twice


def test_patterns_with_too_few_cells_are_refused() -> None:
    with pytest.raises(ValueError, match="fewer than 5"):
        instances.generate_grids(1, ["X X ▢\n▢ ▢ ▢\n▢ ▢ ▢"])


def test_loading_a_clembench_file_and_a_bad_one(tmp_path) -> None:
    doc = instances.generate_instances(7, instances.v2_patterns()[:2], make_instance())
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert len(instances.load_instances(path)) == 4
    path.write_text('{"experiments": [{"name": "x"}]}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a clembench instances file"):
        instances.load_instances(path)
