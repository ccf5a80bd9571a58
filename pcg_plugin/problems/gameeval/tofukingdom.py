"""TofuKingdom (``game_tofukingdom.py``, ``tofukingdom/agents/*.py``): the Prince asks seven players, then one
extra question, then names the Princess; the named player's role decides which camp wins.

Facts: ``spec/gameeval.md`` items 20-26. Everybody but the Prince knows every role (the identities go into each
player's system prompt). Each Prince call and each answer is retried (same messages) up to 3 calls while the
reply is not JSON; after that the game stops with the reference's error string. Valid JSON without the key, or
not an object, is a ``crash``. The extra question is answered by the last seated player, whoever was chosen.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pcg_plugin.episode.table import Crash, Ended, Model, Table
from pcg_plugin.errors import EndedEarly
from pcg_plugin.errors import GaveUp as _GaveUp
from pcg_plugin.problems.gameeval.episode import Played, crashed
from pcg_plugin.problems.gameeval.prompts import fill, texts

PRINCE = "Prince"
NAMES = ("Nancy", "Tom", "Cindy", "Jack", "Rose", "Edward", "Robert")
ROLES = ("Princess", "Chef", "Spy", "Maid", "Guard", "Queen", "Minister")
CAMPS = {
    "Princess": "Prince",
    "Chef": "Prince",
    "Queen": "Queen",
    "Minister": "Queen",
    "Guard": "Queen",
    "Spy": "Spy",
    "Maid": "Spy",
}
TRIES = 3  # calls per JSON reply before giving up
PROMPT_ROLES = (PRINCE, *ROLES)  # whose prompt a participant may write


def winning_camp(named_role: str) -> str:
    """The Princess named: the Prince camp (Princess, Chef) wins; the Queen: the Queen camp; anyone else (the
    Chef included): the Spy camp."""
    return {"Princess": "Prince", "Queen": "Queen"}.get(named_role, "Spy")


@dataclass(frozen=True)
class Seat:
    name: str
    role: str


@dataclass(frozen=True)
class Setup:
    seating: tuple[Seat, ...]  # the Prince's question order
    trial: int = 0

    def __post_init__(self) -> None:
        if sorted(s.role for s in self.seating) != sorted(ROLES) or len({s.name for s in self.seating}) != 7:
            raise ValueError(f"TofuKingdom needs 7 players with distinct names, one of each role {', '.join(ROLES)}")


def draw(rng: Any, names: tuple[str, ...] = NAMES, trial: int = 0) -> Setup:
    """A seeded draw of the seating and roles (the reference shuffles names, deals roles in order, shuffles)."""
    people = list(names)
    rng.shuffle(people)
    seats = [Seat(n, r) for n, r in zip(people, ROLES, strict=True)]
    rng.shuffle(seats)
    return Setup(tuple(seats), trial)


def play(setup: Setup, model: Model, overrides: Mapping[str, str] | None = None) -> Played:
    """One episode; ``overrides`` replaces the role prompt of the Prince or of one of the 7 roles (``<<name>>``
    filled with the player's name)."""
    t = texts("tofukingdom")
    own = dict(overrides or {})
    host, lines, errors = t["host"], t["lines"], t["errors"]
    names = [s.name for s in setup.seating]
    table = Table([*names, PRINCE], model)
    identities = "".join(fill(lines["identity"], name=s.name, role=s.role) for s in setup.seating)

    def ask_json(caller: str, stage: str, messages: list[dict[str, str]]) -> Any:
        for _ in range(TRIES):
            reply = table.ask(caller, stage, messages)
            try:
                return json.loads(reply)  # type: ignore[arg-type]  # None (a refused call) raises, caught below
            except Exception:  # noqa: BLE001 - the reference's bare except: None and bad JSON alike
                continue
        raise _GaveUp

    def key(value: Any, name: str, stage: str) -> Any:
        try:
            return value[name]
        except (KeyError, TypeError, IndexError) as exc:
            raise Crash(
                type(exc).__name__,
                f"the {stage} reply {json.dumps(value)[:80]} has no {name!r} (the reference raises here)",
            ) from None

    def prince(stage: str, instruction: str, with_game: bool, error: str, gave_none: str) -> Any:
        """The Prince's JSON reply at ``stage``; none in ``TRIES`` calls ends the episode (``error``, and
        ``gave_none``: what the Prince failed to do)."""
        head = [{"role": "system", "content": t["game_prompt"]}] if with_game else []
        messages = [
            *head,
            {"role": "system", "content": own.get(PRINCE, t["prince_role"])},
            *table.histories[PRINCE],
            {"role": "system", "content": instruction},
        ]
        try:
            return ask_json(PRINCE, stage, messages)
        except _GaveUp:
            raise EndedEarly(error, f"the Prince {gave_none} in {TRIES} calls") from None

    def answer(seat: Seat, stage: str, error: str, what: str, null: str) -> None:
        """``seat``'s answer, heard by the other players and the Prince; the episode ends (``error``) when no JSON
        answer comes in ``TRIES`` calls (``what``: the answer's name) or it is null (``null``: the words for it)."""
        system = fill(
            t["player_system"],
            game_prompt=t["game_prompt"],
            name=seat.name,
            role_prompt=fill(own.get(seat.role, t["roles"][seat.role]), name=seat.name),
            identities=identities,
        )
        messages = [
            {"role": "system", "content": system},
            *table.histories[seat.name],
            {"role": "system", "content": t["player_instruction"]},
        ]
        try:
            parsed = ask_json(seat.role, stage, messages)
        except _GaveUp:
            raise EndedEarly(error, f"{seat.name} ({seat.role}) gave no JSON {what} in {TRIES} calls") from None
        reply = key(parsed, "answer", stage)
        if reply is None:
            raise EndedEarly(error, f"{seat.name} ({seat.role}) {null}")
        table.tell(seat.name, fill(lines["answer"], name=seat.name, answer=reply))  # the other players, the Prince
        table.add(seat.name, "assistant", json.dumps(parsed))

    def announce(text: str) -> None:
        table.tell("host", text)  # every player and the Prince

    def asked(text: str, parsed: Any) -> None:
        table.tell(PRINCE, text, to=names)
        table.add(PRINCE, "assistant", json.dumps(parsed))

    try:
        announce(host["start"])
        for seat in setup.seating:
            announce(fill(host["ask"], name=seat.name))
            failed = f"gave no JSON question for {seat.name}"
            parsed = prince("ask", t["prince_ask"], True, errors["question"], failed)
            question = key(parsed, "question", "ask")
            if question is None:
                raise EndedEarly(errors["question"], f"the Prince's question for {seat.name} is null")
            asked(fill(lines["prince"], question=question), parsed)
            answer(seat, "answer", errors["answer"], "answer", "answered null")
        announce(host["extra"])
        failed = "chose no player for the extra question"
        parsed = prince("ask_extra", t["prince_ask_choose"], False, errors["extra_name"], failed)
        question = key(parsed, "question", "ask_extra")
        chosen = key(parsed, "name", "ask_extra")
        if chosen is None:
            raise EndedEarly(errors["extra_name"], "the Prince's extra-question name is null")
        asked(fill(lines["extra"], name=chosen, question=question), parsed)
        last = setup.seating[-1]  # the reference's leftover loop variable answers, whoever was chosen
        answer(last, "answer_extra", errors["extra_answer"], "extra answer", "answered the extra question null")
        announce(host["final"])
        parsed = prince("choose", t["prince_choose"], False, errors["final"], "named no Princess")
        final = key(parsed, "name", "choose")
        by_name = {s.name: s for s in setup.seating}
        if not any(final == n for n in names):
            raise EndedEarly(errors["final"], f"the Prince named {final!r}, not one of the 7 players")
        role = by_name[final].role
        why = f"the Prince named {final}, the {role}: the {winning_camp(role)} camp wins"
        table.events.append(Ended(role, why))
        return Played(role, None, {"winner": role, "log": f"{setup.trial}.log"}, why, tuple(table.events))
    except EndedEarly as stop:  # the reference's error string as the outcome
        table.events.append(Ended(stop.error, stop.why))
        return Played(stop.error, None, {"error": stop.error}, stop.why, tuple(table.events))
    except (Crash, RecursionError) as exc:
        return crashed(table, exc)
