"""The 26 target letters and the classifier's index of each (the official file stem of a trial is
``pcg_plugin._util.paths.stem``). Standard library only."""

from __future__ import annotations

import string

LETTERS: tuple[str, ...] = tuple(string.ascii_uppercase)
"""A..Z: the competition's targets, in the classifier's class order (the official scripts read index
``ord(C) - 65``)."""

_INDEX = {letter: i for i, letter in enumerate(LETTERS)}


def letter_index(letter: str) -> int:
    """A -> 0 ... Z -> 25: the letter's class index; anything else is a ValueError, never a wrong class."""
    try:
        return _INDEX[letter]
    except (KeyError, TypeError):
        raise ValueError(f"{letter!r} is not a target letter A-Z") from None


def letter_at(index: int) -> str:
    """0 -> A ... 25 -> Z: the letter of a class index."""
    if not 0 <= index < len(LETTERS):
        raise ValueError(f"class index {index} is not 0..25")
    return LETTERS[index]
