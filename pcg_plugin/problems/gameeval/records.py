"""One GameEval episode's outcome as it travels from the worker to the controller (JSON on the test report)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from pcg_plugin._util import jsontext

PROGRAM_FAILED = "role_program_failed"
CONSEQUENCE = {
    PROGRAM_FAILED: "the participant's program gave no prompt: the episode was not played, and it "
    "counts as a loss for the submission's role (no outcome)"
}


@dataclass(frozen=True)
class EpisodeRecord:
    """``outcome``: the reference's label (Ask-Guess error type, SpyFall winner, TofuKingdom named role or
    error string, or ``crash``); ``rounds``/``result`` as ``pcg gameeval replay`` prints them; ``why`` in
    words; ``events`` the typed transcript (every call with its exact messages). ``reason`` is None for a
    played episode, ``role_program_failed`` when the participant's program gave no prompt."""

    nodeid: str
    submission: str
    game: str
    target: str
    trial: int
    outcome: str | None
    rounds: int | None = None
    result: dict[str, Any] | None = None
    why: str = ""
    exception: str | None = None
    role: str | None = None
    models: dict[str, str] = field(default_factory=dict)
    setup: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    reason: str | None = None
    message: str | None = None
    model: str | None = None  # the item's model level in a several-model run (a model, or an assignment a--b)
    usage: dict[str, int] = field(default_factory=dict)
    assignment: dict[str, str] = field(default_factory=dict)  # with a level: role -> model entry (--pcg-model's)
    forfeit: str | None = None  # the role whose reply ended the game with no winner (a crash, an error string)

    def to_json(self) -> str:
        return jsontext.dumps(asdict(self), sort_keys=True)  # a lone surrogate in a reply crosses xdist too

    @classmethod
    def from_json(cls, text: str) -> EpisodeRecord:
        return cls(**json.loads(text))
