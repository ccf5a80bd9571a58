"""The imagegame instance sets: clembench's v2.0 set (packaged) and a seeded generator for new sets.

The generator follows clembench's rules (``instancegenerator.py``, seed 123 for the published sets): for each
pattern of "X" and "▢" cells, one random letter A–Z; the compact grid is the pattern with X replaced by that
letter; the random grid puts the letter at randint(5, min(#X, 10)) random positions (collisions allowed, so it
may hold fewer). With clembench's v2.0 patterns and seed 123 it rebuilds the 60 grids of which v2.0 kept 59
(random grid 0 was dropped there, "overlapping with v1.6"); ``tests/imagegame/test_instances.py`` checks that.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pcg_plugin.problems.imagegame import grid, rules

ALPHABET = string.ascii_uppercase
"""The 26 letters a target may use (A–Z, drawn by index as clembench draws them)."""
PATTERN_CELL = "X"
MAX_RANDOM_CELLS = 10
MIN_RANDOM_CELLS = 5
V2_SEED = 123
V2_DROPPED = (("random_grids", 0),)
"""clembench removed random grid 0 from the v2.0 set (commit a61fe62)."""
_DATA = "pcg_plugin.problems.imagegame.data"


def _read_packaged(name: str) -> Any:
    return json.loads(resources.files(_DATA).joinpath(name).read_text(encoding="utf-8"))


def parse_instances(data: dict[str, Any], origin: str = "instances") -> list[rules.Instance]:
    """Instances from clembench's ``instances.json`` layout (``{"experiments": [{"name", "game_instances"}]}``)."""
    try:
        return [
            rules.Instance.from_clembench(experiment["name"], item)
            for experiment in data["experiments"]
            for item in experiment["game_instances"]
        ]
    except (KeyError, TypeError) as err:
        raise ValueError(f"{origin}: not a clembench instances file (missing {err})") from err


def load_instances(path: str | Path | None = None) -> list[rules.Instance]:
    """A clembench instances file, or the packaged v2.0 set (59 instances) when no path is given."""
    if path is None:
        return parse_instances(_read_packaged("instances_v2.0.json"), "packaged instances_v2.0.json")
    return parse_instances(json.loads(Path(path).read_text(encoding="utf-8")), str(path))


def v2_patterns() -> list[str]:
    """clembench's 30 v2.0 compact patterns (``resources/grids_v2.0.json``, packaged with its source noted)."""
    return list(_read_packaged("grids_v2.0.json"))


def random_grid(rng: random.Random, letter: str, count: int, dimension: int) -> str:
    """``count`` draws of a random cell set to ``letter`` (a cell drawn twice is filled once)."""
    cells = [[grid.EMPTY] * dimension for _ in range(dimension)]
    for _ in range(min(dimension * dimension, count)):
        row = rng.randint(0, dimension - 1)
        column = rng.randint(0, dimension - 1)
        cells[row][column] = letter
    return grid.from_cells(cells)


def generate_grids(seed: int, patterns: Sequence[str], dimension: int = 5) -> dict[str, list[str]]:
    """Compact and random target grids, one each per pattern, drawn in clembench's order from one seeded RNG."""
    rng = random.Random(seed)
    compact: list[str] = []
    scattered: list[str] = []
    for pattern in patterns:
        letter = ALPHABET[rng.randint(0, len(ALPHABET) - 1)]
        most = min(pattern.count(PATTERN_CELL), MAX_RANDOM_CELLS)
        if most < MIN_RANDOM_CELLS:
            raise ValueError(f"pattern {pattern!r} has fewer than {MIN_RANDOM_CELLS} X cells")
        count = rng.randint(MIN_RANDOM_CELLS, most)
        scattered.append(random_grid(rng, letter, count, dimension))
        compact.append(pattern.replace(PATTERN_CELL, letter))
    return {"compact_grids": compact, "random_grids": scattered}


def generate_instances(
    seed: int,
    patterns: Sequence[str],
    template: rules.Instance,
    dropped: Sequence[tuple[str, int]] = (),
) -> dict[str, Any]:
    """A clembench-layout instances document: the template's prompts and regexes, the generated targets.

    ``dropped`` lists (experiment, game_id) pairs to leave out (the v2.0 set drops random grid 0)."""
    experiments = []
    for name, targets in generate_grids(seed, patterns, template.grid_dimension).items():
        items = [
            rules.Instance(
                game_id=game_id,
                experiment=name,
                target_grid=target,
                grid_dimension=template.grid_dimension,
                player_1_prompt_header=template.player_1_prompt_header,
                player_2_prompt_header=template.player_2_prompt_header,
                player_1_question=template.player_1_question,
                player_1_response_pattern=template.player_1_response_pattern,
                player_1_terminate_pattern=template.player_1_terminate_pattern,
                player_2_response_pattern=template.player_2_response_pattern,
            ).to_clembench()
            for game_id, target in enumerate(targets)
            if (name, game_id) not in dropped
        ]
        experiments.append({"name": name, "game_instances": items})
    return {"experiments": experiments}
