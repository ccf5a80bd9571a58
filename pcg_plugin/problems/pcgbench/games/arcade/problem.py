"""arcade (arcaderules): a rule set for a small arcade game, judged by three agents (pcg_benchmark 00b96f5).

A content is a JSON object: the player's start `x`, `y`, a `seed`, the `win` condition (0 survive 40 steps,
1/2/3 reach 5/10/20 points), a behaviour per colour (`red`, `yellow`, `green`: 0 still, 1 flicker,
2 randomShort, 3 randomLong, 4 wanderHorz, 5 wanderVert, 6 chase, 7 flee), up to four start positions per
colour (`<colour>Start`: `num`, `x`, `y`) and, for the nine colliding pairs (`player-red` ... `yellow-yellow`),
an `action` (0 none, 1 kill first, 2 kill second, 3 kill both) and a `score` code (0/1/2/3 = +0/+1/+2/+4).
The game is played on a fixed layout (`layout`) by doing nothing, by random moves and by flat Monte Carlo
tree search (`arcade_engine.py`). The content is evaluated in its plain JSON form: the reference fails with a
TypeError on chase/flee rules that hold numpy integers (its own sampler's output under numpy 2), while the
same rules as JSON run; ours are JSON.

Kept: diversity's range reward receives width and height where a plateau end and maximum belong, so its
plateau is empty and it never reaches 1 (at most H / (0.25·W·H)).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from pcg_plugin.errors import BenchmarkFails
from pcg_plugin.problems.pcgbench.bench.grid_search import count_regions
from pcg_plugin.problems.pcgbench.bench.info_cache import cached
from pcg_plugin.problems.pcgbench.bench.json_reply import parse_json_block
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward
from pcg_plugin.problems.pcgbench.games.arcade.engine import (
    COLOURS,
    MAX_TIME,
    Agent,
    DoNothing,
    FlatMCTS,
    Game,
    RandomMover,
    play,
)

RULE_KEYS = (
    "player-red",
    "player-green",
    "player-yellow",
    "red-red",
    "red-green",
    "red-yellow",
    "green-green",
    "green-yellow",
    "yellow-yellow",
)
BEHAVIOURS = ("still", "flicker", "randomShort", "randomLong", "wanderHorz", "wanderVert", "chase", "flee")
SEEDS = 10**6
STARTS = 4  # start positions listed per colour
TRACES = ("do_nothing", "random", "flat_mcts")


def layout(width: int, height: int) -> list[list[int]]:
    """The fixed test layout (1 floor, 0 wall): two horizontal bars a quarter in, and a split middle row."""
    grid = [[1] * width for _ in range(height)]
    for x in range(math.ceil(0.25 * width), math.floor(width - 0.25 * width)):
        grid[math.floor(0.25 * height)][x] = 0
        grid[math.ceil(height - 0.25 * height - 1)][x] = 0
    for x in range(math.floor(0.3 * width)):
        grid[int(0.5 * height)][x] = 0
        grid[int(0.5 * height)][width - x - 1] = 0
    return grid


def _int_in(value: Any, hi: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | np.integer) and bool(0 <= value < hi)


REASONS = {
    "no_block": "the reply has no fenced block (```...```)",
    "not_a_rule_set": "the content (or the reply's fenced block) is not a JSON object",
    "wrong_keys": "the object lacks a key of the content space or has one it does not know",
    "wrong_value": "a value is not an integer in its range, or a start or rule entry is malformed",
    "benchmark_fails": "the control map has no cell where the content starts a piece (the benchmark raises IndexError)",
}
TILE = 24  # pixels per cell in the report's layout picture
PIECE_COLOURS = {"player": "#1f77d4", "red": "#e0413c", "green": "#3ca370", "yellow": "#f2c200"}


class RuleSet:
    """The content kind: the rule dictionary, checked key by key against the benchmark's content space."""

    kind = "rule set"
    placeholders = ("<WIDTH>", "<HEIGHT>", "<LAYOUT>")
    reasons = REASONS

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.floor = layout(width, height)
        self.ranges = {"x": width, "y": height, "seed": SEEDS, "win": 4} | {c: len(BEHAVIOURS) for c in COLOURS}

    def keys(self) -> set[str]:
        return set(self.ranges) | {f"{c}Start" for c in COLOURS} | set(RULE_KEYS)

    def check(self, content: Any) -> str | None:
        if not isinstance(content, Mapping):
            return "not a rule set: expected a JSON object"
        missing = sorted(self.keys() - set(content))
        if missing:  # other keys are ignored, as the benchmark's dictionary space ignores them
            return f"wrong keys: missing {missing}"
        for key, hi in self.ranges.items():
            if not _int_in(content[key], hi):
                return f"wrong value: {key} is {content[key]!r}, expected an integer 0..{hi - 1}"
        for c in COLOURS:
            start = content[f"{c}Start"]
            if not isinstance(start, Mapping) or not {"num", "x", "y"} <= set(start):
                return f"wrong value: {c}Start must be an object with num, x, y"
            if not _int_in(start["num"], STARTS + 1):
                return f"wrong value: {c}Start.num is {start['num']!r}, expected an integer 0..{STARTS}"
            for axis, hi in (("x", self.width), ("y", self.height)):
                cells = start[axis]
                if (
                    not isinstance(cells, Sequence)
                    or isinstance(cells, str)
                    or len(cells) < STARTS
                    or not all(_int_in(v, hi) for v in cells[:STARTS])
                ):  # more are never read
                    return f"wrong value: {c}Start.{axis} must be {STARTS} integers 0..{hi - 1}"
        for key in RULE_KEYS:
            rule = content[key]
            if (
                not isinstance(rule, Mapping)
                or not {"action", "score"} <= set(rule)
                or not all(_int_in(rule[k], 4) for k in ("action", "score"))
            ):
                return f"wrong value: {key} must be an object with action and score, integers 0..3"
        return None

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """A uniform rule set in plain JSON, drawn key by key from one generator.

        The benchmark gives every leaf of its dictionary space its own generator (seeded ones draw equal
        values for equal ranges), so its seeded samples cannot be reproduced; this draws the same space.
        """

        def draw(hi: int) -> int:
            return int(rng.integers(0, hi))

        content: dict[str, Any] = {"x": draw(self.width), "y": draw(self.height), "seed": draw(SEEDS), "win": draw(4)}
        for c in ("red", "yellow", "green"):
            content[c] = draw(len(BEHAVIOURS))
            content[f"{c}Start"] = {
                "num": draw(STARTS + 1),
                "x": [draw(self.width) for _ in range(STARTS)],
                "y": [draw(self.height) for _ in range(STARTS)],
            }
        for key in RULE_KEYS:
            content[key] = {"action": draw(4), "score": draw(4)}
        return content

    def placeholder_values(self) -> dict[str, str]:
        rows = "\n".join("".join("." if v else "#" for v in row) for row in self.floor)
        return {"<WIDTH>": str(self.width), "<HEIGHT>": str(self.height), "<LAYOUT>": rows}

    def show(self, content: Mapping[str, Any]) -> str:
        """A rule set as a reply should write it: its JSON object in a fenced block."""
        return "```json\n" + json.dumps(content) + "\n```"

    def parse(self, reply: str) -> tuple[Any, str | None]:
        value, reason = parse_json_block(reply, "a rule set")
        if reason is None and not isinstance(value, dict):
            return None, "not a rule set: the fenced block's JSON is not an object"
        return value, reason

    def draw(self, content: Mapping[str, Any]) -> str:
        """The fixed layout (floor light, walls dark) with the player's start and the objects' listed starts,
        and the rules in words beneath."""
        w, h = self.width * TILE, self.height * TILE
        cells = "".join(
            f'<rect x="{x * TILE}" y="{y * TILE}" width="{TILE}" height="{TILE}" '
            f'fill="{"#f4f4f4" if v else "#3b3b3b"}"/>'
            for y, row in enumerate(self.floor)
            for x, v in enumerate(row)
        )
        marks = []
        for offset, c in enumerate(("red", "green", "yellow")):
            start = content[f"{c}Start"]
            for i in range(int(start["num"])):
                cx = int(start["x"][i]) * TILE + 5 + offset * 7
                cy = int(start["y"][i]) * TILE + TILE / 2
                marks.append(f'<circle cx="{cx}" cy="{cy}" r="4" fill="{PIECE_COLOURS[c]}" stroke="#000"/>')
        px, py = int(content["x"]) * TILE, int(content["y"]) * TILE
        marks.append(
            f'<rect x="{px + 4}" y="{py + 4}" width="{TILE - 8}" height="{TILE - 8}" '
            f'fill="{PIECE_COLOURS["player"]}" stroke="#000"/>'
        )
        lines = describe(content)
        text = "".join(
            f'<text x="2" y="{h + 14 * (k + 1)}" font-size="11" font-family="monospace">{line}</text>'
            for k, line in enumerate(lines)
        )
        width, height = max(w, 7 * max(len(line) for line in lines)), h + 14 * len(lines) + 6
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">{cells}{"".join(marks)}{text}</svg>'
        )

    def key(self) -> list[tuple[str, str]]:
        return [("floor", "#f4f4f4"), ("wall", "#3b3b3b")] + [
            (f"{name} start", colour) for name, colour in PIECE_COLOURS.items()
        ]

    def facts(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "width": self.width,
            "height": self.height,
            "layout": self.floor,
            "behaviours": list(BEHAVIOURS),
            "actions": list(ACTIONS),
            "score_points": [0, 1, 2, 4],
            "win": list(WINS),
        }

    def answer_regex(self) -> None:
        return None  # a JSON object; not constrained


ACTIONS = ("none", "killFirst", "killSecond", "killBoth")
WINS = ("time", "score5", "score10", "score20")


def describe(content: Mapping[str, Any]) -> list[str]:
    """The rule set in words, one line each (behaviours, the non-trivial collision rules, the win condition)."""
    lines = ["behaviour: " + ", ".join(f"{c} {BEHAVIOURS[int(content[c])]}" for c in ("red", "yellow", "green"))]
    rules = [
        f"{k} {ACTIONS[int(content[k]['action'])]} +{(0, 1, 2, 4)[int(content[k]['score'])]}"
        for k in RULE_KEYS
        if content[k]["action"] or content[k]["score"]
    ]
    for i in range(0, len(rules), 2):
        lines.append(("rules: " if i == 0 else "       ") + ", ".join(rules[i : i + 2]))
    lines.append(f"win: {WINS[int(content['win'])]}, seed {content['seed']}")
    return lines


def occupancy(traces: Sequence[Sequence[Any]], width: int, height: int) -> tuple[np.ndarray, ...]:
    """Per colour, how often a live object stood on each cell over every state of the traces (unpadded)."""
    maps = tuple(np.zeros((height, width)) for _ in COLOURS)
    for trace in traces:
        for state, _ in trace:
            for m, key in zip(maps, ("_reds", "_greens", "_yellows"), strict=True):
                for obj in state[key]:
                    if obj["alive"]:
                        m[obj["y"] - 1][obj["x"] - 1] += 1
    return maps


def make(
    name: str,
    *,
    width: int,
    height: int,
    diversity: float = 0.25,
    safety: float = 0.15,
    minToDeath: float = 0.4,
    minToWin: float = 0.75,
) -> BenchProblem:  # registry kwargs
    """The variant the benchmark's ArcadeRulesProblem(**kwargs) is."""
    floor = layout(width, height)

    def info(content: Mapping[str, Any]) -> Info:
        starts = {
            c: [
                {"x": int(content[f"{c}Start"]["x"][i]), "y": int(content[f"{c}Start"]["y"][i])}
                for i in range(int(content[f"{c}Start"]["num"]))
            ]
            for c in COLOURS
        }
        traces: dict[str, list] = {k: [] for k in TRACES}
        max_time = 0
        if floor[content["y"]][content["x"]] == 1:
            game = Game.from_content(content, floor)
            seed = int(content["seed"])
            agents: tuple[Agent, ...] = (DoNothing(), RandomMover(seed), FlatMCTS(seed))
            for key, agent in zip(TRACES, agents, strict=True):
                traces[key] = play(game, agent)
            max_time = MAX_TIME
        return {"player": {"x": int(content["x"]), "y": int(content["y"])}, **starts, **traces, "max_time": max_time}

    def quality(inf: Info) -> float:
        t = inf["max_time"]
        last = {k: inf[k][-1][0] for k in TRACES if inf[k]}
        lengths = {k: len(inf[k]) for k in TRACES}
        stats = 0.0
        if floor[inf["player"]["y"]][inf["player"]["x"]] == 1:
            can_lose = int(any(s["isLose"] for s in last.values()))
            can_win = int(any(s["isWin"] for s in last.values()))
            survival = can_win if can_win != 0 else range_reward(lengths["flat_mcts"], 0, t + 2)
            safe = range_reward(lengths["do_nothing"], 0, safety * t, t + 1)
            stats = (1.0 + can_lose + can_win + survival + safe) / 5.0
        death = win = challenge = 0.0
        if stats >= 1:
            death = (
                range_reward(lengths["do_nothing"], 0, safety * t, t + 1)
                + range_reward(lengths["random"], 0, 0, minToDeath * t, t + 1)
            ) / 2.0
        if death >= 1:
            wins = {k: int(last[k]["isWin"]) for k in TRACES}
            win = range_reward(2 * wins["flat_mcts"] - wins["random"] - wins["do_nothing"], -2, 2)
            challenge = range_reward(lengths["flat_mcts"], 0, minToWin * t, t + 1)
        return float((stats + win + challenge + death) / 4.0)

    def pair_diversity(a: Info, b: Info) -> float:
        maps = [occupancy([i[k] for k in TRACES], width, height) for i in (a, b)]
        players = []
        for i in (a, b):
            visits = np.zeros((height, width))
            for state, _ in i["flat_mcts"]:
                visits[state["_player"]["y"] - 1][state["_player"]["x"] - 1] += 1
            players.append(visits)
        objects = sum(
            int(np.abs((m1 > 0).astype(int) - (m2 > 0).astype(int)).sum()) for m1, m2 in zip(*maps, strict=True)
        )
        moves = int((np.abs(players[0] - players[1]) > 0).sum())
        # the reference passes width and height as plateau end and maximum (kept; see the module docstring)
        return float(range_reward((objects + moves) / 2.0, 0, diversity * width * height, width, height))

    def controllability(inf: Info, control: Sequence[Sequence[int]]) -> float:
        """The share of the listed starts on 1 cells of the control's map, averaged with whether the player's is."""

        def cell(loc: Mapping[str, int]) -> int:
            x, y = loc["x"], loc["y"]
            if y >= len(control) or x >= len(control[y]):
                raise BenchmarkFails(
                    f"the control map has no cell ({x}, {y}), where the content starts a piece "
                    "(the benchmark raises IndexError)"
                )
            return control[y][x]

        player = 1.0 if cell(inf["player"]) == 1 else 0
        value = total = 0.0
        for c in ("red", "yellow", "green"):
            for loc in inf[c]:
                value += 1.0 if cell(loc) == 1 else 0.0
                total += 1.0
        return 1.0 if total == 0 else (value / total + player) / 2.0

    def sample_control(rng: np.random.Generator) -> dict[str, int]:
        """A random 0/1 map with exactly one region of ones (the reference's sampler is unseeded, see docs), packed
        in one integer `layout` (what instance ids name; `to_native` gives the map)."""
        return {"layout": pack_map(connected_control(rng, width, height))}

    def to_native(drawn: Mapping[str, int]) -> list[list[int]]:
        return unpack_map(drawn["layout"], width, height)

    def show_control(control: Sequence[Sequence[int]]) -> str:
        return "this map, where 1 marks the cells the player and the objects should start on:\n" + "\n".join(
            "".join(str(v) for v in row) for row in control
        )

    def check_control(control: Any) -> str | None:
        """The benchmark's control: a 0/1 map, `height` rows of `width` integers (1 = floor). The benchmark reads
        only the cells where the content starts a piece, so a smaller or larger map is scored as long as it has
        those (`controllability` names the missing cell otherwise)."""
        if not isinstance(control, list) or not all(isinstance(row, list) for row in control):
            return f"control is not a map: arcade's control is {height} rows of {width} integers 0/1 (a list of lists)"
        if any(isinstance(v, bool) or not isinstance(v, int | np.integer) for row in control for v in row):
            return "control values must be integers: the map's cells are 0 or 1"
        return None

    t = MAX_TIME
    goal = (
        f"The rules are played for at most {t} steps on the {width}x{height} layout by an agent that does "
        "nothing, one that moves at random and a flat Monte Carlo tree search. A good rule set can be both "
        "won and lost by these agents; the do-nothing game lasts at least "
        f"{math.ceil(safety * t) - 1} steps, the random agent's game at most {math.floor(minToDeath * t) - 1} "
        "steps, and the search agent wins, the other two do not, taking at least "
        f"{math.ceil(minToWin * t) - 1} steps. The control is a 0/1 map of the layout: the player's start "
        "and every listed object start should lie on its 1 cells."
    )
    examples = (load_examples()[name]["content"],) if name in load_examples() else ()
    return BenchProblem(
        name=name,
        content=RuleSet(width, height),
        control_space={"layout": (0, 2 ** (width * height))},
        info=cached(info),
        quality=quality,
        controllability=controllability,
        diversity=pair_diversity,
        goal=goal,
        examples=examples,
        sample_control=sample_control,
        show_control=show_control,
        to_native=to_native,
        native_ranges=[[[0, 2]] * width for _ in range(height)],
        check_control=check_control,
    )


def pack_map(grid: Sequence[Sequence[int]]) -> int:
    """A 0/1 map as one integer, bit y·W + x for cell (x, y): how the harness draws and names an instance."""
    width = len(grid[0])
    return sum(1 << (y * width + x) for y, row in enumerate(grid) for x, v in enumerate(row) if v == 1)


def unpack_map(bits: int, width: int, height: int) -> list[list[int]]:
    return [[(int(bits) >> (y * width + x)) & 1 for x in range(width)] for y in range(height)]


@lru_cache(maxsize=1)
def load_examples() -> dict[str, dict[str, Any]]:
    """Per variant, its best golden rule set (see data/arcade/SOURCE.md)."""
    return json.loads((Path(__file__).parent / "data" / "examples.json").read_text())


def connected_control(rng: np.random.Generator, width: int, height: int) -> list[list[int]]:
    """The reference's control sampler's construction with one generator: a uniform 0/1 map, replaced while it
    is not one region of ones by carved, mirrored quarters (the benchmark draws the structure from an unseeded
    generator, so no seed reproduces its maps)."""

    def uniform() -> list[list[int]]:
        return [[int(rng.integers(0, 2)) for _ in range(width)] for _ in range(height)]

    grid = uniform()
    while count_regions(grid, (1,)) != 1:
        grid = uniform()
        qh, qw = int(height / 2), int(width / 2)
        quarters = [np.ones((qh, qw), dtype=int) for _ in range(1 + (rng.integers(2) > 0))]
        for q in quarters:
            for _ in range(int(rng.integers(int(min(qh / 2, qw / 2)))) + 2):
                axis = int(rng.integers(2))
                length = int(rng.integers(max(q.shape[axis], 2))) + 1
                x, y = int(rng.integers(max(int(qw / 2), 2))), int(rng.integers(max(int(qh / 2), 2)))
                for i in range(length):
                    nx, ny = x + axis * i, y + (1 - axis) * i
                    if nx > qw - 1 or ny > qh - 1:
                        break
                    q[ny][nx] = 0
        if len(quarters) == 1:
            flip = int(rng.integers(3))
            quarters.append(np.flip(quarters[0], axis=flip - 1).copy() if flip else quarters[0].copy())
        mirror = int(rng.integers(2))
        for y in range(qh):
            for x in range(qw):
                grid[y][x] = int(quarters[0][y][x])
                if mirror:
                    grid[height - 1 - y][width - 1 - x] = int(quarters[0][y][x])
                else:
                    grid[y][width - 1 - x] = int(quarters[0][y][x])
                grid[height - 1 - y][x] = int(quarters[1][y][x])
                if mirror:
                    grid[y][width - 1 - x] = int(quarters[1][y][x])
                else:
                    grid[height - 1 - y][width - 1 - x] = int(quarters[1][y][x])
    return grid
