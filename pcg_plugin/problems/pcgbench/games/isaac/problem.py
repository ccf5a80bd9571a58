"""isaac: a Binding of Isaac floor plan — W×H rooms with door bitmasks, and four special rooms.

Content (the benchmark's JSON form): {"layout": W·H ints in [0, 16) row-major (index x + y·W; 0 = no room,
else doors 1 left, 2 up, 4 right, 8 down), "start", "boss", "shop", "treasure": indices in [0, W·H)}.
Control: {"map_size": [6, W·H)}.

Semantics pinned to pcg_benchmark 00b96f5 `probs/isaac/problem.py`, quirks kept on purpose:
- the registry's `rooms` kwarg is never read: the room target is `map_size` (default 6) in every variant;
- start and boss are marked at their *unscaled* (index % W, index // W) in the 3W×3H door maze, so the
  player–boss distance is measured between two arbitrary maze cells (start == boss overwrites the start
  mark: distance −1);
- controllability is the 3-value range reward: 1 from map_size ≥ c + 0.2·W·H up to W·H, not a band around c;
- the diversity's per-kind normalisation is the 3-value reward too: 1 at exactly W·H differing cells, 0 above;
- after `env.seed(s)` the four position leaves are separate streams from one seed, so a seeded sample has
  start == boss == shop == treasure (`benchmark_seeded_sample`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.bench.grid_search import count_regions, first_tile_distance
from pcg_plugin.problems.pcgbench.bench.parse import NO_BLOCK, last_fenced_block
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control, GridSize, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward

DOORS = 16  # bitmask values 0..15
LEFT, UP, RIGHT, DOWN = 1, 2, 4, 8
ROOM, DOOR, START_MARK, BOSS_MARK = 1, 2, 3, 4
POSITIONS = ("start", "boss", "shop", "treasure")  # the content space's key order after "layout"
MARKS = {"start": "S", "boss": "B", "shop": "$", "treasure": "T"}
DOORS_TEXT = (
    "Each layout value is a room's doors, added up: 1 = door left, 2 = door up, 4 = door right, "
    "8 = door down (so 15 has all four doors); 0 = no room."
)
REASONS = {
    "no_block": "the reply has no fenced block (```...```)",
    "not_a_floor_plan": "the last fenced block is not a JSON object with exactly layout, start, boss, shop, treasure",
    "wrong_shape": "the layout has the wrong number of cells",
    "wrong_alphabet": "a layout value is not an integer 0..15",
    "wrong_position": "start, boss, shop or treasure is not a cell index 0..W·H−1",
}
TILE = 24  # pixels per room in the report
ROOM_FILL, EMPTY_FILL, DOOR_FILL = "#d9c7a3", "#3b3b3b", "#7a4a1e"


def _is_int(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, int | np.integer)


def _alternatives(n: int) -> str:
    """A regular expression for the integers 0..n−1."""
    return "(" + "|".join(str(i) for i in range(n)) + ")"


@dataclass(frozen=True)
class FloorPlanKind(GridSize):
    """The dict content of one isaac variant: a W·H door-bitmask layout and four room indices.

    A reply writes the floor plan as the JSON object in its last fenced block (`show`: the layout one map row a
    line). Prompt placeholders: `<WIDTH>`, `<HEIGHT>`, `<CELLS>` (W·H, the layout's length) and `<DOORS>` (what a
    layout value means). The report draws rooms, doors and the special rooms' letters (S, B, $, T).
    """

    kind: str = "floor plan"
    placeholders: tuple[str, ...] = ("<WIDTH>", "<HEIGHT>", "<CELLS>", "<DOORS>")
    reasons: dict[str, str] = field(default_factory=lambda: dict(REASONS), hash=False, compare=False)

    def check(self, content: Any) -> str | None:
        """None, or why `content` is not a floor plan of this size: every key, ints in range, a layout of exactly
        W×H rooms (the benchmark reshapes it); other keys are ignored, as its dictionary space ignores them."""
        if not isinstance(content, Mapping):
            return "not a floor plan: expected an object with layout, start, boss, shop, treasure"
        keys = ("layout", *POSITIONS)
        missing = [k for k in keys if k not in content]
        if missing:
            return f"not a floor plan: missing {', '.join(missing)}"
        layout = content["layout"]
        if not isinstance(layout, list | tuple):
            return "not a floor plan: layout is not a list"
        if len(layout) != self.cells:
            more = "" if len(layout) < self.cells else " (the benchmark's space takes more, but cannot reshape them)"
            return (
                f"wrong shape: layout has {len(layout)} rooms, expected {self.cells} ({self.width}×{self.height}){more}"
            )
        for i, v in enumerate(layout):
            if not _is_int(v) or not 0 <= v < DOORS:
                return f"wrong alphabet: layout[{i}] is {v!r}, expected an integer 0..{DOORS - 1}"
        for key in POSITIONS:
            v = content[key]
            if not _is_int(v) or not 0 <= v < self.cells:
                return f"wrong position: {key} is {v!r}, expected a room index 0..{self.cells - 1}"
        return None

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """A uniform floor plan: the layout cells in order, then start, boss, shop, treasure."""
        layout = [int(rng.integers(0, DOORS)) for _ in range(self.cells)]
        return {"layout": layout, **{key: int(rng.integers(0, self.cells)) for key in POSITIONS}}

    def placeholder_values(self) -> dict[str, str]:
        return {
            "<WIDTH>": str(self.width),
            "<HEIGHT>": str(self.height),
            "<CELLS>": str(self.cells),
            "<DOORS>": DOORS_TEXT,
        }

    def show(self, content: Mapping[str, Any]) -> str:
        """The floor plan as a reply should write it: JSON in a fenced block, one map row of the layout a line."""
        rows = [
            ", ".join(str(v) for v in content["layout"][y * self.width : (y + 1) * self.width])
            for y in range(self.height)
        ]
        marks = ", ".join(f'"{key}": {content[key]}' for key in POSITIONS)
        return '```json\n{"layout": [\n' + ",\n".join(rows) + "\n], " + marks + "}\n```"

    def parse(self, reply: str) -> tuple[Any, str | None]:
        """The JSON object of the last fenced block, or (None, "no block: …" / "not a floor plan: …")."""
        body = last_fenced_block(reply)
        if body is None:
            return None, NO_BLOCK
        try:
            value = json.loads(body)
        except (ValueError, RecursionError) as exc:
            return None, f"not a floor plan: the block is not JSON ({getattr(exc, 'msg', exc)})"
        if not isinstance(value, dict):
            return None, "not a floor plan: the block is not a JSON object"
        return value, None

    def draw(self, content: Mapping[str, Any], tile: int = TILE) -> str:
        """Rooms as squares, doors as notches on their sides, special rooms lettered (an SVG)."""
        parts, d = [], tile // 5
        for i, v in enumerate(content["layout"]):
            x, y = (i % self.width) * tile, (i // self.width) * tile
            parts.append(f'<rect x="{x}" y="{y}" width="{tile}" height="{tile}" fill="{EMPTY_FILL}"/>')
            if v:
                parts.append(
                    f'<rect x="{x + d}" y="{y + d}" width="{tile - 2 * d}" height="{tile - 2 * d}" fill="{ROOM_FILL}"/>'
                )
            doors = {
                LEFT: (x, y + 2 * d, d, d),
                UP: (x + 2 * d, y, d, d),
                RIGHT: (x + tile - d, y + 2 * d, d, d),
                DOWN: (x + 2 * d, y + tile - d, d, d),
            }
            parts += [
                f'<rect x="{dx}" y="{dy}" width="{w}" height="{h}" fill="{DOOR_FILL}"/>'
                for bit, (dx, dy, w, h) in doors.items()
                if v & bit
            ]
        for key, mark in MARKS.items():  # later marks on the same room are drawn beside the earlier ones
            i = content[key]
            n = sum(content[k] == i for k in POSITIONS[: POSITIONS.index(key)])
            x, y = (i % self.width) * tile + d + n * d, (i // self.width) * tile + tile // 2 + d
            parts.append(
                f'<text x="{x}" y="{y}" font-family="monospace" font-size="{tile // 2}" '
                f'font-weight="bold" fill="#b00020">{"&#36;" if mark == "$" else mark}</text>'
            )
        w, h = self.width * tile, self.height * tile
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
            + "".join(parts)
            + "</svg>"
        )

    def key(self) -> list[tuple[str, str]]:
        return [
            ("room", ROOM_FILL),
            ("no room", EMPTY_FILL),
            ("door", DOOR_FILL),
            ("S start, B boss, $ shop, T treasure", "#b00020"),
        ]

    def facts(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "width": self.width,
            "height": self.height,
            "cells": self.cells,
            "doors": {"1": "left", "2": "up", "4": "right", "8": "down"},
            "positions": list(POSITIONS),
        }

    def answer_regex(self) -> str:
        """Free text without backticks, then a fenced block holding exactly `show`'s form."""
        code, pos = _alternatives(DOORS), _alternatives(self.cells)
        row = rf"{code}(, {code}){{{self.width - 1}}}"
        marks = ", ".join(rf'"{key}": {pos}' for key in POSITIONS)
        return rf'[^`]*```json\n\{{"layout": \[\n{row}(,\n{row}){{{self.height - 1}}}\n\], {marks}\}}\n```'


def benchmark_seeded_sample(width: int, height: int, seed: int) -> dict[str, Any]:
    """What the benchmark's content space samples first after `seed(seed)`: every leaf restarts the same stream,
    so the four positions are equal (the layout's cells share one leaf, drawn in order)."""
    layout_rng = np.random.default_rng(seed)
    layout = [int(layout_rng.integers(0, DOORS)) for _ in range(width * height)]
    return {
        "layout": layout,
        **{key: int(np.random.default_rng(seed).integers(0, width * height)) for key in POSITIONS},
    }


def comb_plan(width: int, height: int) -> dict[str, Any]:
    """A feasible floor plan for every variant: all rooms, every vertical door, one row's horizontal doors.

    The start and boss marks land (unscaled) beside the first two rooms of the top row, which the comb joins
    only through row 1 (4×4) or 2 (larger): a walk of 11 (17) maze steps, at least W + H. The special rooms are
    four different rooms.
    """
    row = 1 if width * height <= 16 else 2
    layout = []
    for y in range(height):
        for x in range(width):
            doors = (UP if y > 0 else 0) | (DOWN if y < height - 1 else 0)
            if y == row:
                doors |= (LEFT if x > 0 else 0) | (RIGHT if x < width - 1 else 0)
            layout.append(doors)
    return {"layout": layout, "start": width, "boss": width + 3, "shop": 0, "treasure": width * height - 1}


def door_maze(layout: list[int], width: int, height: int) -> list[list[int]]:
    """The 3H×3W maze: a room's centre is 1, each door bit puts a 2 on the matching side of the centre."""
    maze = [[0] * (3 * width) for _ in range(3 * height)]
    for y in range(height):
        for x in range(width):
            v = layout[x + y * width]
            cy, cx = 3 * y + 1, 3 * x + 1
            if v > 0:
                maze[cy][cx] = ROOM
            for bit, (dy, dx) in ((LEFT, (0, -1)), (UP, (-1, 0)), (RIGHT, (0, 1)), (DOWN, (1, 0))):
                if v & bit:
                    maze[cy + dy][cx + dx] = DOOR
    return maze


def loose_connections(maze: list[list[int]]) -> int:
    """Doors on the maze border, plus inner cells on a room's right (down) edge that differ from the next cell.

    Per inner cell the first true test counts once: x % 3 == 2 against the right neighbour, else y % 3 == 2
    against the cell below.
    """
    rows, cols = len(maze), len(maze[0])
    count = 0
    for y in range(rows):
        for x in range(cols):
            if x in (0, cols - 1) or y in (0, rows - 1):
                count += maze[y][x] == DOOR
            elif (x % 3 == 2 and maze[y][x] != maze[y][x + 1]) or (y % 3 == 2 and maze[y][x] != maze[y + 1][x]):
                count += 1
    return count


@dataclass(frozen=True)
class Isaac(GridSize):
    """One isaac variant's constants and the benchmark's four functions over its floor plans."""

    target: int = 6
    diversity_threshold: float = 0.6

    @property
    def cerror(self) -> float:
        return 0.2 * self.width * self.height

    def info(self, content: Mapping[str, Any]) -> Info:
        """Rooms, regions (of rooms, and of rooms joined by doors), loose doors, special rooms, start→boss steps."""
        w, h = self.width, self.height
        layout = [int(v) for v in content["layout"]]
        grid = [layout[y * w : (y + 1) * w] for y in range(h)]
        maze = door_maze(layout, w, h)
        rooms = range(1, DOORS)
        positions = {key: int(content[key]) for key in POSITIONS}
        locations = {positions[key] for key in ("start", "boss", "treasure", "shop") if layout[positions[key]] > 0}
        marked = [row[:] for row in maze]
        marked[positions["start"] // w][positions["start"] % w] = START_MARK  # unscaled: the benchmark's bug
        marked[positions["boss"] // w][positions["boss"] % w] = BOSS_MARK
        player_boss = first_tile_distance(marked, (START_MARK,), (BOSS_MARK,), (ROOM, DOOR, START_MARK, BOSS_MARK))
        dead_end = sum(layout[positions[key]] in (LEFT, UP, RIGHT, DOWN) for key in ("boss", "treasure", "shop"))
        return {
            "map_size": sum(v in rooms for v in layout),
            "num_regions": count_regions(grid, rooms),
            "connect_regions": count_regions(maze, (ROOM, DOOR)),
            "loose_connections": loose_connections(maze),
            "locations": len(locations),
            "player_boss_distance": player_boss,
            "flat": [v for row in maze for v in row],
            "dead_end": dead_end,
        }

    def quality(self, inf: Info) -> float:
        """0.9·(rooms + regions + functional)/3 + 0.1·loose, each stage counted only once the previous is 1."""
        cells = self.cells
        map_size = range_reward(inf["map_size"], 0, self.target, cells)
        regions = 0.0
        if map_size >= 1:
            regions += range_reward(inf["num_regions"], 0, 1, 1, cells)
            regions += range_reward(inf["connect_regions"], 0, 1, 1, cells)
        regions /= 2.0
        functional = 0.0
        if regions >= 1:
            functional += range_reward(inf["locations"], 0, 4)
            functional += range_reward(inf["player_boss_distance"], 0, self.width + self.height, 9 * cells)
            functional /= 2.0
        loose = range_reward(inf["loose_connections"], 0, 0, 0, cells) if functional >= 1 else 0.0
        return 0.9 * (map_size + regions + functional) / 3 + 0.1 * loose

    def diversity(self, a: Info, b: Info) -> float:
        """Room (|Δ| = 1) and door (|Δ| = 2) differences of the two mazes, each 3-value-normalised by W·H."""
        diffs = [abs(x - y) for x, y in zip(a["flat"], b["flat"], strict=True)]
        rooms = range_reward(sum(d == 1 for d in diffs), 0, self.cells)
        doors = range_reward(sum(d == 2 for d in diffs), 0, self.cells)
        return range_reward(0.25 * rooms + 0.75 * doors, 0, self.diversity_threshold, 1)

    def goal(self) -> str:
        """What makes a floor plan feasible and what the control asks, in words (from the formulas above)."""
        w, h = self.width, self.height
        return (
            f"A good floor plan has at least {self.target} rooms, all in one group of side-by-side rooms, and "
            f"doors that join every room into one dungeon, with no door leading nowhere (a door must face the "
            f"matching door of the next room, and no door may face the map's edge). start, boss, shop and "
            f"treasure must be four different rooms. start and boss must be far apart as the benchmark measures "
            f"it: it marks them at the cells (index mod {w}, index div {w}) of a {3 * w}×{3 * h} maze in which "
            f"room (x, y) has its centre at (3x+1, 3y+1) and its doors beside that centre, and the walk "
            f"between the two marks through rooms and doors must take at least {w + h} steps. The control "
            f"`map_size` asks for at least map_size + {self.cerror:g} rooms (and at most {self.cells})."
        )

    def controllability(self, inf: Info, control: Control) -> float:
        """3-value reward: ramps up from c − 0.2·W·H, 1 from c + 0.2·W·H to W·H."""
        c = control["map_size"]
        return range_reward(inf["map_size"], c - self.cerror, c + self.cerror, self.cells)


def make(
    name: str, width: int, height: int, rooms: int | None = None, map_size: int = 6, diversity: float = 0.6
) -> BenchProblem:
    """A variant from the benchmark's kwargs; `rooms` is accepted and ignored, as upstream (the target is map_size)."""
    isaac = Isaac(width, height, map_size, diversity)
    return BenchProblem(
        name=name,
        content=FloorPlanKind(width, height),
        control_space={"map_size": (isaac.target, isaac.cells)},
        info=isaac.info,
        quality=isaac.quality,
        controllability=isaac.controllability,
        diversity=isaac.diversity,
        goal=isaac.goal(),
        examples=(comb_plan(width, height),),
    )
