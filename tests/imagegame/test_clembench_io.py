import copy
import json

import pytest
from ig_helpers import TARGET_N, make_instance, published_episodes

from pcg_plugin.problems.imagegame import clembench_io, instances, rules, scoring
from pcg_plugin.problems.imagegame.episode_record import EpisodeRecord, Message, TurnRecord

V2 = instances.load_instances()


def _m(text: str, n: int) -> Message:
    return Message(text, f"2026-01-01T00:00:{n:02d}")


def _episode(*turns: TurnRecord) -> EpisodeRecord:
    return EpisodeRecord("compact_grids", 10, "model-a", "model-b", turns)


def _play(inst, giver: str, follower: str | None, n: int, first: bool) -> TurnRecord:
    move = rules.parse_giver(giver, inst)
    prompt = rules.giver_first_message(inst) if first else rules.giver_next_message(inst)
    if move.kind != "command" or follower is None:
        return TurnRecord(_m(prompt, n), _m(giver, n + 1))
    sent = rules.follower_first_message(inst, move.command) if first else rules.follower_next_message(move.command)
    return TurnRecord(_m(prompt, n), _m(giver, n + 1), _m(sent, n + 2), _m(follower, n + 3))


def test_our_episode_is_written_in_clembench_event_order(tmp_path) -> None:
    inst = make_instance()
    ep = _episode(_play(inst, "Command: an N\n", TARGET_N, 0, True), _play(inst, "Command: DONE", None, 10, False))
    data = clembench_io.to_interactions(ep, inst)
    assert data["players"] == {"GM": "Game master for imagegame", "Player_1": "model-a", "Player_2": "model-b"}
    kinds = [[(e["from"], e["to"], e["action"]["type"]) for e in turn] for turn in data["turns"]]
    assert kinds == [
        [
            ("GM", "Player 1", "send message"),
            ("Player 1", "GM", "get message"),
            ("GM", "GM", "parse"),
            ("GM", "Player 2", "send message"),
            ("Player 2", "GM", "get message"),
            ("GM", "GM", "parse"),
        ],
        [("GM", "Player 1", "send message"), ("Player 1", "GM", "get message")],
    ]
    assert data["turns"][0][2]["action"] == {
        "type": "parse",
        "content": "Command: an N",
        "original_content": "Command: an N\n",
    }
    folder = clembench_io.write_episode(tmp_path, ep, inst)
    assert folder == tmp_path / "0_compact_grids" / "episode_10"
    assert json.loads((folder / "interactions.json").read_text(encoding="utf-8")) == data
    scores = json.loads((folder / "scores.json").read_text())
    assert scores["episode scores"]["Main Score"] == 100.0
    assert clembench_io.from_interactions(data, "compact_grids", 10) == ep


def test_invalid_moves_are_logged_as_invalid_format() -> None:
    inst = make_instance()
    bad_giver = clembench_io.to_interactions(_episode(_play(inst, "Sure!", None, 0, True)), inst)
    assert bad_giver["turns"][0][-1]["action"] == {
        "type": "invalid format",
        "content": "Invalid instruction format",
        "original_content": "Sure!",
    }
    bad_grid = clembench_io.to_interactions(_episode(_play(inst, "Command: a", "no grid", 0, True)), inst)
    assert bad_grid["turns"][0][-1]["action"]["type"] == "invalid format"
    assert bad_grid["turns"][0][-1]["action"]["content"] == "Invalid grid format"
    e = clembench_io.score_interactions(bad_grid, inst)["episode scores"]
    assert (e["Aborted"], e["Violated Request Count"]) == (1, 1)


def test_done_first_writes_interactions_but_no_scores(tmp_path) -> None:
    inst = make_instance()
    folder = clembench_io.write_episode(tmp_path, _episode(_play(inst, "Command: DONE", None, 0, True)), inst)
    assert (folder / "interactions.json").is_file() and not (folder / "scores.json").exists()


@pytest.mark.parametrize("folder", published_episodes(), ids=lambda p: "/".join(p.parts[-3:]))
def test_published_episodes_survive_our_record_and_writer(folder) -> None:
    """Published interactions -> EpisodeRecord -> our interactions: the same events (GM timestamps aside) and
    the same scores."""
    published = json.loads((folder / "interactions.json").read_text(encoding="utf-8"))
    experiment, game_id = clembench_io.episode_key(folder)
    inst = clembench_io.find_instance(V2, experiment, game_id, str(folder))
    ours = clembench_io.to_interactions(clembench_io.from_interactions(published, experiment, game_id), inst)

    def without_gm_times(data):
        data = copy.deepcopy(data)
        for turn in data["turns"]:
            for event in turn:
                if event["from"] == event["to"] == "GM":
                    del event["timestamp"]
        return data

    assert without_gm_times(ours) == without_gm_times(published)
    assert json.dumps(clembench_io.score_interactions(ours, inst)) == json.dumps(
        clembench_io.score_interactions(published, inst)
    )


def test_reading_is_by_position_not_by_event_type() -> None:
    inst = make_instance()
    data = clembench_io.to_interactions(_episode(_play(inst, "Command: a", TARGET_N, 0, True)), inst)
    data["turns"][0][4]["action"]["type"] = "something else"
    assert clembench_io.score_interactions(data, inst)["episode scores"]["F1"] == 100.0
    five = copy.deepcopy(data)
    del five["turns"][0][5]  # a log cut after the Follower's reply: turn[4] is still read and scored
    assert clembench_io.score_interactions(five, inst)["turn scores"]["0"]["F1"] == 100.0
    four = copy.deepcopy(five)
    del four["turns"][0][4]
    with pytest.raises(scoring.NotScorable, match="4 events"):
        clembench_io.score_interactions(four, inst)
    three = copy.deepcopy(four)
    del three["turns"][0][3]
    assert clembench_io.score_interactions(three, inst)["episode scores"]["Aborted"] == 1
    with pytest.raises(scoring.NotScorable, match="no Giver reply"):
        clembench_io.score_interactions({"turns": [[data["turns"][0][0]]]}, inst)


def test_folder_errors_name_the_folder(tmp_path) -> None:
    with pytest.raises(clembench_io.EpisodeFolderError, match=r"no interactions\.json"):
        clembench_io.score_folder(tmp_path, V2)
    odd = tmp_path / "x" / "episode_3"
    odd.mkdir(parents=True)
    (odd / "interactions.json").write_text('{"turns": []}', encoding="utf-8")
    with pytest.raises(clembench_io.EpisodeFolderError, match="not named like"):
        clembench_io.score_folder(odd, V2)
    wrong = tmp_path / "0_compact_grids" / "episode_3"
    wrong.mkdir(parents=True)
    inst = make_instance()
    data = clembench_io.to_interactions(_episode(_play(inst, "Command: a", TARGET_N, 0, True)), inst)
    (wrong / "interactions.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(clembench_io.EpisodeFolderError, match="does not show the target"):
        clembench_io.score_folder(wrong, V2)
    (wrong / "interactions.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(clembench_io.EpisodeFolderError, match="not JSON"):
        clembench_io.score_folder(wrong, V2)
    missing = tmp_path / "1_random_grids" / "episode_0"
    missing.mkdir(parents=True)
    (missing / "interactions.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(clembench_io.EpisodeFolderError, match="no instance random_grids game_id 0"):
        clembench_io.score_folder(missing, V2)


def test_the_errors_are_under_the_root_and_re_exported_where_raised() -> None:
    from pcg_plugin import errors
    from pcg_plugin.errors import PcgError

    assert clembench_io.EpisodeFolderError is errors.EpisodeFolderError and scoring.NotScorable is errors.NotScorable
    assert issubclass(errors.EpisodeFolderError, PcgError) and issubclass(errors.EpisodeFolderError, ValueError)
    assert issubclass(errors.NotScorable, PcgError)
