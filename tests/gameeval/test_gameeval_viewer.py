"""A GameEval episode seen through the viewer: who spoke to whom, who voted for whom and who was eliminated,
each placed after the call it followed, and the episode's calls in order."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_gameeval_examples import args, subs  # noqa: F401 - subs is a fixture, used by name
from trial_pages import opened

from pcg_plugin.core.records import transcript


def test_a_spyfall_episode_shows_speeches_votes_and_the_elimination(pytester: pytest.Pytester, subs: Path) -> None:  # noqa: F811 - the imported fixture
    pytester.runpytest_subprocess(
        *args(
            "gameeval/spyfall",
            "--pcg-backend",
            "scripted",
            "--pcg-model",
            "ge_doubles:respond",
            "--pcg-out",
            "out",
            "--pcg-store",
            "store",
        )
    )
    doc = transcript.read(pytester.path / "out", "subs/spyfall/selfplay::tiger&lion::1")
    lines = [line for s in doc["states"] for line in s.get("lines", ())]
    assert lines[:2] == ["pair: tiger, lion", "players: Tom, Cindy, Jack, Rose, Nancy, Edward"]
    said = [s for s in doc["states"] if any(" said (to " in line for line in s.get("lines", ()))]
    assert said and all(0 < (s["after_call"] or len(doc["calls"])) <= len(doc["calls"]) for s in said)
    first = said[0]
    speaker, spoken = first["lines"][0].split(" said ")[0], first["lines"][0].split("): ", 1)[1]
    assert spoken.startswith(f"{speaker}: ")  # what was said is the reply of the call before it
    assert spoken.removeprefix(f"{speaker}: ") in doc["calls"][first["after_call"] - 1]["reply"]
    vote = [line for s in doc["states"] if s["title"] == "round 1: the vote" for line in s["lines"]]
    assert sum(" voted for " in line for line in vote) == 6  # each after the voter's own call
    assert vote[-1] == "the end: villager: round 1: the spy Cindy was voted out"
    page = opened(pytester.path / "out", transcript.page_rel(doc["nodeid"]))
    assert "<div>Edward voted for Cindy</div>" in page and "[&#x27;tiger&#x27;" not in page


def test_votes_and_eliminations_follow_the_call_they_came_after() -> None:
    from pcg_plugin.problems.gameeval.item import trial_states
    from pcg_plugin.problems.gameeval.records import EpisodeRecord

    call = {"kind": "call", "role": "Tom", "stage": "vote", "messages": [], "reply": "Cindy"}
    events = [
        call,
        {"kind": "voted", "round": 2, "voter": "Tom", "name": "Cindy"},
        {"kind": "eliminated", "round": 2, "name": "Cindy"},
        {"kind": "said", "speaker": "host", "content": "Cindy is out", "to": ["Tom"]},
        {"kind": "ended", "outcome": "spy", "why": "two left"},
    ]
    record = EpisodeRecord("n", "s", "spyfall", "t", 1, "spy", events=events, setup={"players": ["Tom", "Cindy"]})
    assert trial_states(record) == [
        {"title": "setup", "after_call": 0, "lines": ["players: Tom, Cindy"]},
        {
            "title": "round 2: the vote",
            "after_call": None,
            "lines": ["Tom voted for Cindy", "Cindy is eliminated", "the end: spy: two left"],
        },
    ]
