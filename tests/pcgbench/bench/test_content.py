import numpy as np

from pcg_plugin.problems.pcgbench.bench.content import (
    check_grid,
    content_rng,
    control_rngs,
    sample_control,
    sample_grid,
)
from pcg_plugin.problems.pcgbench.bench.problem import check_keyed_control


def test_check_grid_reasons():
    assert check_grid([[0, 1], [1, 0]], 2, 2, 2) is None
    assert check_grid([[0, 1]], 2, 2, 2).startswith("wrong shape: 1 rows")
    assert check_grid([[0, 1, 1], [1, 0]], 2, 2, 2).startswith("wrong shape: row 0")
    assert check_grid([[0, 2], [1, 0]], 2, 2, 2).startswith("wrong alphabet: cell (1, 0)")
    assert check_grid([[0, True], [1, 0]], 2, 2, 2).startswith("wrong alphabet")
    assert check_grid([[0, "1"], [1, 0]], 2, 2, 2).startswith("wrong alphabet")
    assert check_grid("0101", 2, 2, 2).startswith("not a grid")
    assert check_grid(None, 2, 2, 2).startswith("not a grid")


def test_check_grid_extra_rows_and_columns():
    """The benchmark's space takes a larger grid; scored where the variant allows it (`extra`), else named."""
    larger = [[0, 1, 1], [1, 0, 1], [0, 0, 0]]
    assert check_grid(larger, 2, 2, 2, extra=True) is None
    assert check_grid([[0, 1, 1], [1, 0, 1]], 2, 2, 2, extra=True) is None
    refused = check_grid(larger, 2, 2, 2, no_extra="it cannot")
    assert refused.startswith("wrong shape: 3 rows, expected 2") and refused.endswith("but it cannot)")
    assert "extra columns" in check_grid([[0, 1, 1], [1, 0, 1]], 2, 2, 2)
    assert "different lengths" in check_grid([[0, 1, 1], [1, 0]], 2, 2, 2, extra=True)
    assert check_grid([[0, 1, 2], [1, 0, 1]], 2, 2, 2, extra=True).startswith("wrong alphabet: cell (2, 0)")
    assert check_grid([[0, 1]], 2, 2, 2, extra=True).startswith("wrong shape: 1 rows")


def test_check_keyed_control():
    space = {"path": (35, 98)}
    assert check_keyed_control({"path": 50}, space) is None
    assert check_keyed_control({"path": 500}, space) is None  # outside the sampling range is still a target
    assert check_keyed_control({"path": 50, "note": "x"}, space) is None  # the benchmark ignores other keys
    assert "lacks the key(s) ['path']" in check_keyed_control({"crates": 2}, space)
    assert "integers" in check_keyed_control({"path": "50"}, space)
    assert "integers" in check_keyed_control({"path": True}, space)
    assert check_keyed_control([50], space) == "control is not an object"


def test_seeded_sampling_matches_scalar_row_major_draws():
    rng = np.random.default_rng(7)
    expected = [[int(rng.integers(0, 6)) for _ in range(11)] for _ in range(7)]
    assert sample_grid(np.random.default_rng(7), 7, 11, 6) == expected
    space = {"player_key": (11, 19), "key_door": (11, 19)}
    a = sample_control(control_rngs(3, space), space)
    assert a == sample_control(control_rngs(3, space), space)
    assert all(11 <= v < 19 for v in a.values())


def test_content_rng_is_the_last_cell_seed_of_the_nested_seeding():
    master = np.random.default_rng(11)
    last_row = [int(master.integers(2**31)) for _ in range(7)][-1]
    row = np.random.default_rng(last_row)
    last_cell = [int(row.integers(2**31)) for _ in range(11)][-1]
    expected = np.random.default_rng(last_cell).integers(0, 6, size=5).tolist()
    assert content_rng(11, 7, 11).integers(0, 6, size=5).tolist() == expected
