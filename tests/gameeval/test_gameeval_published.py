"""The README's Ask-Guess table read back: scripted episodes shaped like a published row (scripts/
gameeval_published.py), replayed and aggregated with --n 100, give that row's Round, ST, EE, RLE, AME, CE."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pcg_plugin.problems.gameeval import aggregate, replay

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "figures" / "gameeval_published.py"
_spec = importlib.util.spec_from_file_location("gameeval_published", SCRIPT)
assert _spec and _spec.loader
published = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(published)
KEYS = ("SuccessfulTrial", "EndingError", "RoundLimitError", "AnswerMentionedError", "ChatError")


def row_back(row: str) -> tuple[float, ...]:
    results = [replay.replay_line("askguess", line)["result"] for line in published.script(row)]
    avg = aggregate.askguess(results, n=100)["avg"]
    return (round(avg["round"], 2), *(round(100 * avg[k], 2) for k in KEYS))


@pytest.mark.parametrize(
    "row", [pytest.param(r, marks=[] if r == "easy/GPT4" else [pytest.mark.slow]) for r in published.PUBLISHED]
)
def test_a_published_row_reads_back(row: str) -> None:
    assert row_back(row) == published.PUBLISHED[row]
