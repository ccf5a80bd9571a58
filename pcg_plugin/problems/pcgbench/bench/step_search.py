"""The solver chain the benchmark's step games share (mdungeons, ddave): A* with balance 1, 0.5, 0, then BFS.

Reimplemented from the behaviour of pcg_benchmark 00b96f5 (`probs/mdungeons/engine.py`, `probs/ddave/engine.py`,
`_run_game` in both `problem.py`), because quality, controllability and diversity depend on *which* solution
is found and on the state of the best node when none is:
- every search is bounded by `limit` popped nodes, duplicates and lost states included;
- a popped lost state is skipped, a popped won state ends the search; an unseen state updates the best node
  (lower heuristic, ties to lower depth), is marked seen and has all its children pushed, in action order,
  whether or not they change anything;
- A*'s frontier is a binary heap ordered by h + balance·depth and nothing else, so equal-f nodes come out
  where `heapq` puts them: the benchmark's `PriorityQueue` is `heapq` over nodes compared only by that
  `__lt__`, and pushing and popping the same nodes in the same order here reproduces its order exactly
  (no counter or tuple tie-breaker, which would change it);
- the chain stops at the first search that wins; with no win, the BFS best node stands for the level.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, Self, TypeVar

Action = tuple[int, int]
BALANCES = (1, 0.5, 0)  # the A* weights on depth, tried in this order before BFS


class GameState(Protocol):
    """One immutable game state as the searches see it; positions are on the padded level."""

    x: int
    y: int

    def key(self) -> Hashable: ...

    def heuristic(self) -> int: ...

    def won(self) -> bool: ...

    def lost(self) -> bool: ...

    def children(self) -> Iterable[tuple[Action, Self]]: ...


S = TypeVar("S", bound=GameState)  # a game's own state class: results give back its own fields (`status()`)


class Node(Generic[S]):
    """A search node; `__lt__` on f is the only order the heap knows, as in the benchmark."""

    __slots__ = ("action", "depth", "f", "h", "parent", "state")

    def __init__(self, state: S, parent: Node[S] | None, action: Action | None, balance: float) -> None:
        self.state = state
        self.parent = parent
        self.action = action
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.h: int = state.heuristic()
        self.f: float = self.h + balance * self.depth  # the benchmark's getHeuristic() + Node.balance * getCost()

    def __lt__(self, other: Node[S]) -> bool:
        return self.f < other.f

    def locations(self) -> list[dict]:
        """Each ancestor's position with the action taken from it, then this position with action (0, 0)."""
        out = [{"x": self.state.x, "y": self.state.y, "action": {"x": 0, "y": 0}}]
        node = self
        while node.parent is not None:
            assert node.action is not None
            out.append(
                {
                    "x": node.parent.state.x,
                    "y": node.parent.state.y,
                    "action": {"x": node.action[0], "y": node.action[1]},
                }
            )
            node = node.parent
        out.reverse()
        return out


@dataclass(frozen=True)
class SearchResult(Generic[S]):
    """One search: the winning node (`won`) or the best node seen, and how many nodes were popped."""

    won: bool
    node: Node[S]
    popped: int


def search(start: S, limit: int, balance: float | None) -> SearchResult[S]:
    """A* with `balance` (h + balance·depth), or BFS when `balance` is None; at most `limit` pops."""
    bfs = balance is None
    weight = 0.0 if balance is None else balance
    queue: deque[Node[S]] = deque()
    heap: list[Node[S]] = []
    (queue.append if bfs else heap.append)(Node(start, None, None, weight))
    heappush, heappop = heapq.heappush, heapq.heappop
    seen: set[Hashable] = set()
    best: Node[S] | None = None
    popped = 0
    while popped < limit and (queue or heap):
        popped += 1
        node = queue.popleft() if bfs else heappop(heap)
        state = node.state
        if state.lost():
            continue
        if state.won():
            return SearchResult(True, node, popped)
        key = state.key()
        if key in seen:
            continue
        if best is None or node.h < best.h or (node.h == best.h and node.depth < best.depth):
            best = node
        seen.add(key)
        for action, child in state.children():
            if bfs:
                queue.append(Node(child, node, action, weight))
            else:
                heappush(heap, Node(child, node, action, weight))
    assert best is not None, "the start state is neither lost nor won, so it is always the first best node"
    return SearchResult(False, best, popped)


def solve_chain(start: S, limit: int) -> SearchResult[S]:
    """A* with each balance, then BFS; the first win, else the BFS search's best node."""
    for balance in (*BALANCES, None):
        result = search(start, limit, balance)
        if result.won:
            return result
    return result
