"""One trial's outcome (what a worker sends the controller), and the reasons a trial scores zero.

A response that holds no level of the right shape and alphabet is an official zero with a named reason (one of
`GridReason`, or a program's `errors.Reason` such as `program_error` or `timeout`) and a message that says what was
wrong; it never raises.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from pcg_plugin.problems.pcgbench.content import Grid


class GridReason(StrEnum):
    """Why a PCG Benchmark trial scored zero before evaluation (the record's `reason`)."""

    NO_BLOCK = "no_block"
    """The response has no fenced block (```...```)."""
    NOT_A_GRID = "not_a_grid"
    """The last fenced block is empty, holds a line that is not digits, or JSON that is not a list of lists of ints."""
    WRONG_SHAPE = "wrong_shape"
    """The grid has the wrong number of rows or of cells in a row."""
    WRONG_ALPHABET = "wrong_alphabet"
    """A cell is not one of the problem's tile codes."""


def reason_of(message: str) -> GridReason:
    """The reason code of a parse or content-check message (`parse.py`, `content.check_grid` word them)."""
    if message.startswith("no fenced block"):
        return GridReason.NO_BLOCK
    if message.startswith("wrong shape"):
        return GridReason.WRONG_SHAPE
    if message.startswith("wrong alphabet"):
        return GridReason.WRONG_ALPHABET
    return GridReason.NOT_A_GRID


@dataclass(frozen=True)
class GridRecord:
    """A trial: the level read from the response (None when none was), the benchmark's info (the level itself
    left out: it is `content`), quality and controllability in [0, 1], or the reason it scored zero."""

    nodeid: str
    submission: str
    instance: str
    control: dict[str, int]
    trial: int
    format: str
    reason: str | None = None
    message: str | None = None
    content: Grid | None = None
    info: dict[str, Any] | None = None
    quality: float = 0.0
    controllability: float = 0.0
    response: str | None = None  # the raw response's path in the run folder
    usage: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    model: str | None = None

    @property
    def valid(self) -> bool:
        return self.content is not None and self.info is not None

    @property
    def feasible(self) -> bool:
        return self.quality >= 1

    @property
    def controlled(self) -> bool:
        return self.controllability >= 1

    def full_info(self) -> dict[str, Any]:
        """The info the benchmark's pairwise diversity reads (the level put back)."""
        assert self.info is not None and self.content is not None
        return {**self.info, "content": self.content}

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> GridRecord:
        return cls(**json.loads(text))


def describe(record: GridRecord) -> str:
    """One human line per trial (the item's report section)."""
    if record.reason:
        return f"score 0: {record.reason}: {record.message or ''}".strip()
    return f"quality={record.quality:.4f} controllability={record.controllability:.4f}"
