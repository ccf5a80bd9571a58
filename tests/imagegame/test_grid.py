from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.imagegame import grid

cells = st.lists(st.lists(st.sampled_from(["▢", "A", "B", "x"]), min_size=1, max_size=6), min_size=1, max_size=6)


def test_empty_grid_is_five_rows_of_five_empty_cells() -> None:
    assert grid.empty_grid(5) == "\n".join(["▢ ▢ ▢ ▢ ▢"] * 5)
    assert grid.size(grid.empty_grid(3)) == (3, 3)
    assert grid.filled_count(grid.empty_grid(5)) == 0


def test_size_reads_only_the_first_rows_width_after_strip() -> None:
    assert grid.size("\n\nA B\nC\n\n") == (2, 2)
    assert grid.size("A\tB C") == (1, 2)  # a tab is no cell separator


@given(cells)
def test_from_cells_round_trips(c: list[list[str]]) -> None:
    text = grid.from_cells(c)
    assert grid.rows(text) == c
    assert grid.filled_count(text) == sum(x != "▢" for row in c for x in row)
