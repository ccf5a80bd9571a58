"""Extraction against the official golden outputs, its quirks, and arbitrary text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.science_birds.level.extract import extract_code


def _golden(reference):  # type: ignore[no-untyped-def]
    cases = json.loads((reference / "official-golden/extract_convert_golden.json").read_text())
    few = json.loads((reference / "official-golden/few_shot_levels_golden.json").read_text())
    cases.update({k: {"input": v["response"], **v} for k, v in few.items()})
    return cases


def test_every_golden_case_extracts_exactly(reference) -> None:
    cases = _golden(reference)
    assert len(cases) >= 25
    for name, case in cases.items():
        assert extract_code(case["input"]) == case["extracted"], name


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("```\n# drop_block('b11', 6)\n```", "drop_block('b11', 6)\n"),  # comments are not skipped
        ("```\ndrop_block('b11', 1) drop_block(\"b31\", 2)\n```", "drop_block('b11', 1)\ndrop_block('b31', 2)\n"),
        ("```\ndrop_block('b11',\t1)\n```", None),  # tab after the comma does not match
        ("```\ndrop_block('b11', 4.0)\n```", None),
        ("```\ndrop_block('b11', -1)\n```", None),
        ("```\ndrop_block('b11', x=1)\n```", None),
        ("```\ndrop_block('b11', \u0663)\n```", None),  # JavaScript \d is ASCII only
        ("```a```\n```\ndrop_block('b11', 2)\n```", "drop_block('b11', 2)\n"),
        ("```\ndrop_block('b11', 2)\n```\n```\nno calls\n```", None),  # last block wins even without calls
    ],
)
def test_official_quirks(response: str, expected: str | None) -> None:
    assert extract_code(response) == expected


def test_prefix_for_2023() -> None:
    assert extract_code("```\nab_drop('b11', 3)\n```", prefix="ab_drop") == "ab_drop('b11', 3)\n"


@given(st.text())
def test_arbitrary_text_never_crashes(text: str) -> None:
    out = extract_code(text)
    assert out is None or (out.endswith("\n") and out == out.lower())


@given(st.lists(st.tuples(st.sampled_from(["b11", "b31", "b13"]), st.integers(0, 99)), min_size=1))
def test_fenced_literal_calls_round_trip(calls) -> None:  # type: ignore[no-untyped-def]
    body = "".join(f'drop_block("{k}", {x})\n' for k, x in calls)
    assert extract_code(f"text\n```python\n{body}```\nmore") == body.replace('"', "'")
