"""GameEval (jordddan/GameEval at 5025a1a): Ask-Guess, SpyFall and TofuKingdom played as the reference plays them.

``askguess``, ``spyfall``, ``tofukingdom``: the pure rules of each game over an ``episode.table.Table``;
``prompts``: the reference's texts (package data); ``replay``/``aggregate``: the ``pcg gameeval`` contract;
``problem``: the four harness problems on one base class, the family ``gameeval/*``.
"""

from pcg_plugin.core.contract.problem import Family

REFERENCE = "jordddan/GameEval@5025a1a"
GAME_NAMES = ("askguess-easy", "askguess-hard", "spyfall", "tofukingdom")
"""The games, as ``gameeval/<name>`` (``games.GAMES`` holds each one's rules; a test keeps the two equal)."""


FAMILY = Family(
    "pcg_plugin.problems.gameeval.problem:GameEvalProblem",
    variants="pcg_plugin.problems.gameeval:GAME_NAMES",
    options="pcg_plugin.problems.gameeval.settings:add_options",
)
"""What the entry point ``gameeval/*`` names, as ``pcgbench/*`` is: one problem per game, listed without
importing any game."""
