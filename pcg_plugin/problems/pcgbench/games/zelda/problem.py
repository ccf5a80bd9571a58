"""zelda: a dungeon; one connected region, one player/key/door, a number of enemies, a long key-then-door walk.

Constants from pcg_benchmark 00b96f5 `probs/zelda` for a W×H dungeon with E enemies (zelda-v0 11×7 E 3,
-enemies-v0 11×7 E 12, -large-v0 18×12 E 8): enemy range max(int(0.25·E), 1), target solution length
T = W + H (the `sol_legnth` kwarg, sic, overrides it), control error max(int(T/2·0.25), 1), control range
[int(T/2 + error), int(cells/4)), diversity 0.3.

Quirks kept (HEAD): `player_key` walks through {empty, player, key, enemy} (the door blocks), `key_door`
through all non-wall tiles; `kd_path` is computed through the door-blocking set, so it is always empty and
diversity compares player→key paths only. `Zelda(..., kd_path_8ad18b6=True)` gives the paper-era behaviour,
where `kd_path` duplicated `pk_path`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

from pcg_plugin.problems.pcgbench.bench.content import Grid
from pcg_plugin.problems.pcgbench.bench.examples import ZELDA_README, mirrored
from pcg_plugin.problems.pcgbench.bench.grid_kind import GridKind
from pcg_plugin.problems.pcgbench.bench.grid_search import count_regions, first_tile_distance, first_tile_path, tiles_of
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, GridSize, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward

DIVERSITY = 0.3
WALL, EMPTY, PLAYER, KEY, DOOR, ENEMY = range(6)
NON_WALL = (EMPTY, PLAYER, KEY, DOOR, ENEMY)
DOOR_BLOCKS = (EMPTY, PLAYER, KEY, ENEMY)
LEGEND = ("wall", "empty", "player", "key", "door", "enemy")


@dataclass(frozen=True)
class Zelda(GridSize):
    """One zelda variant's constants and functions."""

    width: int = 11
    height: int = 7
    enemies: int = 3
    sol_length: int | None = None  # the benchmark's `sol_legnth` kwarg; None: width + height
    kd_path_8ad18b6: bool = False

    @property
    def erange(self) -> int:
        return max(int(self.enemies * 0.25), 1)

    @property
    def target(self) -> int:
        return self.width + self.height if self.sol_length is None else self.sol_length

    @property
    def cerror(self) -> int:
        return max(int(self.target / 2 * 0.25), 1)

    @property
    def control_range(self) -> tuple[int, int]:
        return int(self.target / 2 + self.cerror), int(self.cells / 4)

    def info(self, content: Grid) -> Info:
        """Counts, regions, first-tile BFS distances and walked-back paths (positions as [x, y])."""
        pk_path = first_tile_path(content, (PLAYER,), (KEY,), DOOR_BLOCKS)
        # At 8ad18b6 the key-door path is the player-key one; else always [] (the door is impassable).
        kd_path = pk_path if self.kd_path_8ad18b6 else first_tile_path(content, (KEY,), (DOOR,), DOOR_BLOCKS)
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

    def quality(self, inf: Info) -> float:
        """(regions + stats + added) / 4; added ≤ 2 counts reachability and length only with one player/key/door."""
        cells = self.cells
        regions = range_reward(inf["regions"], 0, 1, 1, cells / 10)
        player = range_reward(inf["players"], 0, 1, 1, cells)
        key = range_reward(inf["keys"], 0, 1, 1, cells)
        door = range_reward(inf["doors"], 0, 1, 1, cells)
        enemies = range_reward(inf["enemies"], 0, self.enemies - self.erange, self.enemies + self.erange, cells)
        stats = (player + key + door + enemies) / 4
        added = 0.0
        if player >= 1 and key >= 1 and door >= 1:
            playable = ((inf["player_key"] > 0) + (inf["key_door"] > 0)) / 2
            added += playable
            if playable == 1:
                added += range_reward(inf["player_key"] + inf["key_door"], 0, self.target, cells)
        return (regions + stats + added) / 4

    def controllability(self, inf: Info, control: Mapping[str, int]) -> float:
        """Mean of both distances' rewards, each 1 within ± error of its target (zero at int(cells/4))."""
        hi, err = int(self.cells / 4), self.cerror
        pk = range_reward(inf["player_key"], 0, control["player_key"] - err, control["player_key"] + err, hi)
        kd = range_reward(inf["key_door"], 0, control["key_door"] - err, control["key_door"] + err, hi)
        return (pk + kd) / 2

    def path_string(self, inf: Info) -> str:
        """ "x,y|" per path point, mirrored in x (y) when the first point lies right of (below) the centre."""
        path = inf["pk_path"] + inf["kd_path"]
        if not path:
            return ""
        w, h = self.width, self.height
        flip_x, flip_y = path[0][0] > w / 2, path[0][1] > h / 2
        return "".join(f"{w - x - 1 if flip_x else x},{h - y - 1 if flip_y else y}|" for x, y in path)

    def diversity(self, a: Info, b: Info) -> float:
        """1 − difflib ratio of the two path strings, 1 from 0.3 on."""
        ratio = SequenceMatcher(None, self.path_string(a), self.path_string(b)).ratio()
        return range_reward(1 - ratio, 0, DIVERSITY, 1.0)

    def goal(self) -> str:
        lo, hi = self.enemies - self.erange, self.enemies + self.erange
        return (
            f"A good dungeon has all its non-wall tiles connected, exactly one player, one key and one door, "
            f"and {lo} to {hi} enemies. The key must be reachable from the player without crossing the door, "
            f"the door reachable from the key, and the two walks must together be at least {self.target} steps "
            f"long. The controls `player_key` and `key_door` ask for the length of each walk, within "
            f"{self.cerror} steps."
        )


def make(name: str, width: int = 11, height: int = 7, enemies: int = 3, sol_legnth: int | None = None) -> BenchProblem:
    """A zelda variant (the benchmark's kwargs `width`, `height`, `enemies`, `sol_legnth`)."""
    z = Zelda(width, height, enemies, sol_legnth)
    examples = tuple(mirrored(ZELDA_README)) if (width, height, enemies) == (11, 7, 3) else ()
    return BenchProblem(
        name=name,
        content=GridKind(height, width, LEGEND, extra=True),
        control_space={"player_key": z.control_range, "key_door": z.control_range},
        info=z.info,
        quality=z.quality,
        controllability=z.controllability,
        diversity=z.diversity,
        goal=z.goal(),
        examples=examples,
    )
