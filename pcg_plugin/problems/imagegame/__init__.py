"""clembench's "imagegame" (an ASCII picture reference game for two players), reimplemented from the facts.

Semantics are pinned to clembench 2.0.0 (clp-research/clembench tag ``2.0.0`` = 652fa63, game master
82b9d87 that produced the published v2.0 runs): the three per-instance regexes, the 25-turn limit, "\\n" joins in
the first messages, and the index-based scorer with every rounding quirk. clembench's HEAD (a717f23) ends after
50 rounds instead: ``rules.MAX_ROUNDS_HEAD``, a documented variant. Facts: ``../shared/spec/other-problems.md`` §2.
clembench is MIT-licensed; the instance data in ``data/`` says where it came from (``data/SOURCE.md``).
"""

from pcg_plugin.core.contract.problem import Entry

PINNED_VERSION = "2.0.0"
PINNED_COMMIT = "82b9d87"
GAME_NAME = "imagegame"

PROBLEM = Entry(
    "imagegame",
    "pcg_plugin.problems.imagegame.problem:ImageGame",
    options="pcg_plugin.problems.imagegame.settings:add_options",
)
"""What the entry point ``imagegame`` names (the implementation is imported when a run chooses it)."""
