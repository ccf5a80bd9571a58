"""TrialRecord: everything one item measured, JSON-ready so it can travel on a pytest report across xdist."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pcg_plugin._util.paths import stem
from pcg_plugin.problems.science_birds.letters import letter_at

OUTCOMES = ("ok", "zero")


@dataclass(frozen=True)
class TrialRecord:
    """One trial of one submission for one letter.

    ``sta`` is present iff a level XML was produced (the official stability file holds one raw per level),
    ``sim``/``probs`` iff an image was produced (the similarity file holds one entry per image). Missing values
    score 0 in the official scorer; they are never averaged away. ``reason`` names the official failure.
    """

    nodeid: str
    submission: str
    letter: str
    trial: int
    format: str = "program-2024"
    seed: int = 0
    sta: float | None = None
    sim: float | None = None
    total_blocks: int | None = None
    moving_blocks: int | None = None
    top: str | None = None
    reason: str | None = None
    message: str | None = None
    probs: tuple[float, ...] | None = None
    embedding: tuple[float, ...] | None = None
    timings: Mapping[str, float] = field(default_factory=dict)
    usage: Mapping[str, Any] = field(default_factory=dict)
    paths: Mapping[str, str] = field(default_factory=dict)  # raw/code/level/image, relative to the run folder
    model: str | None = None  # set only in a several-model (2025) run: which model answered

    @property
    def outcome(self) -> str:
        return "zero" if self.reason is not None else "ok"

    @property
    def stem(self) -> str:
        """The official file stem ``<team>_<C>_<n>``."""
        return stem(self.submission, self.letter, self.trial)

    def to_json(self) -> str:
        """Compact JSON; floats round-trip exactly (repr), so -n 0 and -n 2 score identically."""
        data = asdict(self)
        if data["model"] is None:
            del data["model"]  # a one-model run's records stay exactly as before several models existed
        return json.dumps(data, separators=(",", ":"), sort_keys=True, allow_nan=False)

    @classmethod
    def from_json(cls, text: str) -> TrialRecord:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrialRecord:
        kw = dict(data)
        for key in ("probs", "embedding"):
            if kw.get(key) is not None:
                kw[key] = tuple(float(v) for v in kw[key])
        kw["trial"] = int(kw["trial"])
        return cls(**kw)

    def trial_entry(self) -> dict[str, Any]:
        """The per-trial object of results.json (schema pytest-pcg/results/1), without the score."""
        return {
            "trial": self.trial,
            "nodeid": self.nodeid,
            "sta": self.sta,
            "sim": self.sim,
            "total_blocks": self.total_blocks,
            "moving_blocks": self.moving_blocks,
            "top": self.top,
            "reason": self.reason,
            "message": self.message,
            "raw": self.paths.get("raw"),
            "code": self.paths.get("code"),
            "level": self.paths.get("level"),
            "image": self.paths.get("image"),
            "probs": list(self.probs) if self.probs is not None else None,
            "timings": dict(self.timings),
            "seed": self.seed,
        }


def trial_seed(submission: str, letter: str, trial: int) -> int:
    """A 31-bit seed from the item's identity only (never the worker or the clock)."""
    digest = hashlib.sha256(f"pytest-pcg:{submission}:{letter}:{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def top_letter(probs: Sequence[float]) -> str:
    """The classifier's most likely letter (A=0 ... Z=25)."""
    best = max(range(len(probs)), key=lambda i: probs[i])
    return letter_at(best)


def from_properties(properties: Sequence[tuple[str, Any]]) -> TrialRecord | None:
    """The record a report carries, if any."""
    from pcg_plugin.core.session.items import record_json

    text = record_json(properties)
    return TrialRecord.from_json(text) if text is not None else None
