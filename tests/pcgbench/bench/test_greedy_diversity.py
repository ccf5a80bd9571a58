import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.greedy_diversity import greedy_8ad18b6, greedy_head, head_survivors


def same(a, b):
    return 0.0 if a == b else 1.0


def test_identical_items_head_quirk():
    """Spec §1.2 (measured on the benchmark): 3 identical → [0.333, 1.0, 0.5]; 2 → [0.5, 1.0]; 1 → 1.0."""
    frac, values = greedy_head(["a", "a", "a"], same)
    assert frac == pytest.approx(1 / 3)
    assert values == pytest.approx([1 / 3, 1.0, 0.5])
    assert greedy_head(["a", "a"], same) == (0.5, [0.5, 1.0])
    assert greedy_head(["a"], same) == (1.0, [1.0])


def test_all_distinct_all_survive():
    assert greedy_head(list("abcd"), same) == (1.0, [1.0] * 4)
    assert greedy_8ad18b6(list("abcd"), same) == (1.0, [1.0] * 4)


def test_old_greedy_identical_items():
    frac, values = greedy_8ad18b6(["a", "a", "a"], same)
    assert frac == pytest.approx(1 / 3)
    assert values == [0.0, 0.0, 1.0]


@given(st.lists(st.sampled_from("abc"), min_size=2, max_size=8).filter(lambda xs: len(set(xs)) < len(xs)))
def test_a_set_with_duplicates_is_below_one(items):
    for greedy in (greedy_head, greedy_8ad18b6):
        frac, values = greedy(items, same)
        assert frac < 1
        assert all(0.0 <= v <= 1.0 for v in values) and len(values) == len(items)
    # HEAD keeps exactly one item per class of identical items.
    assert greedy_head(items, same)[0] == pytest.approx(len(set(items)) / len(items))


def test_old_greedy_decrements_every_remaining_partner():
    """8ad18b6 decrements all partners still present, similar or not, so it can keep duplicates:
    [a, a, b, b] keeps three items (HEAD keeps two)."""
    assert greedy_8ad18b6(list("aabb"), same) == (0.75, [0.0, 1.0, 1.0, 1.0])
    assert greedy_head(list("aabb"), same)[0] == 0.5


@given(st.lists(st.sampled_from("abcd"), min_size=1, max_size=8))
def test_head_survivors_are_the_items_greedy_scores_one(items):
    """The survivors are as many as the fraction says, pairwise fully diverse, one per class of identical items."""
    kept = head_survivors(items, same)
    assert len(kept) == pytest.approx(greedy_head(items, same)[0] * len(items))
    assert sorted(items[i] for i in kept) == sorted(set(items))
    assert kept == sorted(kept)


def test_head_survivors_name_which_item_survived():
    """3 identical items: the first two are dropped in turn, the last survives (the value array is permuted)."""
    assert head_survivors(["a", "a", "a"], same) == [2]
    assert head_survivors(["a", "b", "a"], same) == [1, 2]


T, TT = 1 / 3, 2 / 3
# Pairwise diversities of 9 items whose similarity row sums 5 and 7 tie up to the last bit: numpy's pairwise
# summation (what the benchmark's `sim_matrix.sum(axis=1)` does) makes row 5 the largest, a left-to-right sum row 7.
NEAR_TIE = [
    [0.0, 0.55, 0.55, 0.55, TT, 0.45, TT, TT, 0.45],
    [0.55, 0.0, 0.6, TT, 0.7, 0.2, 0.9, 0.3, 0.6],
    [0.55, 0.6, 0.0, T, 0.7, 0.3, 0.6, 0.3, 0.2],
    [0.55, TT, T, 0.0, 0.7, 0.45, 0.9, T, 0.9],
    [TT, 0.7, 0.7, 0.7, 0.0, 0.2, 0.3, 0.2, 0.2],
    [0.45, 0.2, 0.3, 0.45, 0.2, 0.0, 0.9, 0.1, 0.1],
    [TT, 0.9, 0.6, 0.9, 0.3, 0.9, 0.0, 0.1, 0.55],
    [TT, 0.3, 0.3, T, 0.2, 0.1, 0.1, 0.0, 0.7],
    [0.45, 0.6, 0.2, 0.9, 0.2, 0.1, 0.55, 0.7, 0.0],
]


def test_head_greedy_breaks_near_ties_with_numpy_row_sums():
    from pcg_plugin.problems.pcgbench.bench.greedy_diversity import _head_removals, similarity_matrix

    def pair(a, b):
        return NEAR_TIE[a][b]

    sums = [sum(row) for row in similarity_matrix(range(9), pair)]
    assert sums.index(max(sums)) == 7  # what a plain Python sum would remove first
    assert _head_removals(range(9), pair)[0][0] == 5
