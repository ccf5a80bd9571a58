"""SpyFall (``game_spyfall.py``, ``spyfall/agents/base_agent.py``): six players, one spy, describe and vote.

Facts: ``spec/gameeval.md`` items 11-19. Host lines reach every seat as ``user`` (the eliminated too); a
player's words reach the others as ``user`` and come back to the speaker re-serialised (``json.dumps`` of the
parsed reply) as ``assistant``. A describe call = 12 fixed strategy messages + the seat's history + a reminder
(not kept); a vote call likewise with the vote messages. Outcomes: ``villager`` (spy voted out, the round),
``spy`` (3 or fewer left, always round 3), ``exit`` (the most-voted name is not a living player, round -1),
``crash`` where the reference raises (an unparsable description, an unhashable vote).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pcg_plugin.episode.table import Crash, Ended, Model, Table, tally
from pcg_plugin.problems.gameeval.episode import Played, crashed
from pcg_plugin.problems.gameeval.prompts import fill, texts

PLAYERS = ("Nancy", "Tom", "Cindy", "Jack", "Rose", "Edward")
SPY_WINS_AT = 3  # the spy wins once this many players (or fewer) are left


@dataclass(frozen=True)
class Setup:
    pair: tuple[str, str]  # (spy word, villager word)
    players: tuple[str, ...]  # seating order = describe and vote order
    spy_index: int  # 1-based
    spy_llm: str = "gpt4"
    villager_llm: str = "gpt3"
    trial: int = 0

    @property
    def spy_name(self) -> str:
        return self.players[self.spy_index - 1]

    def word(self, seat: str) -> str:
        return self.pair[0] if seat == self.spy_name else self.pair[1]

    def role(self, seat: str) -> str:
        return "spy" if seat == self.spy_name else "villager"

    def llm(self, seat: str) -> str:
        return self.spy_llm if seat == self.spy_name else self.villager_llm


def draw(rng: Any, pair: tuple[str, str], players: tuple[str, ...] = PLAYERS, **kw: Any) -> Setup:
    """A seeded draw of what the reference draws with ``random``: the seating and the spy's seat."""
    seating = list(players)
    rng.shuffle(seating)
    return Setup(pair, tuple(seating), rng.randint(1, len(seating)), **kw)


ROLES = ("spy", "villager")


def fixed_messages(kind: str, name: str, phrase: str, override: str | None = None) -> list[dict[str, str]]:
    """The 12 strategy messages before a seat's history (``describe`` or ``vote``); ``override`` (a
    participant's template, ``<<name>>`` and ``<<phrase>>`` filled) replaces the first, the game prompt."""
    messages = [dict(m) for m in texts("spyfall")[f"{kind}_messages"]]
    if override is not None:
        messages[0]["content"] = override
    return [{"role": m["role"], "content": fill(m["content"], name=name, phrase=phrase)} for m in messages]


def parse_description(reply: str | None) -> tuple[Any, dict[str, Any]]:
    """(speak, parsed reply); ``Crash`` unless the reply is a JSON object with ``thought`` and ``speak``."""
    try:
        parsed = json.loads(reply)  # type: ignore[arg-type]  # None (a refused call) raises, caught below
        parsed["thought"]
        speak = parsed["speak"]
    except Exception as exc:  # noqa: BLE001 - the reference catches everything here, then reads an unbound name
        raise Crash(
            "UnboundLocalError",
            f"the description is not a JSON object with thought and speak ({type(exc).__name__}: {reply!r:.80})",
        ) from None
    return speak, parsed


def parse_vote(reply: str | None) -> tuple[Any, Any, Any]:
    """(name, speak, what the voter's own history keeps): keys read thought, speak, name in turn, a missing one
    (or an unparsable reply) leaving the rest ``None``; the kept value is the parsed reply as far as it got."""
    kept: Any = reply
    speak = name = None
    try:
        kept = json.loads(reply)  # type: ignore[arg-type]  # None (a refused call) raises, caught below
        kept["thought"]
        speak = kept["speak"]
        name = kept["name"]
    except Exception:  # noqa: BLE001 - the reference's bare except: the keys read so far stand
        pass
    return name, speak, kept


def play(setup: Setup, model: Model, overrides: Mapping[str, str] | None = None) -> Played:
    """One episode; ``overrides`` replaces the game prompt of the spy's or the villagers' calls."""
    t = texts("spyfall")

    def fixed(kind: str, seat: str) -> list[dict[str, str]]:
        return fixed_messages(kind, seat, setup.word(seat), (overrides or {}).get(setup.role(seat)))

    host, lines = t["host"], t["lines"]
    table = Table(setup.players, model)
    spy = setup.spy_name

    def result(winner: str, round_: int) -> dict[str, Any]:
        return {
            "winer": winner,
            "players": list(setup.players),
            "llms": [setup.llm(s) for s in setup.players],
            "spy_index": setup.spy_index,
            "round": round_,
            "log": f"{setup.trial}.log",
        }

    def end(winner: str, round_: int, why: str) -> Played:
        table.events.append(Ended(winner, why))
        return Played(winner, round_, result(winner, round_), why, tuple(table.events))

    try:
        table.tell("host", host["start"])
        table.tell("host", fill(host["living"], living=json.dumps(table.living)))
        round_ = 0
        while True:
            round_ += 1
            table.tell("host", host["describe"])
            for seat in setup.players:
                if seat not in table.living:
                    continue
                table.tell("host", fill(host["turn"], name=seat))
                messages = fixed("describe", seat) + table.histories[seat]
                messages.append({"role": "system", "content": t["describe_reminder"]})
                speak, parsed = parse_description(table.ask(seat, "describe", messages))
                table.tell(seat, fill(lines["describe"], name=seat, speak=speak))
                table.add(seat, "assistant", json.dumps(parsed))
            table.tell("host", host["vote"])
            votes = []
            for seat in setup.players:
                table.tell("host", fill(host["turn"], name=seat))  # announced for the dead too
                if seat not in table.living:
                    continue
                messages = fixed("vote", seat) + table.histories[seat]
                messages.append({"role": "system", "content": t["vote_reminder"]})
                name, speak, kept = parse_vote(table.ask(seat, "vote", messages))
                table.add(seat, "assistant", json.dumps(kept))
                table.tell(seat, fill(lines["vote"], name=seat, speak=speak, vote=name))
                table.vote(round_, seat, name)
                votes.append(name)
            chosen = tally(votes)
            if chosen not in table.living:
                return end("exit", -1, f"round {round_}: the most-voted name {chosen!r} is not a living player")
            if chosen == spy:
                return end("villager", round_, f"round {round_}: the spy {spy} was voted out")
            table.eliminate(round_, chosen)
            table.tell("host", fill(host["eliminated"], name=chosen))
            table.tell("host", fill(host["now_living"], living=json.dumps(table.living)))
            if len(table.living) <= SPY_WINS_AT:
                left = len(table.living)
                return end(
                    "spy",
                    round_,
                    f"round {round_}: {chosen} was voted out, {left} players are left, the spy {spy} among them",
                )
    except (Crash, RecursionError) as exc:
        return crashed(table, exc)
