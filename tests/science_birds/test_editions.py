"""The Edition record: each edition's facts as the spec states them, and no edition branch elsewhere."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pcg_plugin
from pcg_plugin.problems.science_birds.editions import EDITIONS, PROGRAM_YEARS, YEARS, edition


def test_the_facts_of_each_edition():
    e23, e24, e25 = (edition(y) for y in ("2023", "2024", "2025"))
    assert (e23.function, e23.diversity_vector, e23.pairing, e23.chat_function) == ("ab_drop", None, "position", None)
    assert e23.stages == ("stability", "similarity") and not e23.takes_programs
    assert (e24.function, e24.diversity_vector, e24.pairing, e24.profile.seed) == ("drop_block", "probs", "index", 42)
    assert (e24.chat_function, e24.official_packages, e24.profile.max_time) == (
        "chat_with_chatgpt",
        ("chatgpt4pcg",),
        120.0,
    )
    assert (e25.diversity_vector, e25.profile.seed, e25.profile.max_time, e25.chat_function) == (
        "embedding",
        None,
        500.0,
        "chat_with_llm",
    )
    assert e25.several_models and e25.fixed_seeds_rule and not (e24.several_models or e24.fixed_seeds_rule)
    assert YEARS == ("2023", "2024", "2025") and PROGRAM_YEARS == ("2024", "2025")


def test_an_unknown_edition_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown edition '2026' \\(one of 2023, 2024, 2025\\)"):
        edition("2026")


def edition_comparisons(source: str) -> list[int]:
    """Lines comparing something with an edition's year (``x == "2025"``, ``x in ("2024", "2025")``)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            consts = [c for c in ast.walk(node) if isinstance(c, ast.Constant) and c.value in EDITIONS]
            if consts:
                lines.append(node.lineno)
    return lines


def test_no_edition_branch_outside_the_record():
    package = Path(pcg_plugin.__file__).parent
    found = {
        str(p.relative_to(package)): edition_comparisons(p.read_text())
        for p in sorted(package.rglob("*.py"))
        if p.name != "editions.py"
    }
    assert {k: v for k, v in found.items() if v} == {}


def test_the_branch_finder_finds_branches():
    assert edition_comparisons('if e == "2023":\n    pass\nok = y in ("2024", "2025")\nx = "2023"\n') == [1, 3]
