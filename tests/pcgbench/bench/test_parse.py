from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.parse import last_fenced_block, parse_grid


def test_digit_rows_in_the_last_block():
    text = "draft:\n```\n99\n```\nfinal:\n```text\n0 1 2\n1,1,0\n\n210\n```\nbye"
    assert parse_grid(text) == ([[0, 1, 2], [1, 1, 0], [2, 1, 0]], None)


def test_json_list_of_lists():
    assert parse_grid("```json\n[[0, 1], [1, 0]]\n```") == ([[0, 1], [1, 0]], None)
    grid, reason = parse_grid("```json\n[[0, 1], [1, true]]\n```")
    assert grid is None and "JSON" in reason
    grid, reason = parse_grid("```\n[[0, 1], [1, 0\n```")
    assert grid is None and "JSON" in reason


def test_named_reasons():
    assert parse_grid("no code here") == (None, "no block: the reply has no fenced block (```...```)")
    assert parse_grid("```\n\n```")[1] == "not a grid: the fenced block is empty"
    grid, reason = parse_grid("```\n01\nab\n```")
    assert grid is None and "line 2" in reason
    assert last_fenced_block("```\nonly opening") is None


@given(st.text())
def test_parser_never_crashes(text):
    grid, reason = parse_grid(text)
    assert (grid is None) != (reason is None)


@given(
    st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=12), min_size=1, max_size=12),
    st.sampled_from(["", " ", ","]),
)
def test_round_trip(grid, sep):
    body = "\n".join(sep.join(map(str, row)) for row in grid)
    assert parse_grid(f"Here:\n```\n{body}\n```") == (grid, None)
