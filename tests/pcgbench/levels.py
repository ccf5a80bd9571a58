"""The example levels of pcg_benchmark's own READMEs (binary, sokoban microban, zelda), shared by the tests."""

from pcg_plugin.problems.pcgbench.bench.examples import BINARY_README, SOKOBAN_MICROBAN, ZELDA_README

__all__ = ["BINARY_README", "SOKOBAN_MICROBAN", "ZELDA_README"]
