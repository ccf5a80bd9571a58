"""loderunnertile: a 21×32 Lode Runner level of single tiles, scored on the level plus one solid floor row.

Content (the benchmark's JSON form): 21 rows of 32 ints in [0, 7) (0 solid, 1 empty, 2 player, 3 gold,
4 enemy, 5 ladder, 6 rope). Control: {"ladder", "rope": [0, int(0.2·W·H))}.

`LodeRunner` holds the scoring both Lode Runner problems share (pcg_benchmark 00b96f5
`probs/loderunner{,tile}/problem.py`, identical but for W·H and how a content becomes a 22×32 level):
a four-stage quality chain (counts → 20 % explored → all gold and 75 % of usable surfaces → the play's JS
distances to the original levels and few "islands"), each stage counted only once the previous is 1.
The usable-surface scan covers the first `height` rows, so the tile variant skips its added floor row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pcg_plugin.problems.pcgbench.bench.grid_kind import GridKind
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control, GridSize, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward
from pcg_plugin.problems.pcgbench.games.loderunner.play import (
    GOLD,
    LADDER,
    PLAYER,
    ROPE,
    SOLID,
    Level,
    js_distance,
    normalised,
    play,
    play_histograms,
    reference_histograms,
)

TILES = ("solid", "empty", "player", "gold", "enemy", "ladder", "rope")

# The tile README's example level (feasible for loderunnertile-v0: quality 1.0 on the reference).
README_LEVEL = [
    [int(c) for c in row]
    for row in """\
11111111111111111111111111111111
11413111111111111111111111111111
00000000000500000001111111111111
11111111111566666666666111111111
11111111111511110051111111111111
11111111111511410051111113111111
11111111111511110051110000050000
11111111111511110051111111151111
11111111111511110051111111151111
11111111111511110051111111351111
00050000000011110000000050000000
11151111111111111111111151111111
11151111111111111111111151111111
11151111111111111111111151111111
00000000000000500000000051111111
11111111111111511111111151111111
11111111111111511111111151111111
11111111114131566666666651131411
11111150000000001111111100000005
11111151111111111111111111111115
11111151111111111211311111111115""".splitlines()
]
# Feasible examples for the gold / enemies variants: the README level with gold (enemies) on these empty cells
# (y, x), found by a greedy search that kept quality 1.0 (tests/pcgbench/games/test_pcgbench_loderunnertile.py
# checks it).
EXTRA_TILES = {
    "loderunnertile-gold-v0": (
        3,
        ((1, 0), (1, 1), (1, 3), (1, 5), (1, 6), (1, 7), (1, 8), (1, 9), (1, 10), (1, 11), (1, 12), (1, 13)),
    ),
    "loderunnertile-enemies-v0": (4, ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7))),
}


def _runs(line: Sequence[int], value: int) -> int:
    """Number of maximal runs of `value` in one row or column."""
    return sum(v == value and (i == 0 or line[i - 1] != value) for i, v in enumerate(line))


def islands(level: Level) -> int:
    """Runs of solid and of rope in every row, plus runs of ladder in every column."""
    return sum(_runs(row, SOLID) + _runs(row, ROPE) for row in level) + sum(
        _runs(col, LADDER) for col in zip(*level, strict=True)
    )


@dataclass(frozen=True)
class LodeRunner(GridSize):
    """One Lode Runner variant's constants and the benchmark's four functions over its 22×32 levels."""

    gold: int
    enemies: int
    exploration: float = 0.2
    islands: float = 0.1
    decorations: float = 0.75
    used_tiles: float = 0.75
    diversity_threshold: float = 0.4

    @property
    def cerror(self) -> int:
        return max(int(0.02 * self.cells), 1)

    @property
    def control_space(self) -> dict[str, tuple[int, int]]:
        top = int(0.2 * self.cells)
        return {"ladder": (0, top), "rope": (0, top)}

    def info(self, level: Level) -> Info:
        """Tile counts, islands, and (with exactly one player) the play's reach, gold, surfaces and JS distances."""
        counts = [sum(row.count(t) for row in level) for t in range(len(TILES))]
        explored = [[0] * len(level[0]) for _ in level]
        tiles = used = collected = 0
        if counts[PLAYER] == 1:
            explored = play(level)
            for y in range(self.height):
                for x in range(self.width):
                    if level[y][x] == SOLID and y > 0 and level[y - 1][x] != SOLID:
                        tiles += 1
                        used += explored[y - 1][x] > 0
                    if level[y][x] in (LADDER, ROPE):
                        tiles += 1
                        used += explored[y][x] > 0
            collected = sum(explored[y][x] > 0 for y, row in enumerate(level) for x, v in enumerate(row) if v == GOLD)
        reference = reference_histograms()
        distances = {
            name: js_distance(normalised(hist), reference[name]) for name, hist in play_histograms(explored).items()
        }
        return {
            "empty": counts[1],
            "player": counts[PLAYER],
            "gold": counts[GOLD],
            "enemy": counts[4],
            "ladder": counts[LADDER],
            "rope": counts[ROPE],
            "islands": islands(level),
            "exploration": explored,
            "collected_gold": collected,
            "used_tiles": used,
            "tiles": tiles,
            **distances,
        }

    def quality(self, inf: Info) -> float:
        """(stats + exploration + play + decoration)/4, each stage counted only once the previous is 1."""
        cells = self.cells
        stats = (
            range_reward(inf["player"], 0, 1, 1, cells)
            + range_reward(inf["gold"], 0, self.gold, 2 * self.gold, cells)
            + range_reward(inf["enemy"], 0, self.enemies, 2 * self.enemies, cells)
        ) / 3.0
        explored = sum(v > 0 for row in inf["exploration"] for v in row)
        exploration = range_reward(explored, 0, int(self.exploration * cells), cells) if stats >= 1 else 0.0
        play_stats = 0.0
        if exploration >= 1:
            play_stats += inf["collected_gold"] / inf["gold"]
            if inf["tiles"] > 0:
                play_stats += range_reward(inf["used_tiles"] / inf["tiles"], 0, self.used_tiles, 1.0)
            play_stats /= 2.0
        decoration = 0.0
        if play_stats >= 1:
            looks = 0.9 * (inf["walking"] + inf["hanging"] + inf["climbing"]) + 0.1 * inf["falling"]
            decoration = (
                range_reward(looks, 0, self.decorations, 1)
                + range_reward(inf["islands"], 0, 0, self.islands * cells, cells / 2)
            ) / 2
        return (stats + exploration + play_stats + decoration) / 4

    def diversity(self, a: Info, b: Info) -> float:
        """Cells where exactly one play has each movement value, weighted 0.3 (walk, climb, hang) and 0.1 (fall)."""
        differ = [0] * 5
        for row_a, row_b in zip(a["exploration"], b["exploration"], strict=True):
            for va, vb in zip(row_a, row_b, strict=True):
                if va != vb:
                    differ[int(va)] += 1
                    differ[int(vb)] += 1
        score = 0.3 * (differ[1] + differ[2] + differ[3]) + 0.1 * differ[4]
        return range_reward(score, 0, self.diversity_threshold * self.cells, self.cells)

    def goal(self) -> str:
        """What makes a level feasible and what the controls ask, in words (from the formulas above)."""
        cells = self.cells
        return (
            f"Lode Runner: the player walks left and right, climbs ladders up and down, hangs from ropes and "
            f"drops from them, and falls through empty space; it cannot jump or dig, and cannot climb down a "
            f"ladder from the tile above it. A good level has exactly one player, {self.gold} to "
            f"{2 * self.gold} gold and {self.enemies} to {2 * self.enemies} enemies; from the player's start "
            f"at least {int(self.exploration * cells)} cells must be reachable, every gold reachable, and at "
            f"least {self.used_tiles:.0%} of the usable surfaces (solid tiles with a free tile above, ladders, "
            f"ropes) visited; and it should look like the original game's levels: long runs of floor, ladder "
            f"and rope rather than noise (the benchmark compares the reachable walking, hanging, climbing and "
            f"falling runs with five original levels, and wants few separate platforms). The bottom row below "
            f"the level is solid. The controls `ladder` and `rope` ask for that many ladder and rope tiles, "
            f"within {self.cerror}."
        )

    def controllability(self, inf: Info, control: Control) -> float:
        """Mean of the ladder and rope counts' rewards, 1 within ±cerror of the requested counts."""
        ladder = range_reward(
            inf["ladder"], 0, control["ladder"] - self.cerror, control["ladder"] + self.cerror, self.cells
        )
        rope = range_reward(inf["rope"], 0, control["rope"] - self.cerror, control["rope"] + self.cerror, self.cells)
        return (ladder + rope) / 2


def bench_problem(
    name: str,
    game: LodeRunner,
    content: GridKind,
    to_level: Callable[[Sequence[Sequence[int]]], Level],
    goal: str,
    examples: tuple[list[list[int]], ...],
) -> BenchProblem:
    """The variant record: `to_level` turns a content into the 22×32 level the scoring reads."""
    return BenchProblem(
        name=name,
        content=content,
        control_space=game.control_space,
        info=lambda c: game.info(to_level(c)),
        quality=game.quality,
        controllability=game.controllability,
        diversity=game.diversity,
        goal=goal,
        examples=examples,
    )


def with_floor(content: Sequence[Sequence[int]]) -> list[list[int]]:
    """The content plus one solid row at the bottom."""
    return [[int(v) for v in row] for row in content] + [[SOLID] * len(content[0])]


def game_of(kwargs: dict[str, Any]) -> LodeRunner:
    """The scoring constants from the benchmark's kwargs (width, height, gold, enemies; optional extras)."""
    optional = ("exploration", "islands", "decorations", "used_tiles")
    unknown = set(kwargs) - {"width", "height", "gold", "enemies", "diversity", *optional}
    if unknown:
        raise TypeError(f"unknown Lode Runner kwargs: {sorted(unknown)}")
    return LodeRunner(
        kwargs["width"],
        kwargs["height"],
        kwargs["gold"],
        kwargs["enemies"],
        **{k: kwargs[k] for k in optional if k in kwargs},
        diversity_threshold=kwargs.get("diversity", 0.4),
    )


def with_extra(level: Sequence[Sequence[int]], code: int, cells: Sequence[tuple[int, int]]) -> list[list[int]]:
    """A copy of `level` with `code` written at each (y, x) of `cells`."""
    out = [list(row) for row in level]
    for y, x in cells:
        out[y][x] = code
    return out


def examples(name: str) -> tuple[list[list[int]], ...]:
    """The variant's feasible example levels: the README's, with extra gold or enemies where the variant needs."""
    if name in EXTRA_TILES:
        return (with_extra(README_LEVEL, *EXTRA_TILES[name]),)
    return (README_LEVEL,) if name == "loderunnertile-v0" else ()


def make(name: str, **kwargs: Any) -> BenchProblem:
    """A variant from the benchmark's kwargs: a height×width grid of tiles; the floor row is added for scoring."""
    game = game_of(kwargs)
    return bench_problem(name, game, GridKind(game.height, game.width, TILES), with_floor, game.goal(), examples(name))
