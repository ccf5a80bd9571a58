"""The step-game solver chain: its A* pops equal-f nodes in exactly the order of the benchmark's
`queue.PriorityQueue` of nodes compared only by f, and it keeps the pop bounds."""

from __future__ import annotations

import heapq
import itertools
from queue import PriorityQueue

import pytest

from pcg_plugin.problems.pcgbench.bench.step_search import search, solve_chain
from pcg_plugin.problems.pcgbench.games.mdungeons.game import start_state


def room() -> list[list[int]]:
    """An open 12×8 room with treasures, potions and goblins, its exit walled off (so no search ends early):
    many states share an f value."""
    grid = [[1] * 8 for _ in range(12)]
    grid[0][0], grid[11][7] = 2, 3
    grid[10][7] = grid[11][6] = 0
    for i, (x, y) in enumerate([(3, 2), (5, 5), (1, 8), (6, 9), (2, 4), (7, 1), (4, 7)]):
        grid[y][x] = (5, 4, 6)[i % 3]
    return grid


class _OracleNode:
    """The benchmark's pattern: a node ordered by h + balance·depth and nothing else."""

    def __init__(self, state, depth, balance):
        self.state, self.depth, self.f = state, depth, state.heuristic() + balance * depth

    def __lt__(self, other):
        return self.f < other.f


def oracle_expansions(start, limit, balance):
    """Keys of expanded states, in order, with a PriorityQueue frontier (as pcg_benchmark's AStarAgent)."""
    queue, seen, order, popped = PriorityQueue(), set(), [], 0
    queue.put(_OracleNode(start, 0, balance))
    while popped < limit and queue.qsize() > 0:
        popped += 1
        node = queue.get()
        if node.state.lost():
            continue
        if node.state.won():
            break
        if node.state.key() in seen:
            continue
        seen.add(node.state.key())
        order.append(node.state.key())
        for _, child in node.state.children():
            queue.put(_OracleNode(child, node.depth + 1, balance))
    return order


def our_expansions(start, limit, balance, monkeypatch):
    order = []
    original = type(start).children

    def logged(self):
        order.append(self.key())
        return original(self)

    monkeypatch.setattr(type(start), "children", logged)
    search(start, limit, balance)
    monkeypatch.setattr(type(start), "children", original)
    return order


@pytest.mark.parametrize("balance", [1, 0.5, 0])
def test_astar_expands_in_the_priority_queue_order(balance, monkeypatch):
    start = start_state(room())
    ours = our_expansions(start, 400, balance, monkeypatch)
    assert ours == oracle_expansions(start, 400, balance)
    assert len(ours) > 50


def test_a_counter_tie_break_would_expand_differently():
    """The room's equal-f ties matter: a (f, insertion counter) heap expands in another order."""
    counter = itertools.count()
    start = start_state(room())
    queue, seen, order = [(start.heuristic(), next(counter), start, 0)], set(), []
    while queue and len(order) < 400:
        _, _, state, depth = heapq.heappop(queue)
        if state.lost() or state.won() or state.key() in seen:
            continue
        seen.add(state.key())
        order.append(state.key())
        for _, child in state.children():
            heapq.heappush(queue, (child.heuristic() + 0.5 * (depth + 1), next(counter), child, depth + 1))
    assert order != oracle_expansions(start, 400, 0.5)


def test_every_search_keeps_its_pop_bound():
    start = start_state(room())
    for balance in (1, 0.5, 0, None):
        result = search(start, 7, balance)
        assert result.popped <= 7
    assert not solve_chain(start, 300).won
    grid = room()
    grid[10][7] = 1
    won = solve_chain(start_state(grid), 5000)
    assert won.won and won.node.state.won()
