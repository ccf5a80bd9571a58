"""The letters constant, the class index of a letter (the official ``ord(C) - 65``) and the official file stem
(``_util.paths.stem``)."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin._util.paths import stem
from pcg_plugin.problems.science_birds.letters import LETTERS, letter_at, letter_index

PACKAGE = Path(__file__).resolve().parents[2] / "pcg_plugin"
# Science Birds' alphabet and its arithmetic are spelled only in its letters.py; clembench's picture game draws
# its grid letters from an A-Z of its own (its instances.py), a fact of that game.
_HOME = {"problems/science_birds/letters.py", "problems/imagegame/instances.py"}
_SPELLINGS = re.compile(r"ascii_uppercase|ABCDEFGHIJKLMNOPQRSTUVWXYZ|ord\([^)]*\)\s*-\s*65|chr\(\s*65\s*\+")


def test_letters_are_the_official_targets() -> None:
    assert tuple(string.ascii_uppercase) == LETTERS and len(LETTERS) == 26


@given(st.sampled_from(LETTERS))
def test_index_is_the_official_ord_minus_65_and_inverts(letter: str) -> None:
    assert letter_index(letter) == ord(letter) - 65
    assert letter_at(letter_index(letter)) == letter


@pytest.mark.parametrize("bad", ["a", "[", "@", "", "AB", "É", None])
def test_anything_but_a_target_letter_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="not a target letter"):
        letter_index(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 26, 100])
def test_an_index_outside_the_classes_is_refused(bad: int) -> None:
    with pytest.raises(ValueError, match=r"0\.\.25"):
        letter_at(bad)


def test_stem_is_the_official_file_stem() -> None:
    assert stem("team_x", "A", 10) == "team_x_A_10"


def test_the_alphabet_and_its_arithmetic_are_written_once() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() not in _HOME
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _SPELLINGS.search(line)
    ]
    assert found == []
