"""TofuKingdom outcomes and quirks (spec/gameeval.md items 20-26), each pinned with scripted replies."""

from __future__ import annotations

import json
import random

import pytest
from ge_helpers import answer, ask, seven_questions, tofukingdom

from pcg_plugin.problems.gameeval import tofukingdom as rules


def extra(name: object = "Tom", question: object = "What is your identity?") -> str:
    return json.dumps({"thought": "t", "name": name, "question": question})


def choose(name: object) -> str:
    return json.dumps({"thought": "t", "name": name})


@pytest.mark.parametrize(
    "name, role, camp",
    [
        ("Nancy", "Princess", "Prince"),
        ("Tom", "Queen", "Queen"),
        ("Cindy", "Chef", "Spy"),
        ("Robert", "Minister", "Spy"),
    ],
)
def test_winner_is_the_named_role_and_its_camp(name: str, role: str, camp: str) -> None:
    out = tofukingdom([*seven_questions(), extra(), answer(), choose(name)])
    assert (out["outcome"], out["rounds"], out["result"]) == (role, None, {"winner": role, "log": "3.log"})
    assert rules.winning_camp(role) == camp


def test_extra_question_is_answered_by_the_last_seat_whoever_was_chosen() -> None:
    out = tofukingdom([*seven_questions(), extra("Nobody"), answer("extra!"), choose("Nancy")])
    assert out["calls"][-2]["role"] == "Minister"  # Robert, the last seat
    final = out["calls"][-1]["messages"]
    assert {"role": "user", "content": "Prince: I choose Nobody, my quesiton is What is your identity?"} not in final
    assert {"role": "user", "content": "Robert: extra!"} in final
    assert final[0]["content"].startswith("You need to play the role of the Prince.")  # no game prompt here


def test_everyone_knows_every_role() -> None:
    out = tofukingdom([*seven_questions(), extra(), answer(), choose("Nancy")])
    system = out["calls"][1]["messages"][0]["content"]
    assert "Tom is the Queen. \nNancy is the Princess. \n" in system and "Now, you are player Tom " in system


def test_three_unparsable_replies_stop_with_the_error_string() -> None:
    assert tofukingdom(["x", None, "```{}```"])["outcome"] == "Question is None."
    out = tofukingdom(["x", "y", ask(), "no", "no", "no"])
    assert (out["outcome"], out["result"], len(out["calls"])) == ("Answer is None.", {"error": "Answer is None."}, 6)
    assert out["calls"][3]["messages"] == out["calls"][5]["messages"]  # retries send the same messages


@pytest.mark.parametrize(
    "tail, error",
    [
        ([ask(None)], "Question is None."),
        ([ask(), answer(None)], "Answer is None."),
    ],
)
def test_null_values_stop_the_game(tail: list, error: str) -> None:
    assert tofukingdom(tail)["outcome"] == error


def test_extra_and_final_errors() -> None:
    base = seven_questions()
    assert tofukingdom([*base, extra(None)])["outcome"] == "Extra name is None."
    assert tofukingdom([*base, extra(question=None), answer(), choose("Nancy")])["outcome"] == "Princess"
    assert tofukingdom([*base, extra(), answer(None)])["outcome"] == "Extra answer is None."
    for bad in ("Prince", "nancy", None, 1):
        assert tofukingdom([*base, extra(), answer(), choose(bad)])["outcome"] == "Fianl answer is None."


NO_JSON = ["x", "y", "z"]  # three replies that are no JSON: the caller gives up


@pytest.mark.parametrize(
    "tail, error, why",
    [
        (NO_JSON, "Question is None.", "the Prince gave no JSON question for Tom in 3 calls"),
        ([ask(None)], "Question is None.", "the Prince's question for Tom is null"),
        ([ask(), *NO_JSON], "Answer is None.", "Tom (Queen) gave no JSON answer in 3 calls"),
        ([ask(), answer(None)], "Answer is None.", "Tom (Queen) answered null"),
        (["E", *NO_JSON], "Extra name is None.", "the Prince chose no player for the extra question in 3 calls"),
        (["E", extra(None)], "Extra name is None.", "the Prince's extra-question name is null"),
        (["E", extra(), *NO_JSON], "Extra answer is None.", "Robert (Minister) gave no JSON extra answer in 3 calls"),
        (["E", extra(), answer(None)], "Extra answer is None.", "Robert (Minister) answered the extra question null"),
        (["E", extra(), answer(), *NO_JSON], "Fianl answer is None.", "the Prince named no Princess in 3 calls"),
        (
            ["E", extra(), answer(), choose("Zed")],
            "Fianl answer is None.",
            "the Prince named 'Zed', not one of the 7 players",
        ),
    ],
)
def test_each_early_end_says_why_in_the_record(tail: list, error: str, why: str) -> None:
    """Every way the Prince or a player can stop the game: the reference's error string as the outcome, and in
    words who failed to do what (the record's ``why``, shown in the report)."""
    replies = [*seven_questions(), *tail[1:]] if tail[0] == "E" else tail
    out = tofukingdom(replies)
    assert (out["outcome"], out["result"], out["why"]) == (error, {"error": error}, why)


@pytest.mark.parametrize(
    "tail", [['{"thought": "t"}'], ["[]"], ['"question"'], [ask(), '{"thought": "t"}'], [ask(), "7"]]
)
def test_wrong_json_type_or_missing_key_crashes(tail: list) -> None:
    out = tofukingdom(tail)
    assert (out["outcome"], out["result"], out["rounds"]) == ("crash", None, None)
    assert out["exception"] in ("KeyError", "TypeError") and len(out["calls"]) == len(tail)


def test_seeded_draw_deals_every_role_once() -> None:
    a = rules.draw(random.Random(3))
    assert a == rules.draw(random.Random(3))
    assert sorted(s.role for s in a.seating) == sorted(rules.ROLES)
