"""The paper's three fitness functions, cascaded: quality first, controllability once quality is 1, diversity once
both are (the reference's `generators/search.py`, by its names `quality`, `quality_control`,
`quality_control_diversity`, with or without the `fitness_` prefix; here also `q`, `qt`, `qtd`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class Scored(Protocol):
    quality: float
    controllability: float
    diversity: float


Fitness = Callable[[Scored], float]


def quality(c: Scored) -> float:
    return c.quality


def quality_control(c: Scored) -> float:
    """(Q + [Q >= 1] * T) / 2."""
    return (c.quality + (c.controllability if c.quality >= 1 else 0.0)) / 2.0


def quality_control_diversity(c: Scored) -> float:
    """(Q + [Q >= 1] * T + [Q >= 1 and T >= 1] * D) / 3."""
    total = c.quality
    if c.quality >= 1:
        total += c.controllability
        if c.controllability >= 1:
            total += c.diversity
    return total / 3.0


FITNESSES: dict[str, Fitness] = {"q": quality, "qt": quality_control, "qtd": quality_control_diversity}
LONG = {"q": "quality", "qt": "quality_control", "qtd": "quality_control_diversity"}
SHOWN = {"q": "Q", "qt": "QT", "qtd": "QTD"}


def fitness_name(text: str) -> str:
    """The short name (q, qt, qtd) of a fitness given by either spelling; ValueError names the choices."""
    key = text.strip().lower().removeprefix("fitness_")
    for short, long in LONG.items():
        if key in (short, long):
            return short
    choices = ", ".join(f"{s} ({long})" for s, long in LONG.items())
    raise ValueError(f"no fitness {text!r}; known: {choices}")
