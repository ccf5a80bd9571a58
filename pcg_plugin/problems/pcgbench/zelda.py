"""zelda-v0: an 11×7 dungeon; one connected region, one player/key/door, 2–4 enemies, a long key-then-door walk.

Constants from pcg_benchmark 00b96f5 `probs/zelda`: enemies E = 3 with range max(int(0.25·E), 1) = 1,
target solution length T = width + height = 18, control error max(int(T/2·0.25), 1) = 2, diversity 0.3.

Quirks kept (HEAD): `player_key` walks through {empty, player, key, enemy} (the door blocks), `key_door`
through all non-wall tiles; `kd_path` is computed through the door-blocking set, so it is always empty and
diversity compares player→key paths only. `info(content, kd_path_8ad18b6=True)` gives the paper-era behaviour, where
`kd_path` duplicated `pk_path`.
"""

from __future__ import annotations

from collections.abc import Mapping
from difflib import SequenceMatcher

from pcg_plugin.problems.pcgbench.content import Grid
from pcg_plugin.problems.pcgbench.grid_problem import GridProblem, Info
from pcg_plugin.problems.pcgbench.grid_search import (
    count_regions, first_tile_distance, first_tile_path, tiles_of)
from pcg_plugin.problems.pcgbench.reward import range_reward

WIDTH, HEIGHT = 11, 7
CELLS = WIDTH * HEIGHT
ENEMIES = 3
ERANGE = max(int(ENEMIES * 0.25), 1)
TARGET = WIDTH + HEIGHT
CERROR = max(int(TARGET / 2 * 0.25), 1)
DIVERSITY = 0.3
WALL, EMPTY, PLAYER, KEY, DOOR, ENEMY = range(6)
NON_WALL = (EMPTY, PLAYER, KEY, DOOR, ENEMY)
DOOR_BLOCKS = (EMPTY, PLAYER, KEY, ENEMY)
CONTROL_RANGE = (int(TARGET / 2 + CERROR), int(CELLS / 4))


def info(content: Grid, kd_path_8ad18b6: bool = False) -> Info:
    """Counts, regions, first-tile BFS distances and walked-back paths (positions as [x, y])."""
    pk_path = first_tile_path(content, (PLAYER,), (KEY,), DOOR_BLOCKS)
    if kd_path_8ad18b6:
        kd_path = pk_path
    else:
        kd_path = first_tile_path(content, (KEY,), (DOOR,), DOOR_BLOCKS)  # always [] (door impassable)
    return {
        "regions": count_regions(content, NON_WALL),
        "players": len(tiles_of(content, (PLAYER,))),
        "keys": len(tiles_of(content, (KEY,))),
        "doors": len(tiles_of(content, (DOOR,))),
        "enemies": len(tiles_of(content, (ENEMY,))),
        "player_key": first_tile_distance(content, (PLAYER,), (KEY,), DOOR_BLOCKS),
        "key_door": first_tile_distance(content, (KEY,), (DOOR,), NON_WALL),
        "pk_path": [list(p) for p in pk_path],
        "kd_path": [list(p) for p in kd_path],
    }


def quality(inf: Info) -> float:
    """(regions + stats + added) / 4; added ≤ 2 counts reachability and length only with one player/key/door."""
    regions = range_reward(inf["regions"], 0, 1, 1, CELLS / 10)
    player = range_reward(inf["players"], 0, 1, 1, CELLS)
    key = range_reward(inf["keys"], 0, 1, 1, CELLS)
    door = range_reward(inf["doors"], 0, 1, 1, CELLS)
    enemies = range_reward(inf["enemies"], 0, ENEMIES - ERANGE, ENEMIES + ERANGE, CELLS)
    stats = (player + key + door + enemies) / 4
    added = 0.0
    if player >= 1 and key >= 1 and door >= 1:
        playable = ((inf["player_key"] > 0) + (inf["key_door"] > 0)) / 2
        added += playable
        if playable == 1:
            added += range_reward(inf["player_key"] + inf["key_door"], 0, TARGET, CELLS)
    return (regions + stats + added) / 4


def controllability(inf: Info, control: Mapping[str, int]) -> float:
    """Mean of both distances' rewards, each 1 within ±2 of its target (zero at 19 = int(cells/4))."""
    hi = int(CELLS / 4)
    pk = range_reward(inf["player_key"], 0, control["player_key"] - CERROR, control["player_key"] + CERROR, hi)
    kd = range_reward(inf["key_door"], 0, control["key_door"] - CERROR, control["key_door"] + CERROR, hi)
    return (pk + kd) / 2


def path_string(inf: Info) -> str:
    """"x,y|" per path point, mirrored in x (y) when the first point lies right of (below) the centre."""
    path = inf["pk_path"] + inf["kd_path"]
    if not path:
        return ""
    flip_x, flip_y = path[0][0] > WIDTH / 2, path[0][1] > HEIGHT / 2
    return "".join(f"{WIDTH - x - 1 if flip_x else x},{HEIGHT - y - 1 if flip_y else y}|" for x, y in path)


def diversity(a: Info, b: Info) -> float:
    """1 − difflib ratio of the two path strings, 1 from 0.3 on."""
    ratio = SequenceMatcher(None, path_string(a), path_string(b)).ratio()
    return range_reward(1 - ratio, 0, DIVERSITY, 1.0)


ZELDA = GridProblem(
    name="zelda-v0", rows=HEIGHT, cols=WIDTH, legend=("wall", "empty", "player", "key", "door", "enemy"),
    control_space={"player_key": CONTROL_RANGE, "key_door": CONTROL_RANGE},
    info=info, quality=quality, controllability=controllability, diversity=diversity,
)
