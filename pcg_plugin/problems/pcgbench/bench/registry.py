"""Every PCG Benchmark variant the harness knows, one line each: name -> (its game module's `make`, its kwargs).

The kwargs are the benchmark's own (`probs/<problem>/__init__.py` at 00b96f5). Adding a variant is adding a
line here: the `pcg pcgbench` commands, `--pcg-problem pcgbench/<name>` (the pytest_pcg.problems family entry
point `pcgbench/*` lists these names), the random baseline and `scripts/bench/bench_pcgbench.py` all read this table.
The table names the game modules as text, so listing the variants (every pytest start) imports no game and no
numpy; a variant is made on first use and kept (`get_problem`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem

GAMES = "pcg_plugin.problems.pcgbench.games"

PREFIX = "pcgbench/"

# name -> ("<game module>:<maker>" below games/, the benchmark's kwargs): read without importing any game
REGISTRY: dict[str, tuple[str, dict[str, Any]]] = {
    "binary-v0": ("binary.problem:make", dict(width=14, height=14)),
    "binary-wide-v0": ("binary.problem:make", dict(width=28, height=14)),
    "binary-large-v0": ("binary.problem:make", dict(width=28, height=28)),
    "sokoban-v0": ("sokoban.problem:make", dict(width=5, height=5, difficulty=1, solver=5000)),
    "sokoban-complex-v0": ("sokoban.problem:make", dict(width=5, height=5, difficulty=4, solver=20000)),
    "sokoban-large-v0": ("sokoban.problem:make", dict(width=8, height=8, difficulty=3, solver=10000)),
    "zelda-v0": ("zelda.problem:make", dict(width=11, height=7, enemies=3)),
    "zelda-enemies-v0": ("zelda.problem:make", dict(width=11, height=7, enemies=12)),
    "zelda-large-v0": ("zelda.problem:make", dict(width=18, height=12, enemies=8)),
    "building-v0": ("building.problem:make", dict(width=7, length=7, height=12, blocks=40)),
    "building-large-v0": ("building.problem:make", dict(width=11, length=11, height=12, blocks=180)),
    "building-tall-v0": ("building.problem:make", dict(width=7, length=7, height=24, blocks=80)),
    "building-huge-v0": ("building.problem:make", dict(width=11, length=11, height=24, blocks=360)),
    "isaac-v0": ("isaac.problem:make", dict(width=4, height=4, rooms=6)),
    "isaac-medium-v0": ("isaac.problem:make", dict(width=6, height=6, rooms=12)),
    "isaac-large-v0": ("isaac.problem:make", dict(width=8, height=8, rooms=24)),
    "elimination-v0": ("elimination.problem:make", dict(letters=8, short_percentage=0.5, long_percentage=0.7)),
    "elimination-easy-v0": ("elimination.problem:make", dict(letters=6, short_percentage=0.2, long_percentage=0.4)),
    "elimination-hard-v0": ("elimination.problem:make", dict(letters=10, short_percentage=0.8, long_percentage=0.9)),
    "loderunner-v0": ("loderunner.problem:make", dict(width=32, height=22, gold=6, enemies=3)),
    "loderunner-gold-v0": ("loderunner.problem:make", dict(width=32, height=22, gold=18, enemies=3)),
    "loderunner-enemies-v0": ("loderunner.problem:make", dict(width=32, height=22, gold=6, enemies=12)),
    "loderunnertile-v0": ("loderunner.tile:make", dict(width=32, height=21, gold=6, enemies=3)),
    "loderunnertile-gold-v0": ("loderunner.tile:make", dict(width=32, height=21, gold=18, enemies=3)),
    "loderunnertile-enemies-v0": ("loderunner.tile:make", dict(width=32, height=21, gold=6, enemies=12)),
    "mdungeons-v0": ("mdungeons.problem:make", dict(width=8, height=12, enemies=8)),
    "mdungeons-enemies-v0": ("mdungeons.problem:make", dict(width=8, height=12, enemies=16)),
    "mdungeons-large-v0": ("mdungeons.problem:make", dict(width=16, height=24, enemies=16, solver=10000)),
    "ddave-v0": ("ddave.problem:make", dict(width=11, height=7, jumps=2)),
    "ddave-complex-v0": ("ddave.problem:make", dict(width=11, height=7, jumps=6)),
    "ddave-large-v0": ("ddave.problem:make", dict(width=17, height=11, jumps=10)),
    "talakat-v0": ("talakat.problem:make", dict(width=200, height=300, spawnerComplexity=10, maxHealth=150)),
    "talakat-simple-v0": (
        "talakat.problem:make",
        dict(width=200, height=300, spawnerComplexity=5, min_bullets=15, coverage=0.75, maxHealth=150),
    ),
    "talakat-complex-v0": (
        "talakat.problem:make",
        dict(width=200, height=300, spawnerComplexity=20, min_bullets=60, maxHealth=150),
    ),
    "talakat-long-v0": ("talakat.problem:make", dict(width=200, height=300, spawnerComplexity=20, maxHealth=300)),
    "arcade-v0": ("arcade.problem:make", dict(width=7, height=7)),
    "arcade-wide-v0": ("arcade.problem:make", dict(width=15, height=7)),
    "arcade-large-v0": ("arcade.problem:make", dict(width=15, height=15)),
    "smb-v0": ("smb.problem:make", dict(width=150)),
    "smb-medium-v0": ("smb.problem:make", dict(width=100)),
    "smb-small-v0": ("smb.problem:make", dict(width=50)),
    "smb-scene-v0": ("smb.problem:make", dict(width=16)),
    "smbtile-v0": ("smb.problem:make_tile", dict(width=150)),
    "smbtile-medium-v0": ("smb.problem:make_tile", dict(width=100)),
    "smbtile-small-v0": ("smb.problem:make_tile", dict(width=50)),
    "smbtile-scene-v0": ("smb.problem:make_tile", dict(width=16)),
}


def names() -> list[str]:
    """Every registered variant, in registry order."""
    return list(REGISTRY)


def variant_name(name: str) -> str:
    """A variant's registry name from either spelling (`zelda-large-v0` or `pcgbench/zelda-large-v0`)."""
    return name[len(PREFIX) :] if name.startswith(PREFIX) else name


def get_problem(name: str) -> BenchProblem:
    """The variant called `name` (either spelling); a KeyError lists the known names."""
    key = variant_name(name)
    if key not in REGISTRY:
        raise KeyError(f"unknown PCG Benchmark problem {name!r}; known: {', '.join(REGISTRY)}")
    return _made(key)


def maker(name: str) -> Callable[..., BenchProblem]:
    """The game module's function that makes the variant (the game is imported here, on first use)."""
    module, _, function = REGISTRY[variant_name(name)][0].partition(":")
    return getattr(import_module(f"{GAMES}.{module}"), function)


@cache
def _made(key: str) -> BenchProblem:
    return maker(key)(key, **REGISTRY[key][1])
