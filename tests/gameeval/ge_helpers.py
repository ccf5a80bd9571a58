"""Scripted episodes for the GameEval tests: a setup line plus replies -> the replay contract's output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pcg_plugin.problems.gameeval import replay

FIXTURES = Path(__file__).parent / "fixtures"
SEATS = ["Tom", "Nancy", "Cindy", "Jack", "Rose", "Edward"]
TK_SEATING = [
    {"name": "Tom", "role": "Queen"},
    {"name": "Nancy", "role": "Princess"},
    {"name": "Cindy", "role": "Chef"},
    {"name": "Jack", "role": "Spy"},
    {"name": "Rose", "role": "Maid"},
    {"name": "Edward", "role": "Guard"},
    {"name": "Robert", "role": "Minister"},
]


def askguess(word: str, mode: str, replies: list[str | None]) -> dict[str, Any]:
    return replay.replay_line("askguess", {"id": "t", "trial": 0, "mode": mode, "word": word, "replies": replies})


def spyfall(replies: list[str | None], spy_index: int = 2) -> dict[str, Any]:
    line = {
        "id": "t",
        "trial": 0,
        "pair": ["tiger", "lion"],
        "players": SEATS,
        "spy_index": spy_index,
        "spy_llm": "gpt4",
        "villager_llm": "gpt3",
        "replies": replies,
    }
    return replay.replay_line("spyfall", line)


def tofukingdom(replies: list[str | None]) -> dict[str, Any]:
    return replay.replay_line("tofukingdom", {"id": "t", "trial": 3, "seating": TK_SEATING, "replies": replies})


def said(speak: Any) -> str:
    return json.dumps({"thought": "t", "speak": speak})


def vote(name: Any, speak: Any = "s") -> str:
    return json.dumps({"thought": "t", "speak": speak, "name": name})


def describe_round(n: int = 6) -> list[str | None]:
    return [said(f"clue {i}") for i in range(n)]


def ask(question: Any = "What is your identity?") -> str:
    return json.dumps({"thought": "t", "question": question})


def answer(text: Any = "My identity is Chef.") -> str:
    return json.dumps({"thought": "t", "answer": text})


def seven_questions() -> list[str | None]:
    return [r for _ in range(7) for r in (ask(), answer())]
