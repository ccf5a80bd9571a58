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

    def prince(stage: str, instruction: str, with_game: bool) -> Any:
        head = [{"role": "system", "content": t["game_prompt"]}] if with_game else []
        messages = [
            *head,
            {"role": "system", "content": own.get(PRINCE, t["prince_role"])},
            *table.histories[PRINCE],
            {"role": "system", "content": instruction},
        ]
        return ask_json(PRINCE, stage, messages)

    def answer(seat: Seat, stage: str) -> tuple[Any, Any]:
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
        parsed = ask_json(seat.role, stage, messages)
        return key(parsed, "answer", stage), parsed

    def announce(text: str) -> None:
        table.tell("host", text)  # every player and the Prince

    def stop(error: str, why: str) -> Played:
        table.events.append(Ended(error, why))
        return Played(error, None, {"error": error}, why, tuple(table.events))

    def heard_answer(seat: Seat, reply: Any, parsed: Any) -> None:
        text = fill(lines["answer"], name=seat.name, answer=reply)
        table.tell(seat.name, text)  # the other players and the Prince
        table.add(seat.name, "assistant", json.dumps(parsed))

    try:
        announce(host["start"])
        for seat in setup.seating:
            announce(fill(host["ask"], name=seat.name))
            try:
                parsed = prince("ask", t["prince_ask"], with_game=True)
            except _GaveUp:
                return stop(errors["question"], f"the Prince gave no JSON question for {seat.name} in {TRIES} calls")
            question = key(parsed, "question", "ask")
            if question is None:
                return stop(errors["question"], f"the Prince's question for {seat.name} is null")
            table.tell(PRINCE, fill(lines["prince"], question=question), to=names)
            table.add(PRINCE, "assistant", json.dumps(parsed))
            try:
                reply, parsed = answer(seat, "answer")
            except _GaveUp:
                return stop(errors["answer"], f"{seat.name} ({seat.role}) gave no JSON answer in {TRIES} calls")
            if reply is None:
                return stop(errors["answer"], f"{seat.name} ({seat.role}) answered null")
            heard_answer(seat, reply, parsed)
        announce(host["extra"])
        try:
            parsed = prince("ask_extra", t["prince_ask_choose"], with_game=False)
        except _GaveUp:
            return stop(errors["extra_name"], f"the Prince chose no player for the extra question in {TRIES} calls")
        question = key(parsed, "question", "ask_extra")
        chosen = key(parsed, "name", "ask_extra")
        if chosen is None:
            return stop(errors["extra_name"], "the Prince's extra-question name is null")
        table.tell(PRINCE, fill(lines["extra"], name=chosen, question=question), to=names)
        table.add(PRINCE, "assistant", json.dumps(parsed))
        last = setup.seating[-1]  # the reference's leftover loop variable answers, whoever was chosen
        try:
            reply, parsed = answer(last, "answer_extra")
        except _GaveUp:
            return stop(errors["extra_answer"], f"{last.name} ({last.role}) gave no JSON extra answer in {TRIES} calls")
        if reply is None:
            return stop(errors["extra_answer"], f"{last.name} ({last.role}) answered the extra question null")
        heard_answer(last, reply, parsed)
        announce(host["final"])
        try:
            parsed = prince("choose", t["prince_choose"], with_game=False)
        except _GaveUp:
            return stop(errors["final"], f"the Prince named no Princess in {TRIES} calls")
        final = key(parsed, "name", "choose")
        by_name = {s.name: s for s in setup.seating}
        if not any(final == n for n in names):
            return stop(errors["final"], f"the Prince named {final!r}, not one of the 7 players")
        role = by_name[final].role
        why = f"the Prince named {final}, the {role}: the {winning_camp(role)} camp wins"
        table.events.append(Ended(role, why))
        return Played(role, None, {"winner": role, "log": f"{setup.trial}.log"}, why, tuple(table.events))
    except (Crash, RecursionError) as exc:
        return crashed(table, exc)
