import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ig_helpers import make_instance

from pcg_plugin.problems.imagegame import rules

LETTER_ROW = st.lists(st.sampled_from(list("ABCXYZ▢")), min_size=5, max_size=5).map(" ".join)
GRID = st.lists(LETTER_ROW, min_size=5, max_size=5).map("\n".join)


@pytest.mark.parametrize("reply", ["Command: DONE", "command:done", "  COMMAND :  done \n", "Command: DONE\n\n"])
def test_terminate_regex_ignores_case_and_spaces(instance, reply) -> None:
    assert rules.parse_giver(reply, instance) == rules.GiverMove("done")


@pytest.mark.parametrize(
    ("reply", "command"),
    [
        ("Command: Put an X in the top left", "Command: Put an X in the top left"),
        ("command: fill row 1 with X\n", "command: fill row 1 with X"),  # one trailing newline is allowed
        ("COMMAND: DONE now", "COMMAND: DONE now"),  # not the terminate regex: 'now' follows DONE
    ],
)
def test_command_is_the_first_line(instance, reply, command) -> None:
    assert rules.parse_giver(reply, instance) == rules.GiverMove("command", command=command)


@pytest.mark.parametrize(
    "reply",
    [
        "Command:Put an X",  # no space after the colon
        "Instruction: Put an X",
        "Command: Put an X\nCommand: and a Y",  # two lines: no MULTILINE
        "Command: Put an X\n\n",  # two trailing newlines
        "Sure! Command: Put an X",
        "Command: ",
        "",
    ],
)
def test_anything_else_from_the_giver_is_invalid(instance, reply) -> None:
    move = rules.parse_giver(reply, instance)
    assert move.kind == "invalid" and move.command is None
    assert move.reason.startswith(rules.GIVER_INVALID)


@given(GRID, st.integers(0, 3), st.integers(0, 3))
def test_a_grid_with_blank_lines_around_is_valid_and_kept_verbatim(g, before, after) -> None:
    reply = "\n" * before + g + "\n" * after
    assert rules.parse_follower(reply, make_instance()) == rules.FollowerMove("grid", grid=reply)


@pytest.mark.parametrize(
    "reply",
    [
        "x ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢",  # lowercase letter
        "X ▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢",  # six columns
        "X ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢",  # four rows
        "Here is the grid:\nX ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢",
        "X ▢ ▢ ▢ ▢ \n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢",  # trailing space on a row
        "X . . . .\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢",
    ],
)
def test_malformed_grids_are_invalid(instance, reply) -> None:
    move = rules.parse_follower(reply, instance)
    assert move.kind == "invalid" and move.grid is None and move.reason.startswith(rules.FOLLOWER_INVALID)


def test_a_tab_between_cells_passes_the_regex(instance) -> None:
    """\\s matches a tab: the grid is valid, though the evaluator later splits cells on spaces only."""
    reply = "X\t▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢"
    assert rules.parse_follower(reply, instance).kind == "grid"


@given(st.text(max_size=40))
def test_giver_moves_agree_with_the_regexes(text) -> None:
    inst = make_instance()
    move = rules.parse_giver(text, inst)
    if re.match(rules.TERMINATE_PATTERN_V2, text, re.I):
        assert move.kind == "done"
    elif re.match(rules.COMMAND_PATTERN_V2, text, re.I):
        assert move.kind == "command" and move.command == text.split("\n")[0] and "\n" not in move.command
    else:
        assert move.kind == "invalid"


def test_first_and_later_messages_follow_the_v2_joins(instance) -> None:
    assert rules.giver_first_message(instance) == (
        "HEADER ONE\n" + instance.target_grid + "\nWhat is your next command?\n"
    )
    assert rules.giver_next_message() == "What is your next command?"
    assert rules.giver_next_message(instance) == instance.player_1_question
    assert rules.follower_first_message(instance, "Command: a") == "HEADER TWO\nCommand: a"
    assert rules.follower_next_message("Command: b") == "Command: b"


def test_turn_limits(instance) -> None:
    assert rules.TURN_LIMIT_V2 == 25 == rules.turn_limit(instance)
    assert rules.turn_limit(instance, "head") == 50
    with pytest.raises(ValueError, match="variant"):
        rules.turn_limit(instance, "v3")


def test_instance_round_trips_through_clembench_fields(instance) -> None:
    data = instance.to_clembench()
    assert data["number_of_letters"] == 13 and data["fill_row"] is False
    assert rules.Instance.from_clembench("compact_grids", data) == instance
