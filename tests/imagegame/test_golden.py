"""Published clembench v2.0 episodes (``fixtures/clembench_runs``, listed in its SOURCE.md): our scoring of each
published ``interactions.json`` is the ``scores.json`` clembench wrote, and our packaged v2.0 instance set is
each published ``instance.json``. The command's side (`pcg imagegame score`) is in test_command.py."""

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from ig_helpers import episode_id, published_episodes

from pcg_plugin.problems.imagegame import clembench_io, instances, rules

V2 = instances.load_instances()
EPISODES = published_episodes()
SCORED = [p for p in EPISODES if (p / "scores.json").is_file()]
UNSCORED = [p for p in EPISODES if not (p / "scores.json").is_file()]
WITH_INSTANCE = [p for p in EPISODES if (p / "instance.json").is_file()]


def _text(folder: Path, name: str) -> str:
    return (folder / name).read_text(encoding="utf-8")


def _nan_as_text(value: Any) -> Any:
    """NaN != NaN in Python, so NaN becomes the text clembench wrote before two objects are compared."""
    if isinstance(value, dict):
        return {key: _nan_as_text(item) for key, item in value.items()}
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return value


def ending(folder: Path) -> str:
    """How the published episode ended, read from its log: DONE, the turn limit, or whose reply broke the format."""
    last = json.loads(_text(folder, "interactions.json"))["turns"][-1][-1]["action"]
    if last["type"] == "invalid format":
        return {rules.GIVER_INVALID: "Giver broke the format", rules.FOLLOWER_INVALID: "Follower broke the format"}[
            last["content"]
        ]
    if last["type"] == "get message" and rules.parse_giver(last["content"], V2[0]).kind == "done":
        return "DONE"
    return "turn limit"


def outcome(folder: Path) -> str:
    scores = json.loads(_text(folder, "scores.json"))["episode scores"]
    return "aborted" if scores["Aborted"] else "success" if scores["Success"] else "lose"


@pytest.mark.parametrize("folder", SCORED, ids=episode_id)
def test_our_scores_are_the_published_scores_json(folder: Path) -> None:
    ours = clembench_io.score_folder(folder, V2)
    published = _text(folder, "scores.json")
    want = _nan_as_text(json.loads(published))
    assert list(ours) == ["turn scores", "episode scores"]
    for turn, scores in want["turn scores"].items():
        assert _nan_as_text(ours["turn scores"].get(turn)) == scores, f"turn {turn}"
    assert _nan_as_text(ours["turn scores"]) == want["turn scores"]
    assert _nan_as_text(ours["episode scores"]) == want["episode scores"]
    assert json.dumps(ours) == published  # the same text: key order, int vs float ("F1": 0 vs 0.0), NaN


@pytest.mark.parametrize("folder", WITH_INSTANCE, ids=episode_id)
def test_our_instance_is_the_published_instance_json(folder: Path) -> None:
    experiment, game_id = clembench_io.episode_key(folder)
    ours = clembench_io.find_instance(V2, experiment, game_id, str(folder)).to_clembench()
    published = _text(folder, "instance.json")
    assert ours == json.loads(published)
    assert json.dumps(ours, ensure_ascii=False) == published  # field order and escapes too


def test_the_stored_episodes_cover_every_ending_and_outcome() -> None:
    kinds = Counter((ending(p), outcome(p)) for p in SCORED)
    assert kinds[("DONE", "success")] >= 2
    assert kinds[("DONE", "lose")] >= 2
    assert kinds[("turn limit", "lose")] >= 1
    assert kinds[("Giver broke the format", "aborted")] >= 2
    assert kinds[("Follower broke the format", "aborted")] >= 2
    assert len(SCORED) >= 13 and len(WITH_INSTANCE) >= 2


def test_the_turn_limit_episode_has_exactly_25_counted_turns_and_no_done() -> None:
    """Meta-Llama-3.1-8B random 21 ran into the v2.0 limit: 25 turns, every Giver reply a command, 50 requests."""
    (folder,) = [p for p in SCORED if ending(p) == "turn limit"]
    turns = json.loads(_text(folder, "interactions.json"))["turns"]
    instance = clembench_io.find_instance(V2, *clembench_io.episode_key(folder), str(folder))
    assert len(turns) == rules.turn_limit(instance) == rules.TURN_LIMIT_V2 == 25
    assert all(rules.parse_giver(t[1]["action"]["content"], instance).kind == "command" for t in turns)
    scores = clembench_io.score_folder(folder, V2)
    assert len(scores["turn scores"]) == 25 and scores["episode scores"]["Request Count"] == 50


@pytest.mark.parametrize("folder", UNSCORED, ids=episode_id)
def test_gpt4o_episodes_without_a_stored_scores_json_abort_on_the_first_reply(folder: Path) -> None:
    """gpt-4o-2024-08-06 played 0.0 % of imagegame in v2.0/results.csv; its stored episodes (the index holds no
    scores.json of that run) abort on the Giver's first reply, a command followed by a second line."""
    assert folder.parts[-4].startswith("gpt-4o-2024-08-06")
    assert ending(folder) == "Giver broke the format"
    scores = clembench_io.score_folder(folder, V2)
    e = scores["episode scores"]
    assert scores["turn scores"] == {}
    assert (e["Aborted"], e["Success"], e["Lose"], e["Request Count"], e["Violated Request Count"]) == (1, 0, 0, 1, 1)
    assert (e["Parsed Request Count"], e["Request Success Ratio"]) == (0, 0.0)
    assert math.isnan(e["Main Score"])
