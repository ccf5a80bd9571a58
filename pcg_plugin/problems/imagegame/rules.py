"""The rules of one imagegame turn as clembench 2.0.0 plays them: pure functions, no I/O.

Per turn the Instruction Giver (Player 1, sees the target grid) replies; a reply matching the terminate regex
ends the episode normally, one matching the command regex is accepted as its first line, anything else aborts the
episode. The Instruction Follower (Player 2) gets that command and must answer with a grid matching the grid
regex, or the episode aborts. After ``turn_limit`` accepted turns the episode ends normally.

The regexes come from each instance (``Instance``); as clembench applies them, terminate and command ignore
case and the grid regex does not, all with ``re.match`` (anchored at the start, ``$`` also before one final
newline, no MULTILINE: a command is one line, optionally followed by one newline).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

TURN_LIMIT_V2 = 25
"""clembench 2.0.0 (the v2.0 runs): at most grid_dimension² = 25 turns, then a normal end."""
MAX_ROUNDS_HEAD = 50
"""clembench HEAD (a717f23, since 5046def): at most 5·5·2 = 50 rounds (one round = Giver + Follower); a variant."""
STANDARD_QUESTION = "What is your next command?"
"""What the game master asks the Giver before every later turn (the v2.0 instances' ``player_1_question``)."""
GIVER_INVALID = "Invalid instruction format"
FOLLOWER_INVALID = "Invalid grid format"

# The v2.0 instances' regex strings (clembench ``imagegame/in/instances.json``); each instance carries its own.
TERMINATE_PATTERN_V2 = r"^\s*command\s*:\s*done\s*$"
COMMAND_PATTERN_V2 = "^command: [^\n]+$"
GRID_PATTERN_V2 = "^\n*" + "\n".join([r"([A-Z▢]\s){4}[A-Z▢]"] * 5) + "\n*$"

EXPERIMENTS = ("compact_grids", "random_grids")


@dataclass(frozen=True)
class Instance:
    """One game instance: the fields of a clembench ``instances.json`` game instance that play and scoring use.

    ``experiment`` is the experiment's name ("compact_grids" or "random_grids"); ``target_grid`` is stored as
    clembench stores it (five lines of five space-separated cells, no surrounding newlines in the v2.0 set)."""

    game_id: int
    experiment: str
    target_grid: str
    grid_dimension: int
    player_1_prompt_header: str
    player_2_prompt_header: str
    player_1_question: str
    player_1_response_pattern: str
    player_1_terminate_pattern: str
    player_2_response_pattern: str

    @property
    def key(self) -> str:
        """The episode folder's relative name in clembench's layout (experiment index comes from the writer)."""
        return f"{self.experiment}/episode_{self.game_id}"

    def to_clembench(self) -> dict[str, Any]:
        """The game instance as clembench's ``instances.json`` holds it (without the experiment name)."""
        return {
            "game_id": self.game_id,
            "player_1_prompt_header": self.player_1_prompt_header,
            "player_2_prompt_header": self.player_2_prompt_header,
            "player_1_question": self.player_1_question,
            "grid_dimension": self.grid_dimension,
            "number_of_letters": self.target_grid.count("X"),  # clembench counts X after the substitution
            "player_1_response_pattern": self.player_1_response_pattern,
            "player_1_terminate_pattern": self.player_1_terminate_pattern,
            "player_2_response_pattern": self.player_2_response_pattern,
            "fill_row": False,
            "fill_column": False,
            "target_grid": self.target_grid,
        }

    @classmethod
    def from_clembench(cls, experiment: str, data: dict[str, Any]) -> Instance:
        """Read one clembench game instance; extra fields (number_of_letters, fill_row, ...) are ignored."""
        fields = {name: data[name] for name in cls.__dataclass_fields__ if name != "experiment"}
        return cls(experiment=experiment, **fields)


@dataclass(frozen=True)
class GiverMove:
    """What a Giver reply means: "done" (terminate regex), "command" (the accepted first line) or "invalid"."""

    kind: Literal["done", "command", "invalid"]
    command: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class FollowerMove:
    """What a Follower reply means: "grid" (the reply itself, as clembench scores it) or "invalid"."""

    kind: Literal["grid", "invalid"]
    grid: str | None = None
    reason: str | None = None


def is_done(reply: str, instance: Instance) -> bool:
    """The terminate regex, case-insensitive."""
    return re.match(instance.player_1_terminate_pattern, reply, re.IGNORECASE) is not None


def is_command(reply: str, instance: Instance) -> bool:
    """The command regex, case-insensitive."""
    return re.match(instance.player_1_response_pattern, reply, re.IGNORECASE) is not None


def is_grid(reply: str, instance: Instance) -> bool:
    """The grid regex, case-sensitive (uppercase A-Z or ▢ only)."""
    return re.match(instance.player_2_response_pattern, reply) is not None


def parse_giver(reply: str, instance: Instance) -> GiverMove:
    """Terminate is checked first, so "Command: DONE" ends the game even though it also matches the command regex."""
    if is_done(reply, instance):
        return GiverMove("done")
    if is_command(reply, instance):
        return GiverMove("command", command=reply.split("\n")[0])
    return GiverMove(
        "invalid",
        reason=f"{GIVER_INVALID}: the reply must be one line 'Command: ...' or 'Command: DONE' (the episode aborts)",
    )


def parse_follower(reply: str, instance: Instance) -> FollowerMove:
    """A valid reply is kept verbatim (blank lines around it included): clembench scores the raw reply."""
    if is_grid(reply, instance):
        return FollowerMove("grid", grid=reply)
    n = instance.grid_dimension
    return FollowerMove(
        "invalid",
        reason=f"{FOLLOWER_INVALID}: the reply must be only a {n}x{n} grid of A-Z or ▢ (the episode aborts)",
    )


def turn_limit(instance: Instance, variant: str = "v2.0") -> int:
    """Accepted turns before a normal end: grid_dimension² (v2.0, pinned) or HEAD's 50 rounds (a round is one
    Giver reply plus one Follower reply, so one turn here)."""
    if variant == "v2.0":
        return instance.grid_dimension**2
    if variant == "head":
        return MAX_ROUNDS_HEAD
    raise ValueError(f"unknown imagegame variant {variant!r}: 'v2.0' (pinned) or 'head'")


def giver_first_message(instance: Instance) -> str:
    """Header, the target grid and the question, joined by "\\n", with a trailing "\\n" (as in the v2.0 runs)."""
    return "\n".join([instance.player_1_prompt_header, instance.target_grid, instance.player_1_question]) + "\n"


def giver_next_message(instance: Instance | None = None) -> str:
    """The question alone; the instance's own question when given."""
    return STANDARD_QUESTION if instance is None else instance.player_1_question


def follower_first_message(instance: Instance, command: str) -> str:
    """The Follower's header and the accepted command, joined by one "\\n" (HEAD joins with "\\n\\n")."""
    return instance.player_2_prompt_header + "\n" + command


def follower_next_message(command: str) -> str:
    """Later turns send the accepted command alone."""
    return command
