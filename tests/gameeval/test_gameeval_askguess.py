"""Ask-Guess outcomes and quirks (spec/gameeval.md items 1-9), each pinned with scripted replies."""

from __future__ import annotations

import pytest
from ge_helpers import askguess

from pcg_plugin.problems.gameeval.askguess import mentions
from pcg_plugin.problems.gameeval.prompts import askguess_labels


def test_labels_are_the_references_hundred_with_its_typo() -> None:
    labels = askguess_labels()
    assert len(labels) == 100 and labels[0] == "apple" and "cra" in labels and "crab" not in labels
    assert "lawn_mower" in labels and "maple_tree" in labels


def test_easy_success_records_the_qa_rounds_and_the_message_roles() -> None:
    out = askguess("apple", "easy", ["A red fruit", "Is it a banana?", "no", "Is it an apple?", "gameover"])
    assert (out["outcome"], out["rounds"]) == ("SuccessfulTrial", 2)
    assert out["result"] == {"object": "apple", "round": 2, "error_type": "SuccessfulTrial", "log": "0.log"}
    assert [c["role"] for c in out["calls"]] == ["answerer", "questioner", "answerer", "questioner", "answerer"]
    last = out["calls"][-1]["messages"]  # the answerer's whole history, host lines as system
    assert [m["role"] for m in last] == [
        "system",
        "system",
        "assistant",
        "system",
        "user",
        "assistant",
        "system",
        "user",
    ]
    assert last[3]["content"] == "Now the Q&A start, questioner please guess the answer!."
    questioner = out["calls"][1]["messages"]
    assert [m["role"] for m in questioner] == ["system", "system", "user", "system"]
    assert '"apple"' in last[0]["content"] and "apple" not in questioner[0]["content"]


def test_hard_mode_first_question_success_records_round_zero() -> None:
    out = askguess("lawn_mower", "hard", ["Is it a lawn mower?", "Gameover!"])
    assert (out["outcome"], out["rounds"], out["result"]["object"]) == ("SuccessfulTrial", 0, "lawn mower")
    assert len(out["calls"][0]["messages"]) == 2  # hard mode: no description, no description host line


@pytest.mark.parametrize(
    "question, outcome",
    [
        ("Is it a pineapple?", "SuccessfulTrial"),  # plain substring: pineapple holds apple
        ("Is it a lawn_mower?", "EndingError"),  # not underscore-normalised
        ("", "EndingError"),
        ("Is it a fruit?", "EndingError"),
    ],
)
def test_gameover_checks_the_question_by_plain_substring(question: str, outcome: str) -> None:
    word = "lawn_mower" if "lawn" in question else "apple"
    assert askguess(word, "hard", [question, "gameover"])["outcome"] == outcome


@pytest.mark.parametrize(
    "answer, over", [("Game Over!", True), ("GAMEOVER.", True), ("the gameover is near", True), ("game-over", False)]
)
def test_gameover_is_a_plain_substring_of_the_answer(answer: str, over: bool) -> None:
    out = askguess("bear", "hard", ["Is it a bear?", answer] + ([] if over else ["Is it a bear?", "gameover"]))
    assert out["outcome"] == "SuccessfulTrial" and out["rounds"] == (0 if over else 1)


def test_typo_label_cra_is_solved_by_crab() -> None:
    assert askguess("cra", "easy", ["A sea animal", "Is it a crab?", "gameover"])["outcome"] == "SuccessfulTrial"


@pytest.mark.parametrize(
    "text, hit",
    [
        ("apple", False),
        ("an apple", False),
        ("apple is red", False),  # start or end of the reply: missed
        ("the apple\nis", False),
        ("a\tapple x", False),
        ("some apples here", False),
        ("a pineapple x", False),
        ("the apple. x", True),
        ("the apple's x", True),
        ("the apple\u2019s x", True),
        ("an apple-like x", True),
        ("an APPLE x", True),
    ],
)
def test_mention_check_is_space_padded(text: str, hit: bool) -> None:
    assert mentions("apple", text.lower()) is hit


def test_mention_check_misses_underscored_and_hits_spaced_multiword() -> None:
    assert not mentions("lawn mower", "a lawn_mower x")
    assert mentions("maple tree", "a maple tree x")


def test_description_that_names_the_word_is_answer_mentioned() -> None:
    out = askguess("apple", "easy", ["It is an apple tree fruit"])
    assert (out["outcome"], out["rounds"], len(out["calls"])) == ("AnswerMentionedError", -1, 1)


def test_description_ending_with_the_word_is_missed() -> None:
    out = askguess("apple", "easy", ["This is an apple", "Is it an apple?", "gameover"])
    assert out["outcome"] == "SuccessfulTrial"


def test_gameover_is_checked_before_the_mention() -> None:
    assert askguess("bear", "hard", ["Is it a bear?", "gameover, it is a bear indeed"])["outcome"] == "SuccessfulTrial"
    assert askguess("bear", "hard", ["Is it big?", "yes, a bear indeed"])["outcome"] == "AnswerMentionedError"


@pytest.mark.parametrize("replies", [[None], ["desc", None], ["desc", "Is it?", None]])
def test_none_reply_is_chat_error(replies: list) -> None:
    out = askguess("apple", "easy", replies)
    assert (out["outcome"], out["rounds"]) == ("ChatError", -1)


def test_round_limit_easy_after_30_and_hard_after_31_rounds() -> None:
    easy = askguess("apple", "easy", ["desc"] + ["Is it?", "no"] * 30)
    assert (easy["outcome"], easy["rounds"], len(easy["calls"])) == ("RoundLimitError", -1, 61)
    hard = askguess("apple", "hard", ["Is it?", "no"] * 31)
    assert (hard["outcome"], len(hard["calls"])) == ("RoundLimitError", 62)


def test_success_in_the_last_allowed_round_beats_the_limit() -> None:
    easy = askguess("apple", "easy", ["desc"] + ["Is it?", "no"] * 29 + ["Is it an apple?", "gameover"])
    assert (easy["outcome"], easy["rounds"]) == ("SuccessfulTrial", 30)
    hard = askguess("apple", "hard", ["Is it?", "no"] * 30 + ["Is it an apple?", "gameover"])
    assert (hard["outcome"], hard["rounds"]) == ("SuccessfulTrial", 30)
