"""The PCG Benchmark's problems, every registered variant (`registry.py`), reimplemented from the facts.

The record every variant is, and how a problem module plugs in: `bench_problem.py`; content kinds: `grid_kind.py`
(binary, sokoban, zelda, ...), `blocks_kind.py` (building).

Semantics are pinned to amidos2006/pcg_benchmark commit 00b96f5 (2025-08-30); the older 8ad18b6 (the
paper's runs) differs in the diversity greedy and Zelda's `kd_path`, both available here as documented
options. Facts and quirks: `../shared/spec/other-problems.md` §1, `pcgbench-problems.md`, and each module's
docstring.
"""

from pcg_plugin.core.contract.problem import Family

PINNED_COMMIT = "00b96f5"
PLACES = 3  # the decimals its leaderboard and report show scores with (the benchmark publishes figures, no table)

FAMILY = Family(
    "pcg_plugin.problems.pcgbench.problem:PcgBenchProblem",
    variants="pcg_plugin.problems.pcgbench.bench.registry:names",
    options="pcg_plugin.problems.pcgbench.settings:add_options",
)
"""What the entry point ``pcgbench/*`` names: every variant of ``bench/registry.py`` as ``pcgbench/<variant>``
(listed without importing any game; the harness adapter ``problem.PcgBenchProblem`` is imported when chosen)."""
