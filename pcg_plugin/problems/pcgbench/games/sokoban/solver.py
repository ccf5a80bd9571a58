"""The benchmark's Sokoban solver: BFS then weighted A*, each bounded by popped nodes, with dead-cell pruning.

Reimplemented from the behaviour of pcg_benchmark 00b96f5 (`probs/sokoban/engine.py`), because quality and
diversity depend on *which* solution is found and on the heuristic of the best node when none is:
- the level is played inside a solid border; positions are (x, y) on that padded grid;
- an "iteration" is one popped node, duplicates included; the win test happens on pop;
- children are tried left, right, up, down; a move that leaves the player in place is skipped, and so is a
  push after which any crate stands on a dead cell;
- crates keep their row-major start order, so a state's identity is (player, crates in that order);
- A*'s queue is a binary heap ordered only by heuristic + weight·depth (ties fall where heapq puts them),
  which is what the benchmark's PriorityQueue of nodes does;
- the "best" node (kept for the fallback heuristic) is the first with the lowest heuristic, then lowest depth.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Sequence, Sized
from dataclasses import dataclass, field

Pos = tuple[int, int]
Move = tuple[int, int]

DIRECTIONS: tuple[Move, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))  # left, right, up, down
SOLID, EMPTY, PLAYER, CRATE, TARGET = 0, 1, 2, 3, 4
SEARCH_WEIGHTS = (1.0, 0.5, 0.0)


@dataclass(frozen=True)
class Board:
    """The static part of a level: walls (border included), targets and precomputed dead cells."""

    solid: tuple[tuple[bool, ...], ...]
    targets: tuple[Pos, ...]
    dead: frozenset[Pos]

    @property
    def width(self) -> int:
        return len(self.solid[0])

    @property
    def height(self) -> int:
        return len(self.solid)


@dataclass(frozen=True)
class State:
    """The moving part: the player and the crates in their start order."""

    player: Pos
    crates: tuple[Pos, ...]


def load(content: Sequence[Sequence[int]]) -> tuple[Board, State]:
    """Pad the content with a solid border and split it into the static board and the start state.

    Requires exactly one player tile (the caller checks the benchmark's precondition first).
    """
    cols = len(content[0])
    padded = [[SOLID] * (cols + 2)] + [[SOLID, *row, SOLID] for row in content] + [[SOLID] * (cols + 2)]
    solid = tuple(tuple(v == SOLID for v in row) for row in padded)
    cells = [(x, y, v) for y, row in enumerate(padded) for x, v in enumerate(row)]
    targets = tuple((x, y) for x, y, v in cells if v == TARGET)
    crates = tuple((x, y) for x, y, v in cells if v == CRATE)
    player = next((x, y) for x, y, v in cells if v == PLAYER)
    return Board(solid, targets, dead_cells(solid, targets)), State(player, crates)


def dead_cells(solid: Sequence[Sequence[bool]], targets: Sequence[Pos]) -> frozenset[Pos]:
    """Cells a crate can never leave: non-target corners, and wall-hugging runs between two such corners.

    A corner is an open, non-border cell with a wall on one vertical and one horizontal side. A run between
    two corners on one row (column) is dead when every cell in between is open, no target, and has a wall
    above or below (left or right) it.
    """
    height, width = len(solid), len(solid[0])
    target_set = set(targets)
    corners = [
        (x, y)
        for y in range(1, height - 1)
        for x in range(1, width - 1)
        if not solid[y][x]
        and (x, y) not in target_set
        and (solid[y - 1][x] or solid[y + 1][x])
        and (solid[y][x - 1] or solid[y][x + 1])
    ]
    dead = set(corners)
    for ax, ay in corners:
        for bx, by in corners:
            if (ax == bx) == (ay == by):  # same cell, or not on one row/column
                continue
            run = _wall_run(solid, target_set, (bx, by), (ax, ay))
            dead.update(run)
    return frozenset(dead)


def _wall_run(solid: Sequence[Sequence[bool]], targets: set[Pos], start: Pos, end: Pos) -> list[Pos]:
    """Cells strictly between two corners on a line if all hug a wall and none is a target or wall; else []."""
    (x, y), (ex, ey) = start, end
    dx, dy = (ex > x) - (ex < x), (ey > y) - (ey < y)
    run = []
    x, y = x + dx, y + dy
    while (x, y) != (ex, ey):
        hugs = (solid[y - 1][x] or solid[y + 1][x]) if dx else (solid[y][x - 1] or solid[y][x + 1])
        if (x, y) in targets or solid[y][x] or not hugs:
            return []
        run.append((x, y))
        x, y = x + dx, y + dy
    return run


def is_win(board: Board, state: State) -> bool:
    """Every target covered, with as many crates as targets and at least one."""
    if len(board.targets) != len(state.crates) or not state.crates:
        return False
    crates = set(state.crates)
    return all(t in crates for t in board.targets)


def step(board: Board, state: State, move: Move) -> tuple[State, bool]:
    """Apply one move; returns the new state and whether a crate was pushed. A won state no longer moves."""
    if is_win(board, state):
        return state, False
    dx, dy = move
    nx, ny = state.player[0] + dx, state.player[1] + dy

    def free(x: int, y: int) -> bool:
        inside = 0 <= x < board.width and 0 <= y < board.height
        return inside and not board.solid[y][x] and (x, y) not in state.crates

    if free(nx, ny):
        return State((nx, ny), state.crates), False
    if (nx, ny) in state.crates and free(nx + dx, ny + dy):
        i = state.crates.index((nx, ny))
        crates = (*state.crates[:i], (nx + dx, ny + dy), *state.crates[i + 1 :])
        return State((nx, ny), crates), True
    return state, False


def heuristic(board: Board, state: State) -> int:
    """Sum over crates (start order) of the Manhattan distance to the nearest still-unmatched target."""
    remaining = list(board.targets)
    total = 0
    for cx, cy in state.crates:
        best, best_i = board.width + board.height, 0
        for i, (tx, ty) in enumerate(remaining):
            d = abs(cx - tx) + abs(cy - ty)
            if d < best:
                best, best_i = d, i
        tx, ty = remaining.pop(best_i)
        total += abs(cx - tx) + abs(cy - ty)
    return total


@dataclass
class _Node:
    state: State
    parent: _Node | None
    move: Move | None
    depth: int
    h: int
    weight: float = field(default=0.0, compare=False)

    def __lt__(self, other: _Node) -> bool:  # the benchmark orders its heap by this and nothing else
        return self.h + self.weight * self.depth < other.h + other.weight * other.depth

    def moves(self) -> list[Move]:
        out: list[Move] = []
        node: _Node | None = self
        while node is not None and node.move is not None:
            out.append(node.move)
            node = node.parent
        return out[::-1]


def _children(board: Board, node: _Node, weight: float) -> list[_Node]:
    out = []
    for move in DIRECTIONS:
        child, pushed = step(board, node.state, move)
        if child.player == node.state.player:
            continue
        if pushed and any(c in board.dead for c in child.crates):
            continue
        out.append(_Node(child, node, move, node.depth + 1, heuristic(board, child), weight))
    return out


def _better(node: _Node, best: _Node | None) -> bool:
    return best is None or node.h < best.h or (node.h == best.h and node.depth < best.depth)


@dataclass(frozen=True)
class SearchResult:
    """A solver run: `solved`, the move list of the win (or of the best node), the best node's heuristic."""

    solved: bool
    moves: list[Move]
    heuristic: int
    popped: int


def bfs(board: Board, start: State, limit: int) -> SearchResult:
    """Breadth-first search bounded by `limit` pops; its first win is a shortest solution."""
    queue = deque([_Node(start, None, None, 0, heuristic(board, start))])
    return _search(board, queue, queue.popleft, queue.append, 0.0, limit)


def astar(board: Board, start: State, weight: float, limit: int) -> SearchResult:
    """Best-first on heuristic + weight·depth (weight 0 is greedy best-first), bounded by `limit` pops."""
    heap = [_Node(start, None, None, 0, heuristic(board, start), weight)]
    return _search(board, heap, lambda: heapq.heappop(heap), lambda child: heapq.heappush(heap, child), weight, limit)


def _search(
    board: Board, frontier: Sized, pop: Callable[[], _Node], push: Callable[[_Node], None], weight: float, limit: int
) -> SearchResult:
    """The loop both searches share (only the frontier differs): pop a node, stop on a win, expand it unless it
    was seen; without a win within ``limit`` pops, the node closest to one (``_better``) and its heuristic."""
    visited: set[State] = set()
    best: _Node | None = None
    popped = 0
    while frontier and popped < limit:
        popped += 1
        node = pop()
        if is_win(board, node.state):
            return SearchResult(True, node.moves(), 0, popped)
        if node.state in visited:
            continue
        if _better(node, best):
            best = node
        visited.add(node.state)
        for child in _children(board, node, weight):
            push(child)
    assert best is not None
    return SearchResult(False, best.moves(), best.h, popped)


def solve(content: Sequence[Sequence[int]], limit: int = 5000) -> tuple[int, list[Move]]:
    """The benchmark's cascade: BFS, then A* with weights 1, 0.5, 0; the first win gives (0, its moves).

    With no win, the heuristic of the last A*'s best node and no moves, as the benchmark reports it.
    """
    board, start = load(content)
    result = bfs(board, start, limit)
    for weight in SEARCH_WEIGHTS:
        if result.solved:
            break
        result = astar(board, start, weight, limit)
    return (0, result.moves) if result.solved else (result.heuristic, [])
