"""Episodes replayed from scripted replies (``pcg gameeval replay``, ``spec/gameeval-replay.md`` §1-2): a script
line's setup as the game's ``Setup``, its replies as the model, the played episode as the contract's object."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pcg_plugin.episode.table import Message, Model
from pcg_plugin.errors import ScriptError  # re-exported
from pcg_plugin.problems.gameeval import askguess, spyfall, tofukingdom
from pcg_plugin.problems.gameeval.episode import Played

GAMES = ("askguess", "spyfall", "tofukingdom")


def setup_of(game: str, line: Mapping[str, Any]) -> Any:
    trial = int(line.get("trial", 0))
    try:
        if game == "askguess":
            return askguess.Setup(str(line["word"]), str(line["mode"]), trial)
        if game == "spyfall":
            return spyfall.Setup(
                (line["pair"][0], line["pair"][1]),
                tuple(line["players"]),
                int(line["spy_index"]),
                line.get("spy_llm", "gpt4"),
                line.get("villager_llm", "gpt3"),
                trial,
            )
        if game == "tofukingdom":
            seats = tuple(tofukingdom.Seat(s["name"], s["role"]) for s in line["seating"])
            return tofukingdom.Setup(seats, trial)
    except (KeyError, TypeError, IndexError) as exc:
        raise ScriptError(f"the setup lacks or mistypes {exc}") from None
    raise ScriptError(f"unknown game {game!r} (known: {', '.join(GAMES)})")


def play(game: str, setup: Any, model: Model) -> Played:
    games: dict[str, Callable[[Any, Model], Played]] = {
        "askguess": askguess.play,
        "spyfall": spyfall.play,
        "tofukingdom": tofukingdom.play,
    }
    return games[game](setup, model)


def scripted(replies: Sequence[str | None]) -> tuple[Model, list[int]]:
    """The script's replies in call order as a model; the list holds how many were used."""
    used = [0]

    def model(caller: str, stage: str, messages: list[Message]) -> str | None:
        if used[0] >= len(replies):
            raise ScriptError(f"the script has {len(replies)} replies; call {used[0] + 1} ({caller}, {stage}) has none")
        used[0] += 1
        return replies[used[0] - 1]

    return model, used


def echo(game: str, line: Mapping[str, Any]) -> dict[str, Any]:
    keys = {"askguess": ("mode", "word", "trial"), "spyfall": ("pair", "trial"), "tofukingdom": ("trial",)}[game]
    return {k: line[k] for k in keys if k in line}


def replay_line(game: str, line: Mapping[str, Any]) -> dict[str, Any]:
    """One script line -> its output object (``id, game, outcome, rounds, result, calls`` + echoes + ``why``)."""
    replies = line.get("replies")
    if not isinstance(replies, list) or not all(r is None or isinstance(r, str) for r in replies):
        raise ScriptError("replies must be a list of strings or nulls")
    model, used = scripted(replies)
    played = play(game, setup_of(game, line), model)
    if used[0] != len(replies):
        raise ScriptError(f"the episode ended ({played.outcome}) after {used[0]} of {len(replies)} replies")
    out = {
        "id": line.get("id"),
        "game": game,
        "outcome": played.outcome,
        "rounds": played.rounds,
        "result": played.result,
        "calls": played.calls_json(),
        "why": played.why,
    }
    if played.exception:
        out["exception"] = played.exception
    out.update(echo(game, line))
    return out
