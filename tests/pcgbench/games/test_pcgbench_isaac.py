import re

import numpy as np
import pytest
from bench_golden import check_golden, check_item, variants
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.games.isaac import problem as isaac

VARIANTS = variants("isaac")
V0 = VARIANTS["isaac-v0"]
README = {
    "layout": [0, 8, 12, 9, 0, 14, 11, 10, 4, 15, 7, 3, 0, 2, 0, 0],
    "start": 6,
    "boss": 8,
    "shop": 13,
    "treasure": 1,
}


def test_golden_vectors_from_the_reference():
    assert check_golden("isaac", VARIANTS.__getitem__) >= 30


def test_readme_example():
    """The README's floor plan; values measured on the reference: a good plan whose start/boss marks (unscaled)
    are not connected, so it stops at the functional stage: quality 0.75."""
    assert V0.content.check(README) is None
    inf = V0.info(README)
    assert (inf["map_size"], inf["num_regions"], inf["connect_regions"], inf["loose_connections"]) == (11, 1, 1, 0)
    assert (inf["locations"], inf["player_boss_distance"], inf["dead_end"]) == (4, -1, 3)
    assert V0.quality(inf) == 0.75
    assert V0.controllability(inf, {"map_size": 6}) == 1.0
    assert V0.controllability(inf, {"map_size": 10}) == pytest.approx(0.6562499989746094, abs=1e-12)


def test_seeded_sample_has_identical_positions_and_the_measured_quality():
    """Spec §10b: isaac-v0 after seed(5): start = boss = shop = treasure = 10, locations 1, distance −1, 0.48999…"""
    content = isaac.benchmark_seeded_sample(4, 4, 5)
    assert {content[k] for k in isaac.POSITIONS} == {10}
    inf = V0.info(content)
    assert (inf["locations"], inf["player_boss_distance"]) == (1, -1)
    assert V0.quality(inf) == pytest.approx(0.48999999997, abs=1e-10)


def test_rooms_kwarg_is_ignored_every_variant_targets_six_rooms():
    assert len(VARIANTS) == 3 and {v.control_space["map_size"][0] for v in VARIANTS.values()} == {6}
    assert VARIANTS["isaac-large-v0"].control_space == {"map_size": (6, 64)}


def test_marks_use_unscaled_coordinates():
    """start 5 is marked at maze (1, 1) — room 0's centre — not at room 5's centre (4, 4)."""
    layout = [0] * 16
    layout[0], layout[5] = 4, 1  # room 0 with a right door (a loose one), room 5 alone
    content = {"layout": layout, "start": 5, "boss": 2, "shop": 0, "treasure": 0}
    # boss 2 -> maze (2, 0), above room 0's right door: (1, 1) -> (2, 1) -> (2, 0). Scaled marks would sit in
    # rooms 5 and 2, which are not connected (-1).
    assert V0.info(content)["player_boss_distance"] == 2
    content["boss"] = 3  # maze (3, 0): no passable neighbour
    assert V0.info(content)["player_boss_distance"] == -1
    content["boss"] = 5  # start == boss: the boss mark overwrites the start mark
    assert V0.info(content)["player_boss_distance"] == -1


def test_controllability_is_the_three_value_reward():
    inf = {"map_size": 10}
    assert V0.controllability(inf, {"map_size": 6}) == 1.0  # 10 ≥ 6 + 3.2, up to 16
    assert V0.controllability(inf, {"map_size": 10}) < 1.0  # exactly on target is *not* 1
    assert V0.controllability({"map_size": 16}, {"map_size": 6}) == 1.0


def test_diversity_normalisation_is_zero_above_wh():
    full = {"layout": [15] * 16, "start": 0, "boss": 1, "shop": 2, "treasure": 3}
    empty = {"layout": [0] * 16, "start": 0, "boss": 1, "shop": 2, "treasure": 3}
    a, b = V0.info(full), V0.info(empty)
    # 16 room cells differ by 1 (exactly W·H: 1.0), 64 door cells by 2 (above W·H: 0.0) → 0.25 → 0.25/0.6
    assert V0.diversity(a, b) == pytest.approx(0.25 / (0.6 + 1e-8), abs=1e-12)


@pytest.mark.parametrize(
    "bad, reason",
    [
        ([1, 2], "not a floor plan"),
        ({"layout": [0] * 16, "start": 0, "boss": 0, "shop": 0}, "missing treasure"),
        ({**README, "layout": [0] * 15}, "wrong shape"),
        ({**README, "layout": [0] * 17}, "cannot reshape"),
        ({**README, "layout": [16] + [0] * 15}, "wrong alphabet"),
        ({**README, "layout": [True] + [0] * 15}, "wrong alphabet"),
        ({**README, "boss": 16}, "wrong position: boss"),
        ({**README, "shop": "3"}, "wrong position: shop"),
    ],
)
def test_check_names_the_problem(bad, reason):
    assert reason in V0.content.check(bad)


def test_other_keys_are_ignored_as_the_benchmark_ignores_them():
    assert V0.content.check({**README, "extra": 1}) is None
    assert V0.quality(V0.info({**README, "extra": 1})) == V0.quality(V0.info(README))


def test_sample_draws_layout_then_positions_from_one_stream():
    kind = VARIANTS["isaac-medium-v0"].content
    a, b = kind.sample(np.random.default_rng(3)), kind.sample(np.random.default_rng(3))
    assert a == b and kind.check(a) is None
    rng = np.random.default_rng(3)
    assert a["layout"] == [int(rng.integers(0, 16)) for _ in range(36)] and a["start"] == int(rng.integers(0, 36))


@st.composite
def floor_plans(draw, name):
    kind = VARIANTS[name].content
    layout = draw(st.lists(st.integers(0, 15), min_size=kind.cells, max_size=kind.cells))
    pos = st.integers(0, kind.cells - 1)
    return {"layout": layout, "start": draw(pos), "boss": draw(pos), "shop": draw(pos), "treasure": draw(pos)}


@pytest.mark.parametrize("name", sorted(VARIANTS))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_floor_plan_scores_in_unit_range(name, data):
    bench = VARIANTS[name]
    content = data.draw(floor_plans(name))
    control = {"map_size": data.draw(st.integers(*bench.control_space["map_size"]))}
    check_item(bench, content, control)


def _reason(message: str) -> str:
    return message.split(":", 1)[0].strip().lower().replace(" ", "_")


@pytest.mark.parametrize("name", sorted(VARIANTS))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_show_parses_back_and_matches_the_answer_grammar(name, data):
    kind = VARIANTS[name].content
    content = data.draw(floor_plans(name))
    reply = "Here is my dungeon.\n" + kind.show(content)
    assert kind.parse(reply) == (content, None)
    assert re.fullmatch(kind.answer_regex(), reply)


@pytest.mark.parametrize(
    "reply, code",
    [
        ("no block here", "no_block"),
        ("```\n{not json\n```", "not_a_floor_plan"),
        ("```\n[1, 2]\n```", "not_a_floor_plan"),
    ],
)
def test_parse_names_each_failure(reply, code):
    content, message = V0.content.parse(reply)
    assert content is None and _reason(message) == code and code in V0.content.reasons


def test_check_reasons_are_documented():
    for bad in ([1], {**README, "layout": [0] * 3}, {**README, "layout": [99] * 16}, {**README, "boss": -1}):
        assert _reason(V0.content.check(bad)) in V0.content.reasons


def test_drawing_shows_rooms_doors_and_special_rooms():
    svg = V0.content.draw(README)
    assert svg.startswith("<svg") and svg.count(isaac.ROOM_FILL) == 11 and ">S<" in svg and ">&#36;<" in svg
    assert V0.content.placeholder_values()["<CELLS>"] == "16"


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_comb_plan_is_feasible_in_every_variant(name):
    bench = VARIANTS[name]
    (plan,) = bench.examples
    assert plan == isaac.comb_plan(bench.content.width, bench.content.height)
    inf = bench.info(plan)
    assert bench.content.check(plan) is None and bench.quality(inf) == 1.0
    assert inf["player_boss_distance"] >= bench.content.width + bench.content.height
