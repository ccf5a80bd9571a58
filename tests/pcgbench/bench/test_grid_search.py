import itertools

from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.grid_search import (
    bfs_distances,
    count_regions,
    first_tile_distance,
    first_tile_path,
    longest_path,
    walk_back,
)


def test_bfs_distances_and_unreachable():
    grid = [[1, 1, 0], [0, 1, 0], [1, 0, 1]]
    dist = bfs_distances(grid, (0, 0), (1,))
    assert dist == [[0, 1, -1], [-1, 2, -1], [-1, -1, -1]]
    assert bfs_distances(grid, (2, 0), (1,))[0][2] == -1  # a solid start reaches nothing


def test_regions_count_components():
    assert count_regions([[1, 0, 1], [0, 0, 0], [1, 1, 0]], (1,)) == 3
    assert count_regions([[0, 0], [0, 0]], (1,)) == 0


def test_longest_path_is_a_double_sweep_not_the_diameter():
    # A straight corridor: exact.
    assert longest_path([[1] * 6], (1,)) == 5
    # Max over components, each swept from its first tile.
    assert longest_path([[1, 1, 1, 0, 1]], (1,)) == 2


def test_first_tiles_and_walk_back_order():
    grid = [[2, 1, 1], [1, 1, 1], [1, 1, 3]]
    assert first_tile_distance(grid, (2,), (3,), (1, 2, 3)) == 4
    # Walking back from the key takes the first lower neighbour in left, right, up, down order.
    assert first_tile_path(grid, (2,), (3,), (1, 2, 3)) == [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)]
    assert first_tile_distance(grid, (4,), (3,), (1, 2, 3)) == -1
    assert first_tile_path([[2, 0, 3]], (2,), (3,), (1, 2, 3)) == []


def test_walk_back_of_the_start_is_empty():
    assert walk_back([[0, 1]], (0, 0)) == []


grids = st.integers(1, 6).flatmap(
    lambda w: st.lists(st.lists(st.integers(0, 1), min_size=w, max_size=w), min_size=1, max_size=6)
)


@given(grids)
def test_longest_path_bounded_by_tiles_and_paths_are_adjacent(grid):
    n = sum(map(sum, grid))
    assert 0 <= longest_path(grid, (1,)) <= max(n - 1, 0)
    tiles = [(x, y) for y, row in enumerate(grid) for x, v in enumerate(row) if v == 1]
    if len(tiles) >= 2:
        dist = bfs_distances(grid, tiles[0], (1,))
        path = walk_back(dist, tiles[-1])
        if dist[tiles[-1][1]][tiles[-1][0]] > 0:
            assert len(path) == dist[tiles[-1][1]][tiles[-1][0]] + 1 and path[0] == tiles[0]
            assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in itertools.pairwise(path))


def test_walk_back_prefers_left_over_right_on_a_ring():
    ring = [[1, 1, 1], [1, 0, 1], [1, 1, 1]]
    assert first_tile_path([[1, 2, 1], [1, 0, 1], [1, 3, 1]], (2,), (3,), (1, 2, 3)) == [
        (1, 0),
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 2),
    ]
    assert walk_back(bfs_distances(ring, (1, 0), (1,)), (1, 2))[1] == (0, 0)


def test_farthest_tile_is_the_first_maximum_row_major():
    from pcg_plugin.problems.pcgbench.bench.grid_search import _farthest

    assert _farthest([[1, 0, 1], [-1, -1, 1]]) == ((0, 0), 1)
