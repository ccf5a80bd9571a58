"""The info cache: one computation per distinct content, independent copies, least recently used dropped."""

from pcg_plugin.problems.pcgbench.bench.info_cache import cached


def test_one_call_per_content_and_copies_are_independent():
    calls = []

    def info(content):
        calls.append(content)
        return {"rows": [list(r) for r in content]}

    cached_info = cached(info, size=2)
    a = cached_info([[1, 2]])
    a["rows"][0][0] = 99
    assert cached_info([[1, 2]]) == {"rows": [[1, 2]]} and len(calls) == 1
    cached_info({"b": 1, "a": 2})
    assert cached_info({"a": 2, "b": 1}) and len(calls) == 2  # key order does not matter
    cached_info([[3]])  # evicts [[1, 2]], the least recently used
    cached_info([[1, 2]])
    assert len(calls) == 4
