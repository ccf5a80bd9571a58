"""SpyFall outcomes and quirks (spec/gameeval.md items 11-19), each pinned with scripted replies."""

from __future__ import annotations

import json
import random

from ge_helpers import SEATS, describe_round, said, spyfall, vote

from pcg_plugin.problems.gameeval import spyfall as rules
from pcg_plugin.problems.gameeval.prompts import spyfall_pairs

SPY = "Nancy"  # seat 2 in SEATS


def votes(*names: object) -> list[str | None]:
    return [vote(n) for n in names]


def test_spy_voted_out_in_round_one_is_a_villager_win() -> None:
    out = spyfall(describe_round() + votes(SPY, "Tom", SPY, SPY, SPY, SPY))
    assert (out["outcome"], out["rounds"]) == ("villager", 1)
    assert out["result"] == {
        "winer": "villager",
        "players": SEATS,
        "llms": ["gpt3", "gpt4"] + ["gpt3"] * 4,
        "spy_index": 2,
        "round": 1,
        "log": "0.log",
    }


def test_spy_wins_in_round_three_when_three_are_left_and_dead_seats_are_announced() -> None:
    r1 = describe_round() + votes("Tom", "Tom", "Tom", "Tom", "Tom", "Tom")
    r2 = describe_round(5) + votes("Cindy", "Cindy", "Cindy", "Cindy", "Cindy")  # Tom is dead: 5 living
    r3 = describe_round(4) + votes("Jack", "Jack", "Jack", "Jack")
    out = spyfall(r1 + r2 + r3)
    assert (out["outcome"], out["rounds"]) == ("spy", 3)
    nancy_r2_vote = [c for c in out["calls"] if c["role"] == SPY and c["stage"] == "vote"][1]["messages"]
    hosts = [m["content"] for m in nancy_r2_vote if m["content"].startswith("Host: Tom, it's your turn.")]
    assert len(hosts) == 3  # describe r1, vote r1, and vote r2 (dead seats are announced in voting only)


def test_name_that_is_no_living_player_exits_with_round_minus_one() -> None:
    for bad in ("nobody", "nancy", 3, None):
        out = spyfall(describe_round() + votes(bad, bad, bad, "Tom", "Tom", SPY))
        assert (out["outcome"], out["rounds"], out["result"]["round"]) == ("exit", -1, -1)


def test_tie_goes_to_the_name_voted_first() -> None:
    assert spyfall(describe_round() + votes(SPY, "Tom", "Tom", SPY, "Jack", "Rose"))["outcome"] == "villager"
    out = spyfall(
        describe_round()
        + votes("Tom", SPY, SPY, "Tom", "Jack", "Rose")
        + describe_round(5)
        + votes(SPY, SPY, SPY, SPY, SPY)
    )
    assert (out["outcome"], out["rounds"]) == ("villager", 2)


def test_unparsable_description_crashes_keeping_its_calls() -> None:
    for bad in ("not json", None, '```json\n{"thought": "a", "speak": "b"}\n```', "null", '{"speak": "x"}', "[1]"):
        out = spyfall([said("a"), bad])
        assert (out["outcome"], out["rounds"], out["result"]) == ("crash", None, None)
        assert out["exception"] == "UnboundLocalError" and len(out["calls"]) == 2


def test_unhashable_vote_crashes() -> None:
    out = spyfall(describe_round() + votes(["Tom"], "Tom", "Tom", "Tom", "Tom", "Tom"))
    assert (out["outcome"], out["exception"], len(out["calls"])) == ("crash", "TypeError", 12)


def test_own_words_come_back_reserialised_and_others_get_str() -> None:
    replies = ['{"thought":"a","speak":2.50,"x":"\u00e9","thought":"b"}', said(["a", "list"]), *describe_round(4)]
    out = spyfall(replies + votes(SPY, SPY, SPY, SPY, SPY, SPY))
    tom_vote = next(c for c in out["calls"] if c["role"] == "Tom" and c["stage"] == "vote")["messages"]
    assert {"role": "assistant", "content": '{"thought": "b", "speak": 2.5, "x": "\\u00e9"}'} in tom_vote
    assert {"role": "user", "content": "Nancy: ['a', 'list']"} in tom_vote


def test_vote_without_thought_loses_its_name_and_unparsable_vote_is_kept_as_a_string() -> None:
    broken = ['{"speak": "s", "name": "Nancy"}', "garbage"]
    out = spyfall(describe_round() + broken + votes(SPY, SPY, SPY, SPY))
    assert out["outcome"] == "villager"
    last = out["calls"][-1]["messages"]
    assert {"role": "user", "content": "Tom: None, i will vote None as the spy."} in last
    assert {"role": "user", "content": "Nancy: None, i will vote None as the spy."} in last
    nancy_later = spyfall(
        describe_round()
        + broken
        + votes("Tom", "Tom", "Tom", "Tom")
        + describe_round(5)
        + votes(SPY, SPY, SPY, SPY, SPY)
    )["calls"]
    nancy_r2 = [c for c in nancy_later if c["role"] == SPY and c["stage"] == "describe"][1]["messages"]
    assert {"role": "assistant", "content": '"garbage"'} in nancy_r2


def test_host_lines_are_user_messages_and_reminder_is_fresh() -> None:
    out = spyfall(describe_round() + votes(SPY, SPY, SPY, SPY, SPY, SPY))
    first = out["calls"][0]["messages"]
    assert len(first) == 12 + 4 + 1 and first[-1]["role"] == "system"
    assert first[12:16] == [
        {"role": "user", "content": "Host: The game now start."},
        {"role": "user", "content": 'Host: The living players are:["Tom", "Nancy", "Cindy", "Jack", "Rose", "Edward"]'},
        {
            "role": "user",
            "content": "Host: Now it's the describing stage, players have to say "
            "something about the received word without directly saying "
            "it.",
        },
        {"role": "user", "content": "Host: Tom, it's your turn."},
    ]
    assert "the word you get is tiger" in json.dumps(out["calls"][1]["messages"])  # Nancy is the spy
    assert "the word you get is lion" in json.dumps(first)


def test_seeded_draw_is_reproducible_and_covers_seats() -> None:
    pair = spyfall_pairs()[0]
    a = rules.draw(random.Random(7), pair)
    assert a == rules.draw(random.Random(7), pair)
    assert sorted(a.players) == sorted(rules.PLAYERS) and 1 <= a.spy_index <= 6
    assert len(spyfall_pairs()) == 11 and spyfall_pairs()[-1] == ("tiger", "lion")
