"""Ask-Guess (``game_askguess.py``): an answerer who knows the word, a questioner who guesses it.

Facts: ``spec/gameeval.md`` items 1-9. Host lines go to both histories as ``system``; the other player's words
arrive as ``user``, one's own as ``assistant``; each call sends the seat's whole history. Outcome checks per
round, in order: a "gameover" answer (success when the word is a plain substring of the question, else
EndingError), the answer mentioning the word (space-padded, so a word at the very start or end is missed),
the round limit (``cnt > 30``: easy stops after 30 Q&A rounds, hard after 31). Recorded round: ``cnt - 1`` on
success (hard mode's first-question success records 0), -1 for every error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pcg_plugin.episode.table import Ended, Model, Table
from pcg_plugin.problems.gameeval.episode import Played
from pcg_plugin.problems.gameeval.prompts import fill, texts

ANSWERER = "answerer"
QUESTIONER = "questioner"
MODES = ("easy", "hard")
OUTCOMES = ("SuccessfulTrial", "EndingError", "RoundLimitError", "AnswerMentionedError", "ChatError")
ROUND_LIMIT = 30  # the game stops once cnt > 30


@dataclass(frozen=True)
class Setup:
    word: str  # the label, underscores kept (lawn_mower)
    mode: str = "easy"
    trial: int = 0

    @property
    def played_word(self) -> str:
        return self.word.replace("_", " ")


def mentions(word: str, text: str) -> bool:
    """The reference's ``checkin`` on lower-cased text: punctuation (non-word, non-space) becomes spaces, then
    `` word `` must appear with a space on each side; newlines and tabs are not spaces here."""
    return f" {word} " in re.sub(r"[^\w\s]", " ", text)


def is_gameover(answer: str) -> bool:
    low = answer.lower()
    return "gameover" in low or "game over" in low


ROLES = (ANSWERER, QUESTIONER)


def role_prompt(role: str, mode: str, word: str, override: str | None = None) -> str:
    """The role's system prompt: the reference's, or a participant's template (``<<word>>`` filled)."""
    return fill(texts("askguess")[role][mode] if override is None else override, word=word)


def play(setup: Setup, model: Model, overrides: Mapping[str, str] | None = None) -> Played:
    """One episode; ``model(caller, stage, messages)`` gives each reply (None: the model gave up);
    ``overrides`` replaces a role's system prompt (answerer or questioner)."""
    if setup.mode not in MODES:
        raise ValueError(f"Ask-Guess mode must be easy or hard, got {setup.mode!r}")
    t = texts("askguess")
    word = setup.played_word
    table = Table((ANSWERER, QUESTIONER), model)
    for role in (ANSWERER, QUESTIONER):
        table.add(role, "system", role_prompt(role, setup.mode, word, (overrides or {}).get(role)))

    def exchange(speaker: str, listener: str, text: str) -> None:
        table.add(speaker, "assistant", text)
        table.add(listener, "user", text)

    def end(outcome: str, cnt: int, why: str) -> Played:
        rounds = cnt - 1 if outcome == "SuccessfulTrial" else -1
        result = {"object": word, "round": rounds, "error_type": outcome, "log": f"{setup.trial}.log"}
        table.events.append(Ended(outcome, why))
        return Played(outcome, rounds, result, why, tuple(table.events))

    cnt = 0
    if setup.mode == "easy":
        table.tell("host", t["host_description"], "system")
        description = table.ask(ANSWERER, "describe", table.histories[ANSWERER])
        if description is None:
            return end("ChatError", cnt, "the answerer's description call returned nothing")
        if mentions(word.lower(), description.lower()):
            return end("AnswerMentionedError", cnt, f"the description names the word {word!r}")
        exchange(ANSWERER, QUESTIONER, description)
        cnt = 1
    while True:
        table.tell("host", t["host_qa"], "system")
        question = table.ask(QUESTIONER, "ask", table.histories[QUESTIONER])
        if question is None:
            return end("ChatError", cnt, "the questioner's call returned nothing")
        exchange(QUESTIONER, ANSWERER, question)
        answer = table.ask(ANSWERER, "answer", table.histories[ANSWERER])
        if answer is None:
            return end("ChatError", cnt, "the answerer's call returned nothing")
        exchange(ANSWERER, QUESTIONER, answer)
        cnt += 1
        if is_gameover(answer):
            if word.lower() in question.lower():
                return end("SuccessfulTrial", cnt, f"the answerer said gameover and the question holds {word!r}")
            return end("EndingError", cnt, f"the answerer said gameover but the question does not hold {word!r}")
        if mentions(word.lower(), answer.lower()):
            return end("AnswerMentionedError", cnt, f"the answer names the word {word!r}")
        if cnt > ROUND_LIMIT:
            return end(
                "RoundLimitError", cnt, f"no gameover after {cnt - (1 if setup.mode == 'easy' else 0)} question(s)"
            )
