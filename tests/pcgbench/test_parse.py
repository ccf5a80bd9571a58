from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.parse import last_fenced_block, parse_response


def test_digit_rows_in_the_last_block():
    text = "draft:\n```\n99\n```\nfinal:\n```text\n0 1 2\n1,1,0\n\n210\n```\nbye"
    assert parse_response(text) == ([[0, 1, 2], [1, 1, 0], [2, 1, 0]], None)


def test_json_list_of_lists():
    assert parse_response("```json\n[[0, 1], [1, 0]]\n```") == ([[0, 1], [1, 0]], None)
    grid, reason = parse_response("```json\n[[0, 1], [1, true]]\n```")
    assert grid is None and "JSON" in reason
    grid, reason = parse_response("```\n[[0, 1], [1, 0\n```")
    assert grid is None and "JSON" in reason


def test_named_reasons():
    assert parse_response("no code here") == (None, "no fenced block in the response")
    assert parse_response("```\n\n```")[1] == "not a grid: the fenced block is empty"
    grid, reason = parse_response("```\n01\nab\n```")
    assert grid is None and "line 2" in reason
    assert last_fenced_block("```\nonly opening") is None


@given(st.text())
def test_parser_never_crashes(text):
    grid, reason = parse_response(text)
    assert (grid is None) != (reason is None)


@given(st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=12), min_size=1, max_size=12),
       st.sampled_from(["", " ", ","]))
def test_round_trip(grid, sep):
    body = "\n".join(sep.join(map(str, row)) for row in grid)
    assert parse_response(f"Here:\n```\n{body}\n```") == (grid, None)
