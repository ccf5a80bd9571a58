"""Scripted test doubles for GameEval's players (clearly test doubles: no model is asked).

``respond`` is a ScriptedBackend responder ``(messages, n) -> choices`` answering for whichever seat the
messages belong to, read from the prompts:

- Ask-Guess: the questioner asks "Is it a(n) <label>?" through ``askguess/labels.json`` in order (apple
  first), the answerer says "gameover" when the question holds its word, else "no" (its description is "It is
  something you know."). So ``apple`` is solved at Q&A round 1 and ``bear`` (the 4th label) at round 4.
- SpyFall: each player says "it is like <its word reversed>"; in the vote a villager names the player whose
  words differ from the most common ones (the spy), the spy names the first other living player. The spy is
  voted out in round 1: ``villager``, round 1.
- TofuKingdom: the Prince asks everyone "Which player is the Princess?"; the Princess and Chef tell the truth,
  the Queen's camp names the Queen, the Spy's camp names the Spy; the extra question goes to the first seat;
  the Prince names the most-named player: the Queen (3 votes) -> the Queen camp wins.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from pcg_plugin.problems.gameeval.prompts import askguess_labels


def _text(messages: list[dict]) -> str:
    return "\n".join(str(m["content"]) for m in messages)


def askguess(messages: list[dict]) -> str:
    system = str(messages[0]["content"])
    word = re.search(r'(?:given word is|The answer is) "([^"]+)"', system)
    if word and "answerer" in system:
        last = str(messages[-1]["content"])
        if messages[-1]["role"] == "system" and "description" in last:
            return "It is something you know."
        return "gameover" if word.group(1).lower() in last.lower() else "no"
    asked = sum(m["role"] == "assistant" and str(m["content"]).startswith("Is it") for m in messages)
    label = askguess_labels()[asked % len(askguess_labels())].replace("_", " ")
    return f"Is it {'an' if label[0] in 'aeiou' else 'a'} {label}?"


def spyfall(messages: list[dict]) -> str:
    me = re.search(r"Now you are (\w+), the word you get is ([^.]+)\.", _text(messages))
    assert me, "the SpyFall double found no 'Now you are ...' message"
    name, word = me.group(1), me.group(2).strip()
    if "'name' must be the same string" not in str(messages[-1]["content"]):
        return json.dumps({"thought": "keep it short", "speak": f"it is like {word[::-1]}"})
    living = json.loads(re.findall(r"living players are:(\[.*?\])", _text(messages))[-1])
    said = dict(re.findall(r"^(\w+): it is like (.+)$", _text(messages), flags=re.M))
    said[name] = word[::-1]
    common = Counter(said.values()).most_common(1)[0][0]
    odd = [p for p in living if p in said and said[p] != common]
    vote = next(p for p in living if p != name) if said[name] != common or not odd else odd[0]
    return json.dumps({"thought": "the odd one out", "speak": f"{vote} sounds different", "name": vote})


def tofukingdom(messages: list[dict]) -> str:
    text = _text(messages)
    if "Now, you are player" not in str(messages[0]["content"]):  # the Prince (whatever its role prompt says)
        instruction = str(messages[-1]["content"])
        names = re.findall(r"Host: The Prince please ask player (\w+) one question\.", text)
        if "that you think is the Princess" in instruction:
            named = Counter(re.findall(r"^\w+: (\w+) is the Princess\.$", text, flags=re.M))
            return json.dumps({"thought": "most named", "name": named.most_common(1)[0][0]})
        if '"name"' in instruction:
            return json.dumps({"thought": "ask again", "name": names[0], "question": "Which player is the Princess?"})
        return json.dumps({"thought": "start simple", "question": "Which player is the Princess?"})
    role = re.search(r"play the role of the (\w+)\.", text).group(1)  # type: ignore[union-attr]
    who = {r: n for n, r in re.findall(r"(\w+) is the (\w+)\. \n", text)}
    named = {
        "Princess": "Princess",
        "Chef": "Princess",
        "Queen": "Queen",
        "Minister": "Queen",
        "Guard": "Queen",
        "Spy": "Spy",
        "Maid": "Spy",
    }[role]
    return json.dumps({"thought": f"I am the {role}", "answer": f"{who[named]} is the Princess."})


def respond(messages: list[dict], n: int) -> list[str]:
    text = _text(messages)
    if "Host: The Prince please" in text or "Tofu Kingdom" in str(messages[0]["content"]):
        reply = tofukingdom(messages)
    elif "the word you get is" in text:
        reply = spyfall(messages)
    else:
        reply = askguess(messages)
    return [reply] * n


CALLS = [0]
BUDGET: list[int | None] = [None]


def flaky(messages: list[dict], n: int) -> list[str]:
    """``respond``, counting calls in ``CALLS``; past ``BUDGET`` calls it raises (a run killed mid-episode)."""
    CALLS[0] += 1
    if BUDGET[0] is not None and CALLS[0] > BUDGET[0]:
        raise RuntimeError("the run was killed here")
    return respond(messages, n)
