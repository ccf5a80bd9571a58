"""One episode's outcome as it travels from the worker to the controller (JSON on the test report)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from pcg_plugin._util import jsontext

ABORTED = "aborted"
NOT_SCORED = "not_scored"
PROGRAM_FAILED = "giver_program_failed"
# What each reason does to the figures (said once; the terminal, the item report and report.html show it).
CONSEQUENCE = {
    ABORTED: "clembench aborts the episode: Aborted 1, counted against % Played, no quality (NaN), Success 0",
    PROGRAM_FAILED: "no Giver prompt: counted as an aborted episode (against % Played, no quality)",
    NOT_SCORED: "clembench's scorer writes no scores.json for it: left out of the figures, as clemeval does",
}


@dataclass(frozen=True)
class EpisodeResult:
    """``reason``: None for a played episode; ``aborted`` (a malformed reply or a refused call: Played 0, NaN
    quality), ``giver_program_failed`` (the participant's Giver program gave no prompt: counted as aborted),
    ``not_scored`` (DONE before any turn: clembench's scorer writes no scores.json, so the episode is left out
    of the aggregates as there). ``scores`` is the scores.json object (None when not scored)."""

    nodeid: str
    submission: str
    instance: str
    experiment: str
    game_id: int
    trial: int
    outcome: str
    turns: int
    target: str
    reason: str | None = None
    message: str | None = None
    model: str | None = None
    player_model: str = ""
    scores: dict[str, Any] | None = None
    drawn: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    episode_dir: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    assignment: dict[str, str] = field(default_factory=dict)  # with a model level: giver/follower -> model entry

    @property
    def episode(self) -> dict[str, Any] | None:
        return self.scores["episode scores"] if self.scores else None

    @property
    def played(self) -> bool | None:
        """Whether it counts as played (None: left out of the aggregates)."""
        if self.reason == NOT_SCORED:
            return None
        return self.reason is None

    @property
    def main_score(self) -> float:
        ep = self.episode
        return float(ep["Main Score"]) if ep else math.nan

    def to_json(self) -> str:
        return jsontext.dumps(asdict(self), sort_keys=True)  # a lone surrogate in a reply crosses xdist too

    @classmethod
    def from_json(cls, text: str) -> EpisodeResult:
        return cls(**json.loads(text))
