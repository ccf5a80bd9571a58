"""clembench's episode files: read a v2.0 episode folder and score it as clembench 2.0.0 did; write ours alike.

Layout (clembench-runs ``v2.0/<A>-t0.0--<B>-t0.0/imagegame/<i>_<experiment>/episode_<game_id>/``):
``interactions.json`` holds ``players`` and ``turns``, a list of turns, each a list of logged events
``{"from", "to", "timestamp", "action": {"type", "content"[, "original_content"]}}``. A turn is logged as
GM→Player 1 "send message", Player 1→GM "get message", then GM→GM "parse" (the accepted first line) or
"invalid format", then GM→Player 2 "send message", Player 2→GM "get message", GM→GM "parse" or "invalid
format"; a DONE turn stops after the Giver's reply.

The 2.0.0 scorer reads turns by position, not by event type: ``turn[1]`` is the Giver's raw reply and
``turn[4]`` the Follower's, and it re-applies the regexes. A turn of fewer than 4 events after an accepted
command counts as an abort; exactly 4 made clembench's scorer fail (no scores.json): ``NotScorable`` here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pcg_plugin._util import jsontext
from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.errors import EpisodeFolderError, NotScorable
from pcg_plugin.problems.imagegame import GAME_NAME, rules
from pcg_plugin.problems.imagegame.episode_record import EpisodeRecord, Message, TurnRecord
from pcg_plugin.problems.imagegame.scoring import score_episode

GM = "GM"
P1 = "Player 1"
P2 = "Player 2"
GM_NAME = f"Game master for {GAME_NAME}"
INTERACTIONS = "interactions.json"
SCORES = "scores.json"
_EXPERIMENT_DIR = re.compile(r"^(\d+)_(.+)$")
_EPISODE_DIR = re.compile(r"^episode_(\d+)$")


def episode_key(folder: Path) -> tuple[str, int]:
    """(experiment, game_id) from ``.../<i>_<experiment>/episode_<game_id>``, as clembench names its folders."""
    episode = _EPISODE_DIR.match(folder.name)
    experiment = _EXPERIMENT_DIR.match(folder.parent.name)
    if episode is None or experiment is None:
        raise EpisodeFolderError(
            f"{folder}: not named like a clembench episode folder (<i>_<experiment>/episode_<game_id>)"
        )
    return experiment.group(2), int(episode.group(1))


def find_instance(instances: list[rules.Instance], experiment: str, game_id: int, where: str) -> rules.Instance:
    for instance in instances:
        if instance.experiment == experiment and instance.game_id == game_id:
            return instance
    raise EpisodeFolderError(f"{where}: no instance {experiment} game_id {game_id} in the instances given")


def check_target(interactions: dict[str, Any], instance: rules.Instance, where: str) -> None:
    """The Giver's first message must show this instance's target: a wrong instance set fails loudly."""
    first = interactions["turns"][0][0]["action"]["content"] if interactions.get("turns") else ""
    if instance.target_grid not in first:
        raise EpisodeFolderError(
            f"{where}: the Giver's first message does not show the target of {instance.experiment} game_id "
            f"{instance.game_id}; pass the instances file this run used (--instances)"
        )


def _content(event: dict[str, Any]) -> str:
    return str(event["action"]["content"])


def replies_by_position(interactions: dict[str, Any], where: str = "episode") -> list[tuple[str, str | None]]:
    """Per turn, (``turn[1]``, ``turn[4]``), the Follower's reply None when the turn has at most 4 events."""
    replies: list[tuple[str, str | None]] = []
    for index, turn in enumerate(interactions["turns"]):
        if len(turn) < 2:
            raise NotScorable(f"{where}: turn {index} holds no Giver reply; clembench's scorer failed here")
        replies.append((_content(turn[1]), _content(turn[4]) if len(turn) > 4 else None))
    return replies


def _check_readable(interactions: dict[str, Any], instance: rules.Instance, where: str) -> None:
    """Where 2.0.0's scorer raised (a turn of exactly 4 events after an accepted command), refuse to score."""
    for index, turn in enumerate(interactions["turns"]):
        if rules.parse_giver(_content(turn[1]), instance).kind != "command":
            return  # the reading stops at DONE or an invalid command, before turn[4] is touched
        if len(turn) == 4:
            raise NotScorable(f"{where}: turn {index} has 4 events; clembench's scorer failed indexing turn[4]")
        if len(turn) < 4 or rules.parse_follower(_content(turn[4]), instance).kind != "grid":
            return  # aborted here


def score_interactions(
    interactions: dict[str, Any], instance: rules.Instance, where: str = "episode"
) -> dict[str, Any]:
    """The scores.json object clembench 2.0.0 wrote for these interactions."""
    replies = replies_by_position(interactions, where)
    _check_readable(interactions, instance, where)
    return score_episode(replies, instance)


def read_episode(folder: str | Path, instances: list[rules.Instance]) -> tuple[dict[str, Any], rules.Instance]:
    """The interactions of one episode folder and the instance it played (checked against the first message)."""
    folder = Path(folder)
    path = folder / INTERACTIONS
    if not path.is_file():
        raise EpisodeFolderError(f"{folder}: no {INTERACTIONS} (is this a clembench episode folder?)")
    try:
        interactions = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise EpisodeFolderError(f"{path}: not JSON ({err})") from err
    if not isinstance(interactions, dict) or not isinstance(interactions.get("turns"), list):
        raise EpisodeFolderError(f"{path}: no 'turns' list, not a clembench interactions file")
    experiment, game_id = episode_key(folder)
    instance = find_instance(instances, experiment, game_id, str(folder))
    check_target(interactions, instance, str(folder))
    return interactions, instance


def score_folder(folder: str | Path, instances: list[rules.Instance]) -> dict[str, Any]:
    """Read and score one clembench v2.0 episode folder."""
    interactions, instance = read_episode(folder, instances)
    return score_interactions(interactions, instance, str(folder))


def _event(from_: str, to: str, message: Message, type_: str, original: str | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"type": type_, "content": message.content}
    if original is not None:
        action["original_content"] = original
    return {"from": from_, "to": to, "timestamp": message.timestamp, "action": action}


def _turn_events(turn: TurnRecord, instance: rules.Instance) -> list[dict[str, Any]]:
    events = [
        _event(GM, P1, turn.giver_prompt, "send message"),
        _event(P1, GM, turn.giver_reply, "get message"),
    ]
    move = rules.parse_giver(turn.giver_reply.content, instance)
    raw = turn.giver_reply.content
    if move.kind == "invalid":
        events.append(_event(GM, GM, Message(rules.GIVER_INVALID, turn.giver_reply.timestamp), "invalid format", raw))
    if move.kind != "command":
        return events
    events.append(_event(GM, GM, Message(move.command or "", turn.giver_reply.timestamp), "parse", raw))
    if turn.follower_prompt is None or turn.follower_reply is None:
        return events
    events.append(_event(GM, P2, turn.follower_prompt, "send message"))
    events.append(_event(P2, GM, turn.follower_reply, "get message"))
    drawn = turn.follower_reply
    if rules.parse_follower(drawn.content, instance).kind == "grid":
        events.append(_event(GM, GM, drawn, "parse", drawn.content))
    else:
        events.append(_event(GM, GM, Message(rules.FOLLOWER_INVALID, drawn.timestamp), "invalid format", drawn.content))
    return events


def to_interactions(episode: EpisodeRecord, instance: rules.Instance) -> dict[str, Any]:
    """Our episode in clembench's ``interactions.json`` layout (GM events carry the reply's timestamp)."""
    return {
        "players": {"GM": GM_NAME, "Player_1": episode.player_1, "Player_2": episode.player_2},
        "turns": [_turn_events(turn, instance) for turn in episode.turns],
    }


def from_interactions(interactions: dict[str, Any], experiment: str, game_id: int) -> EpisodeRecord:
    """The record of a clembench episode, read by event type (players' messages only; GM events are derived)."""
    turns = []
    for turn in interactions["turns"]:
        sent = {(e["to"], e["action"]["type"]): e for e in turn if e["from"] == GM}
        got = {e["from"]: e for e in turn if e["to"] == GM and e["from"] != GM}

        def message(event: dict[str, Any] | None) -> Message | None:
            return None if event is None else Message(_content(event), event["timestamp"])

        giver_prompt, giver_reply = message(sent.get((P1, "send message"))), message(got.get(P1))
        if giver_prompt is None or giver_reply is None:
            raise EpisodeFolderError(f"{experiment} episode {game_id}: a turn without the Giver's messages")
        turns.append(
            TurnRecord(giver_prompt, giver_reply, message(sent.get((P2, "send message"))), message(got.get(P2)))
        )
    players = interactions.get("players", {})
    return EpisodeRecord(experiment, game_id, players.get("Player_1", ""), players.get("Player_2", ""), tuple(turns))


def experiment_folder(instance: rules.Instance) -> str:
    """``0_compact_grids`` / ``1_random_grids``: clembench numbers experiments in the instances file's order."""
    index = rules.EXPERIMENTS.index(instance.experiment) if instance.experiment in rules.EXPERIMENTS else 0
    return f"{index}_{instance.experiment}"


def write_episode(game_folder: str | Path, episode: EpisodeRecord, instance: rules.Instance) -> Path:
    """Write ``interactions.json`` and (when clembench would) ``scores.json`` under ``game_folder`` (the
    ``imagegame`` folder of a run), in clembench's layout; returns the episode folder."""
    folder = Path(game_folder) / experiment_folder(instance) / f"episode_{instance.game_id}"
    folder.mkdir(parents=True, exist_ok=True)
    interactions = to_interactions(episode, instance)
    atomic_write(folder / INTERACTIONS, jsontext.dumps(interactions))
    try:
        scores = score_interactions(interactions, instance, str(folder))
    except NotScorable:
        return folder  # clembench wrote no scores.json for such an episode either
    (folder / SCORES).write_text(json.dumps(scores), encoding="utf-8")
    return folder
