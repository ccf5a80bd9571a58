"""Scripted test doubles for the picture game's two players (clearly test doubles: no model is asked).

Each ``respond_*`` is a ScriptedBackend responder ``(messages, n) -> choices`` answering for whichever role the
history belongs to (the Follower's first message starts with its header). The doubles speak a tiny language:
the Giver says ``Command: row R: c c c c c``, the Follower redraws row R; the Giver ends with ``Command: DONE``.
"""

from __future__ import annotations

import re

FOLLOWER_HEADERS = ("Let us draw something together", "HEADER TWO")
ROW = re.compile(r"^(?:[A-Z▢] ){4}[A-Z▢]$")
COMMAND = re.compile(r"row (\d): ((?:[A-Z▢] ){4}[A-Z▢])")
EMPTY_ROW = " ".join(["▢"] * 5)


def is_follower(messages: list[dict]) -> bool:
    return str(messages[0]["content"]).startswith(FOLLOWER_HEADERS)


def target_of(messages: list[dict]) -> list[str]:
    """The last 5 consecutive grid rows of the Giver's first message: the target (the header's examples come
    first)."""
    lines = str(messages[0]["content"]).split("\n")
    found: list[str] = []
    for i in range(len(lines) - 4):
        if all(ROW.match(line) for line in lines[i : i + 5]):
            found = lines[i : i + 5]
    if not found:
        raise AssertionError("the Giver double found no target grid in its first message")
    return found


def turn(messages: list[dict]) -> int:
    """0-based: how many times this role has answered already."""
    return sum(m["role"] == "assistant" for m in messages)


def follow(messages: list[dict]) -> str:
    """The Follower double: applies every ``row R: ...`` command it was given, returns the grid."""
    rows = [EMPTY_ROW] * 5
    for m in messages:
        if m["role"] == "user":
            for r, cells in COMMAND.findall(str(m["content"])):
                rows[int(r) - 1] = cells
    return "\n".join(rows)


def perfect_giver(messages: list[dict]) -> str:
    """Describes each row that holds a letter, top to bottom, then DONE."""
    rows = [(i, r) for i, r in enumerate(target_of(messages)) if r != EMPTY_ROW]
    k = turn(messages)
    return f"Command: row {rows[k][0] + 1}: {rows[k][1]}" if k < len(rows) else "Command: DONE"


def bad_giver(messages: list[dict]) -> str:
    """Fills the whole first row with the target's letter, then DONE: a valid but wrong description."""
    letter = next(c for r in target_of(messages) for c in r.split(" ") if c != "▢")
    return f"Command: row 1: {' '.join([letter] * 5)}" if turn(messages) == 0 else "Command: DONE"


def chatty_giver(messages: list[dict]) -> str:
    """Breaks the format at once: prose around the command (the Giver's reply must be one 'Command:' line)."""
    return "Sure! Here is my first command.\nCommand: row 1: X X X X X"


def chatty_follower(messages: list[dict]) -> str:
    """Breaks the format: a sentence before the grid."""
    return "Here is the grid:\n" + follow(messages)


def never_done_giver(messages: list[dict]) -> str:
    """Repeats the first row forever: the turn limit ends the episode."""
    first = next((i, r) for i, r in enumerate(target_of(messages)) if r != EMPTY_ROW)
    return f"Command: row {first[0] + 1}: {first[1]}"


def _pair(giver, follower=follow):  # type: ignore[no-untyped-def]
    def respond(messages: list[dict], n: int = 1) -> list[str]:
        reply = follower(messages) if is_follower(messages) else giver(messages)
        return [reply] * n

    return respond


respond_perfect = _pair(perfect_giver)
respond_bad = _pair(bad_giver)
respond_chatty_giver = _pair(chatty_giver)
respond_chatty_follower = _pair(perfect_giver, chatty_follower)
respond_never_done = _pair(never_done_giver)
