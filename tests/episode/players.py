"""Scripted models of designed strength for cross-play (clearly test doubles: no model is asked). Each is a
ScriptedBackend responder ``(messages, n) -> choices`` for every game, telling the game and the role from the
messages:

- ``rules`` plays every role as the rules say (the games' own doubles: GameEval's ``ge_doubles.respond``, the
  picture game's perfect describer and faithful drawer);
- ``random`` answers in the right form with random content (a random description, vote, name or grid), drawn from
  a generator seeded by the conversation, so a rerun asks the same and replays;
- ``silent`` answers nothing: an empty reply (TofuKingdom: the JSON it asks for with empty fields, since an empty
  reply ends every game at once and the other two models would never meet).
"""

from __future__ import annotations

import hashlib
import json
import random
import re

import ge_doubles
import ig_doubles

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _rng(messages: list[dict]) -> random.Random:
    return random.Random(hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest())


def game_of(messages: list[dict]) -> str:
    text = ge_doubles._text(messages)
    first = str(messages[0]["content"])
    if "Host: The Prince please" in text or "Tofu Kingdom" in first:
        return "tofukingdom"
    if "the word you get is" in text:
        return "spyfall"
    if ig_doubles.is_follower(messages) or "grid" in first.lower():
        return "imagegame"
    return "askguess"


def rules(messages: list[dict], n: int = 1) -> list[str]:
    if game_of(messages) == "imagegame":
        reply = ig_doubles.follow(messages) if ig_doubles.is_follower(messages) else ig_doubles.perfect_giver(messages)
        return [reply] * n
    return ge_doubles.respond(messages, n)


def _tofu_prince(messages: list[dict], pick: str) -> str:
    instruction = str(messages[-1]["content"])
    if "that you think is the Princess" in instruction:
        return json.dumps({"thought": "", "name": pick})
    if '"name"' in instruction:
        return json.dumps({"thought": "", "name": pick, "question": "Which player is the Princess?"})
    return json.dumps({"thought": "", "question": "Which player is the Princess?"})


def _random(messages: list[dict]) -> str:
    rnd, game, text = _rng(messages), game_of(messages), ge_doubles._text(messages)
    if game == "tofukingdom":
        players = list(dict.fromkeys(re.findall(r"Host: The Prince please ask player (\w+) one question\.", text)))
        players = players or ["Nancy", "Tom", "Cindy", "Jack", "Rose", "Edward", "Robert"]
        if "Now, you are player" not in str(messages[0]["content"]):  # the Prince: a name it heard, at random
            heard = re.findall(r"^\w+: (\w+) is the Princess\.$", text, flags=re.M)
            return _tofu_prince(messages, rnd.choice(heard or players))
        return json.dumps({"thought": "", "answer": f"{rnd.choice(players)} is the Princess."})
    if game == "spyfall":
        if "'name' must be the same string" not in str(messages[-1]["content"]):
            return json.dumps({"thought": "", "speak": f"it is like {''.join(rnd.choices(LETTERS.lower(), k=5))}"})
        living = json.loads(re.findall(r"living players are:(\[.*?\])", text)[-1])
        name = rnd.choice(living)
        return json.dumps({"thought": "", "speak": f"{name} maybe", "name": name})
    if game == "imagegame":
        letters = sorted(set(re.findall(r"\b([A-Z])\b", text)) - {"I"}) or ["X"]
        if ig_doubles.is_follower(messages):
            return "\n".join(" ".join(rnd.choice([*letters, "▢"]) for _ in range(5)) for _ in range(5))
        if ig_doubles.turn(messages) > 0:
            return "Command: DONE"
        cells = " ".join(rnd.choice([*letters, "▢"]) for _ in range(5))
        return f"Command: row {rnd.randint(1, 5)}: {cells}"
    if messages[-1]["role"] == "system" and "description" in str(messages[-1]["content"]):
        return "It is something."
    system = str(messages[0]["content"])
    if "answerer" in system:
        return rnd.choice(["gameover", "no", "yes"])
    label = rnd.choice(ge_doubles.askguess_labels()).replace("_", " ")
    return f"Is it {label}?"


def random_player(messages: list[dict], n: int = 1) -> list[str]:
    return [_random(messages)] * n


def silent(messages: list[dict], n: int = 1) -> list[str]:
    if game_of(messages) == "tofukingdom":
        if "Now, you are player" not in str(messages[0]["content"]):
            return [_tofu_prince(messages, "")] * n
        return [json.dumps({"thought": "", "answer": ""})] * n
    return [""] * n


CALLS = [0]


def counted_rules(messages: list[dict], n: int = 1) -> list[str]:
    """``rules``, counting its calls in ``CALLS`` (a rerun that replays asks it nothing)."""
    CALLS[0] += 1
    return rules(messages, n)
