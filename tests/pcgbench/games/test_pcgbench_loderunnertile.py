import numpy as np
import pytest
from bench_golden import check_golden, check_item, variants
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.games.loderunner import tile as loderunnertile
from pcg_plugin.problems.pcgbench.games.loderunner.play import (
    DATA,
    horizontal_histogram,
    js_distance,
    play,
    read_level,
    reference_histograms,
    vertical_histogram,
)

VARIANTS = variants("loderunnertile")
V0 = VARIANTS["loderunnertile-v0"]


def test_golden_vectors_from_the_reference():
    assert check_golden("loderunnertile", VARIANTS.__getitem__) >= 30


def test_first_original_level_measured_values():
    """Spec §10b: level_0's first 21 rows: counts, islands 29, 6 gold collected, 152 of 152 surfaces, JS
    distances 0.2659 / 0.5300 / 0.1418 / 0.1402, quality 1.0."""
    inf = V0.info(read_level(DATA / "levels" / "level_0.txt")[:21])
    assert [inf[k] for k in ("player", "gold", "enemy", "ladder", "rope", "islands")] == [1, 6, 4, 40, 20, 29]
    assert (inf["collected_gold"], inf["used_tiles"], inf["tiles"]) == (6, 152, 152)
    assert [round(inf[k], 4) for k in ("walking", "hanging", "climbing", "falling")] == [0.2659, 0.53, 0.1418, 0.1402]
    assert V0.quality(inf) == 1.0


def test_readme_example_is_a_feasible_level():
    """The tile README's example level; quality measured on the reference."""
    level = loderunnertile.README_LEVEL
    assert V0.content.check(level) is None
    inf = V0.info(level)
    assert inf["player"] == 1 and inf["gold"] == 6 and inf["enemy"] == 4
    assert V0.quality(inf) == 1.0


def test_histogram_counts_distance_from_the_first_member_not_run_lengths():
    """Row 1 1 0 1 0: the first 1 is at 0; the non-members at 2 and 4 count at distances 2 and 4."""
    assert horizontal_histogram([[1, 1, 0, 1, 0]], 1) == [0, 0, 1, 0, 1]
    assert vertical_histogram([[1], [0], [0]], 1) == [0, 1, 1]


def test_js_distance_of_an_empty_histogram_is_sqrt_half():
    ref = reference_histograms()["walking"]
    assert js_distance([0.0] * len(ref), ref) == pytest.approx(0.5**0.5, abs=1e-12)
    assert js_distance(ref, ref) == 0.0
    assert all(abs(sum(h) - 1) < 1e-12 for h in reference_histograms().values())


def test_no_climbing_down_from_above_a_ladder():
    """Standing on the tile above a ladder (on solid ground next to it) the player cannot go down it."""
    level = [[1, 1, 1], [0, 5, 0], [0, 5, 0], [0, 0, 0]]
    level[0][0] = 2
    explored = play(level)
    assert explored[0] == [1, 1, 1]  # walks over the ladder's top (falling is blocked by the ladder)
    assert explored[1] == [0, 0, 0] and explored[2] == [0, 0, 0]


def test_a_second_player_or_none_skips_the_play():
    level = read_level(DATA / "levels" / "level_0.txt")[:21]
    level[0][0] = 2
    inf = V0.info(level)
    assert inf["player"] == 2 and all(v == 0 for row in inf["exploration"] for v in row)
    assert inf["walking"] == pytest.approx(0.5**0.5)


def test_control_space_and_cerror():
    assert V0.control_space == {"ladder": (0, 134), "rope": (0, 134)}
    inf = {"ladder": 40, "rope": 20}
    assert V0.controllability(inf, {"ladder": 53, "rope": 7}) == 1.0  # cerror 13
    assert V0.controllability(inf, {"ladder": 54, "rope": 20}) < 1.0


@pytest.mark.parametrize(
    "bad, reason",
    [
        ([[1] * 32] * 22, "wrong shape: 22 rows"),
        ([[1] * 31] + [[1] * 32] * 20, "wrong shape: row 0"),
        ([[7] + [1] * 31] + [[1] * 32] * 20, "wrong alphabet"),
    ],
)
def test_check_names_the_problem(bad, reason):
    assert reason in V0.content.check(bad)


@pytest.mark.parametrize("name", sorted(VARIANTS))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_any_level_scores_in_unit_range(name, data):
    bench = VARIANTS[name]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    content = bench.content.sample(rng)
    if data.draw(st.booleans()):  # one player, so the play runs
        content = [[1 if v == 2 else v for v in row] for row in content]
        content[data.draw(st.integers(0, 20))][data.draw(st.integers(0, 31))] = 2
    control = {k: data.draw(st.integers(lo, hi - 1)) for k, (lo, hi) in bench.control_space.items()}
    check_item(bench, content, control)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_examples_are_feasible(name):
    for content in loderunnertile.examples(name):
        assert VARIANTS[name].content.check(content) is None
        assert VARIANTS[name].quality(VARIANTS[name].info(content)) == 1.0
    assert len(loderunnertile.examples(name)) == 1
