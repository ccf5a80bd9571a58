import numpy as np
import pytest
from bench_golden import check_golden, check_item, variants
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.games.loderunner import problem as loderunner
from pcg_plugin.problems.pcgbench.games.loderunner.play import DATA, read_level

VARIANTS = variants("loderunner")
V0 = VARIANTS["loderunner-v0"]
README = loderunner.README_PATTERNS


def test_golden_vectors_from_the_reference():
    assert check_golden("loderunner", VARIANTS.__getitem__) >= 30


def test_readme_example_expands_to_the_first_original_level():
    """The README's 11×16 pattern grid expands to level_0 (its last row forced solid) and is feasible; the
    surface scan covers all 22 rows here (184 surfaces; the tile variant's 21 rows give 152)."""
    level = loderunner.expand(README)
    original = read_level(DATA / "levels" / "level_0.txt")
    assert level[:21] == original[:21] and level[21] == [0] * 32
    inf = V0.info(README)
    assert (inf["used_tiles"], inf["tiles"], inf["islands"]) == (184, 184, 29)
    assert V0.quality(inf) == 1.0


def test_patterns_and_expansion():
    blocks = loderunner.patterns()
    assert len(blocks) == 52 and V0.content.alphabet == 52
    level = loderunner.expand([[5] * 16 for _ in range(11)])
    assert len(level) == 22 and all(len(row) == 32 for row in level)
    assert level[0][:2] == list(blocks[5][0]) and level[1][:2] == list(blocks[5][1])
    assert level[-1] == [0] * 32


def test_variant_constants():
    assert V0.control_space == {"ladder": (0, 140), "rope": (0, 140)}
    assert V0.controllability({"ladder": 40, "rope": 20}, {"ladder": 54, "rope": 6}) == 1.0  # cerror 14
    assert V0.content.check([[0] * 16] * 11) is None
    assert "wrong alphabet" in V0.content.check([[52] * 16] * 11)


@pytest.mark.parametrize("name", sorted(VARIANTS))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_any_pattern_grid_scores_in_unit_range(name, data):
    bench = VARIANTS[name]
    content = bench.content.sample(np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))))
    if data.draw(st.booleans()):  # start from the README level, a few patterns changed: the deep stages run
        content = [row[:] for row in README]
        for _ in range(data.draw(st.integers(0, 6))):
            content[data.draw(st.integers(0, 10))][data.draw(st.integers(0, 15))] = data.draw(st.integers(0, 51))
    control = {k: data.draw(st.integers(lo, hi - 1)) for k, (lo, hi) in bench.control_space.items()}
    check_item(bench, content, control)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_examples_are_feasible(name):
    for content in loderunner.examples(name):
        assert VARIANTS[name].content.check(content) is None
        assert VARIANTS[name].quality(VARIANTS[name].info(content)) == 1.0
    assert len(loderunner.examples(name)) == 1


def test_patterns_are_written_as_codes_and_drawn_as_tiles():
    kind = V0.content
    assert kind.legend[0] == "11/00" and kind.wide_codes
    assert kind.placeholder_values()["<TILES>"].splitlines()[6] == "6 = rope"
    assert [label for label, _ in kind.key()][2] == "2 = player" and len({c for _, c in kind.key()}) == 7
    svg = kind.draw(README)
    assert svg.count("<rect") == 22 * 32 and 'width="320" height="220"' in svg
    assert kind.parse(kind.show(README)) == (README, None)
