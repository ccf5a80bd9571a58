"""One trial's outcome (what a worker sends the controller).

A response that holds no content the variant accepts is an official zero with a named reason (one of the content
kind's `reasons`, e.g. `no_block` or `wrong_shape` for grids, or a program's `errors.Reason` such as
`program_error` or `timeout`) and a message that says what was wrong; it never raises.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from pcg_plugin._util.numbers import fixed


@dataclass(frozen=True)
class BenchRecord:
    """A trial: the content read from the response (None when none was), the benchmark's info (the content itself
    left out: it is `content`), quality and controllability in [0, 1], or the reason it scored zero."""

    nodeid: str
    submission: str
    instance: str
    control: Any  # the benchmark's own JSON
    trial: int
    format: str
    reason: str | None = None
    message: str | None = None
    content: Any = None
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
        """The info the benchmark's pairwise diversity reads (the content put back)."""
        assert self.info is not None and self.content is not None
        return {**self.info, "content": self.content}

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> BenchRecord:
        return cls(**json.loads(text))


def describe(record: BenchRecord) -> str:
    """One human line per trial (the item's report section)."""
    if record.reason:
        return f"score 0: {record.reason}: {record.message or ''}".strip()
    return f"quality={fixed(record.quality)} controllability={fixed(record.controllability)}"


def trial_states(record: BenchRecord) -> list[dict[str, Any]]:
    """After the last call: the content read from the response (a grid as rows of tile numbers, anything else as
    JSON), its quality and controllability, or why it scored zero."""
    lines = [
        f"quality {record.quality:.4g} · controllability {record.controllability:.4g} · control "
        f"{json.dumps(record.control)}"
    ]
    # why it scored 0 is the trial's summary (``describe``), said once on its page
    state: dict[str, Any] = {"title": f"the content for {record.instance}", "lines": lines}
    content = record.content
    if isinstance(content, list) and content and all(isinstance(r, list) for r in content):
        state["grid"] = [[str(c) for c in row] for row in content]
    elif content is not None:
        lines.append(json.dumps(content, ensure_ascii=False)[:4000])
    if record.response:
        state["links"] = [["response", record.response]]
    return [state]
