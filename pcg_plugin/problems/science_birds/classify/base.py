"""What every classifier shares: the result of one image, the interface, and the base of wrappers.

Imports no torch and of ours only the alphabet (``pcg_plugin.problems.science_birds.letters``), so every other
module of the package (and its users) can start here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pcg_plugin.problems.science_birds.letters import LETTERS


@dataclass(frozen=True)
class Classification:
    """One image's result: ``probs`` = softmax over the 26 letters in A..Z order; ``embedding`` = 2025 vector."""

    probs: tuple[float, ...]
    embedding: tuple[float, ...]

    @property
    def top(self) -> str:
        return LETTERS[max(range(len(self.probs)), key=self.probs.__getitem__)]

    def prob(self, letter: str) -> float:
        """The official similarity for target ``letter``: its softmax probability."""
        return self.probs[LETTERS.index(letter.upper())]


class ClassifierLike(Protocol):
    """What the pipeline needs from a classifier: one call per batch, plus identity for provenance (read only:
    a wrapper answers with its inner model's)."""

    @property
    def digest(self) -> str: ...

    @property
    def name(self) -> str: ...

    def classify(self, images: Sequence[Any]) -> list[Any]: ...


class ClassifierWrapper:
    """Base for wrappers around a classifier: provenance (digest, name) stays the wrapped model's."""

    inner: ClassifierLike

    @property
    def digest(self) -> str:
        return self.inner.digest

    @property
    def name(self) -> str:
        return self.inner.name
