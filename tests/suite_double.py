"""One scripted test double for a suite of GameEval games and the picture game (``--pcg-backend scripted
--pcg-model suite_double:respond``), since a run has one model: a picture-game history (the Follower's header, or
the Giver's target grid) is answered by ``ig_doubles``' perfect pair, any other by ``ge_doubles.respond``. Needs
tests/gameeval and tests/imagegame on the path, as those doubles do."""

from __future__ import annotations

import ge_doubles
import ig_doubles


def is_picture_game(messages: list[dict]) -> bool:
    if ig_doubles.is_follower(messages):
        return True
    try:
        ig_doubles.target_of(messages)
    except AssertionError:
        return False
    return True


def respond(messages: list[dict], n: int = 1) -> list[str]:
    if is_picture_game(messages):
        return ig_doubles.respond_perfect(messages, n)
    return ge_doubles.respond(messages, n)
