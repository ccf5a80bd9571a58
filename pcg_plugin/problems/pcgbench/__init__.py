"""PCG Benchmark grid problems (binary-v0, sokoban-v0, zelda-v0), reimplemented from the facts.

Semantics are pinned to amidos2006/pcg_benchmark commit 00b96f5 (2025-08-30); the older 8ad18b6 (the
paper's runs) differs in the diversity greedy and Zelda's `kd_path`, both available here as documented
options. Facts and quirks: `../shared/spec/other-problems.md` §1 and `QUIRKS` in each module.
"""

PINNED_COMMIT = "00b96f5"
