"""The arcade-rules game as pcg_benchmark 00b96f5 plays it (`arcaderules/engine.py`), with its three agents.

A content is a rule set (behaviours of red, green and yellow objects, what their collisions do and score, the
win condition); the game runs on a fixed floor layout padded with a wall border (coordinates are +1). The
reference's behaviour is kept exactly, quirks included:

- two objects collide only when they are *unequal as records* (x, y, state, value, alive): identical objects,
  of one colour or of two, pass through each other;
- every ordered pair collides, so a red-red hit is applied twice when both survive the first;
- a dead object stays put, except a flicker one, which keeps counting and comes back to life;
- a wander object that hits a wall flips its state but retries the old direction, so it waits a step;
- chase moves to the lowest neighbour of the player's distance map, where walls are −1, so it runs into walls;
  flee takes the highest (both sorts are stable, in the order left, right, up, down);
- the random behaviours draw from one engine generator, `default_rng(seed)` again at every game's start,
  which the flat-MCTS rollouts share: the real game's draws depend on how many the rollouts made.

numpy's Generator is called with the reference's seeds and in its order. The agents' `choice` over their five
moves is drawn as `integers(0, 5)`, which consumes the generator identically (tested in
`tests/pcgbench/games/test_pcgbench_arcade.py`) at a fifth of the cost.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

COLOURS = ("red", "green", "yellow")  # the engine's update and collision order
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # left, right, up, down
MOVES = (*STEPS, (0, 0))  # the agents' five moves, in the reference's list order
POINTS = (0, 1, 2, 4)  # score code -> points
MAX_TIME = 40
X, Y, STATE, VALUE, ALIVE = range(5)  # an object record; the player is [x, y, score, time, alive]
SCORE, TIME = 2, 3
Obj = list  # [x, y, state, value, alive]


def distance_map(layout: Sequence[Sequence[int]], x: int, y: int) -> list[list[int]]:
    """Steps from (x, y) to every floor cell over 4-neighbour floor moves; −1 for walls and unreachable cells."""
    h, w = len(layout), len(layout[0])
    dist = [[-1] * w for _ in range(h)]
    dist[y][x] = 0
    queue = deque([(x, y)])
    while queue:
        cx, cy = queue.popleft()
        for dx, dy in STEPS:
            nx, ny = cx + dx, cy + dy
            if 0 <= nx < w and 0 <= ny < h and layout[ny][nx] == 1 and dist[ny][nx] < 0:
                dist[ny][nx] = dist[cy][cx] + 1
                queue.append((nx, ny))
    return dist


@dataclass
class Game:
    """One content's rules on one layout: everything `update` needs, read once from the content."""

    layout: list[list[int]]  # padded, 1 = floor
    behaviours: tuple[int, ...]  # one per colour, in COLOURS order
    rules: dict[tuple[int, int], tuple[int, int]]  # (kind1, kind2) -> (action, points); kind 3 = player
    win: int
    seed: int
    start: tuple[int, int]
    starts: tuple[list[tuple[int, int]], ...]  # per colour: the start positions on floor (padded)
    distances: dict[tuple[int, int], list[list[int]]]
    rng: np.random.Generator | None = None

    @classmethod
    def from_content(cls, content: Mapping[str, Any], layout: Sequence[Sequence[int]]) -> Game:
        w = len(layout[0]) + 2
        padded = [[0] * w] + [[0] + [int(v) for v in row] + [0] for row in layout] + [[0] * w]
        behaviours = tuple(int(content[c]) for c in COLOURS)
        kinds = {c: i for i, c in enumerate(COLOURS)} | {"player": 3}
        rules = {}
        for a, b in (
            ("player", "red"),
            ("player", "green"),
            ("player", "yellow"),
            ("red", "red"),
            ("red", "green"),
            ("red", "yellow"),
            ("green", "green"),
            ("green", "yellow"),
            ("yellow", "yellow"),
        ):
            rule = content[f"{a}-{b}"]
            rules[(kinds[a], kinds[b])] = (int(rule["action"]), POINTS[int(rule["score"])])
        starts = []
        for c in COLOURS:
            s = content[f"{c}Start"]
            cells = [(int(s["x"][i]) + 1, int(s["y"][i]) + 1) for i in range(int(s["num"]))]
            starts.append([(x, y) for x, y in cells if padded[y][x] == 1])
        chase = any(
            b in (6, 7) and int(content[f"{c}Start"]["num"]) > 0 for c, b in zip(COLOURS, behaviours, strict=True)
        )
        distances = {
            (x, y): distance_map(padded, x, y)
            for y in range(len(padded))
            for x in range(w)
            if chase and padded[y][x] == 1
        }
        return cls(
            padded,
            behaviours,
            rules,
            int(content["win"]),
            int(content["seed"]),
            (int(content["x"]) + 1, int(content["y"]) + 1),
            tuple(starts),
            distances,
        )

    def initialize(self) -> State:
        """A fresh start state; reseeds the engine generator, as the reference does before every game."""
        self.rng = np.random.default_rng(self.seed)
        return State(
            [self.start[0], self.start[1], 0, 0, True],
            [[[x, y, 0, 0, True] for x, y in cells] for cells in self.starts],
        )

    def move(self, obj: list, dx: int, dy: int) -> bool:
        nx, ny = obj[X] + dx, obj[Y] + dy
        if 0 <= nx < len(self.layout[0]) and 0 <= ny < len(self.layout) and self.layout[ny][nx] == 1:
            obj[X], obj[Y] = nx, ny
            return True
        return False

    def behave(self, behaviour: int, obj: Obj, px: int, py: int) -> None:
        if not obj[ALIVE] and behaviour != 1:
            return
        obj[VALUE] += 1
        if behaviour == 1:
            obj[ALIVE] = int(obj[VALUE] / 5) % 2 == 0
        elif behaviour in (2, 3):
            if obj[VALUE] % (5 if behaviour == 2 else 10) == 1:
                assert self.rng is not None, "initialize() seeds the engine generator before any update"
                obj[STATE] = self.rng.integers(4)
            self.move(obj, *STEPS[obj[STATE]])
        elif behaviour in (4, 5):
            if obj[VALUE] == 1:
                assert self.rng is not None, "initialize() seeds the engine generator before any update"
                obj[STATE] = self.rng.integers(2)
            dx, dy = STEPS[obj[STATE] + (0 if behaviour == 4 else 2)]
            if not self.move(obj, dx, dy):
                obj[STATE] = 1 - obj[STATE]
                self.move(obj, dx, dy)
        elif behaviour in (6, 7):
            dist = self.distances[(px, py)]
            ranked = sorted(STEPS, key=lambda d: dist[obj[Y] + d[1]][obj[X] + d[0]], reverse=behaviour == 7)
            self.move(obj, *ranked[0])

    def collide(self, kinds: tuple[int, int], a: list, b: list) -> int:
        """The rule of `kinds` when a and b share a cell: who dies, and the points it scores."""
        if a[X] != b[X] or a[Y] != b[Y]:
            return 0
        action, points = self.rules[kinds]
        if action in (1, 3):
            a[ALIVE] = False
        if action in (2, 3):
            b[ALIVE] = False
        return points

    def is_win(self, s: State) -> bool:
        if self.win == 0:
            return s.player[TIME] >= MAX_TIME
        return s.player[SCORE] >= (5, 10, 20)[self.win - 1]

    def is_lose(self, s: State) -> bool:
        if self.win != 0:
            return s.player[TIME] >= MAX_TIME
        return not s.player[ALIVE]

    def over(self, s: State) -> bool:
        return self.is_win(s) or self.is_lose(s)

    def update(self, s: State, dx: int, dy: int) -> None:
        """One step: time, the player's move, every object's behaviour, then every collision in order."""
        if self.over(s):
            return
        p = s.player
        p[TIME] += 1
        self.move(p, dx, dy)
        px, py = p[X], p[Y]
        for behaviour, objs in zip(self.behaviours, s.objects, strict=True):  # both per colour
            if behaviour == 0:  # still: only the step count of a live object moves
                for obj in objs:
                    if obj[ALIVE]:
                        obj[VALUE] += 1
            else:
                for obj in objs:
                    self.behave(behaviour, obj, px, py)
        # Positions do not change while collisions resolve, and a collision touches only the two objects in
        # one cell: the reference's ordered pair loops, restricted to each shared cell, give the same result.
        cells = [(obj[X], obj[Y]) for objs in s.objects for obj in objs]
        if (px, py) not in cells and len(set(cells)) == len(cells):
            return
        by_cell: dict[tuple[int, int], list[tuple[int, Obj]]] = {}
        for kind, objs in enumerate(s.objects):
            for obj in objs:
                by_cell.setdefault((obj[X], obj[Y]), []).append((kind, obj))
        for kind, obj in by_cell.get((p[X], p[Y]), ()):
            if obj[ALIVE]:
                p[SCORE] += self.collide((3, kind), p, obj)
        for members in by_cell.values():
            if len(members) < 2:
                continue
            for k1, a in members:
                for k2, b in members:
                    if k2 >= k1 and a != b and a[ALIVE] and b[ALIVE]:  # a != b: the reference's dict inequality
                        p[SCORE] += self.collide((k1, k2), a, b)


@dataclass
class State:
    player: list  # [x, y, score, time, alive]
    objects: list[list[Obj]]  # per colour in COLOURS order

    def clone(self) -> State:
        return State(self.player.copy(), [[o.copy() for o in objs] for objs in self.objects])


def serialise(game: Game, s: State) -> dict[str, Any]:
    """The reference's `to_serializable`, as plain JSON (padded coordinates, win/lose flags of this state)."""

    def objs(kind: int) -> list[dict[str, Any]]:
        return [
            {"x": o[X], "y": o[Y], "state": int(o[STATE]), "value": o[VALUE], "alive": bool(o[ALIVE])}
            for o in s.objects[kind]
        ]

    p = s.player
    return {
        "_player": {"x": p[X], "y": p[Y], "score": p[SCORE], "time": p[TIME], "alive": bool(p[ALIVE])},
        "_reds": objs(0),
        "_yellows": objs(2),
        "_greens": objs(1),
        "isWin": game.is_win(s),
        "isLose": game.is_lose(s),
    }


class DoNothing:
    def action(self, game: Game, s: State) -> tuple[int, int]:
        return (0, 0)


class RandomMover:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def action(self, game: Game, s: State) -> tuple[int, int]:
        return MOVES[self.rng.integers(0, 5)]


class FlatMCTS:
    """One rollout per move, then 40 UCB1 picks (C = √2) and the most visited move, as the reference's agent."""

    def __init__(self, seed: int, constant: float = math.sqrt(2), power: int = 40) -> None:
        self.rng = np.random.default_rng(seed)
        self.constant, self.power = constant, power

    def rollout(self, game: Game, s: State) -> int:
        while not game.over(s):
            game.update(s, *MOVES[self.rng.integers(0, 5)])
        return 1 if game.is_win(s) else 0

    def action(self, game: Game, s: State) -> tuple[int, int]:
        after, value, visits = [], [], []
        for dx, dy in MOVES:
            nxt = s.clone()
            game.update(nxt, dx, dy)
            after.append(nxt)
            value.append(self.rollout(game, nxt.clone()))
            visits.append(1)
        total, n = sum(value), len(MOVES)
        for _ in range(self.power):
            best = -1
            best_ucb: float = -1
            for i in range(len(MOVES)):
                ucb = value[i] / max(1, total) + self.constant * math.sqrt(math.log(n) / visits[i])
                if ucb > best_ucb:
                    best, best_ucb = i, ucb
            v = self.rollout(game, after[best].clone())
            value[best] += v
            visits[best] += 1
            total += v
            n += 1
        best, most = -1, -1
        for i, v in enumerate(visits):
            if v > most:
                best, most = i, v
        return MOVES[best]


Agent = DoNothing | RandomMover | FlatMCTS  # the reference's three agents, each trace played by one


def play(game: Game, agent: Agent) -> list[list[Any]]:
    """The reference's `runGame` trace: [state before, action] per step, then [final state, None]."""
    s = game.initialize()
    trace: list[list[Any]] = []
    while not game.over(s):
        before = s.clone()
        dx, dy = agent.action(game, before)
        game.update(s, dx, dy)
        trace.append([serialise(game, before), {"x": dx, "y": dy}])
    trace.append([serialise(game, s), None])
    return trace
