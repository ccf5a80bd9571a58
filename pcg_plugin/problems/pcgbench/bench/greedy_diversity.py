"""The benchmark's set diversity: a greedy pick of mutually diverse items, as a fraction and per item.

Two versions exist. HEAD (00b96f5, the pinned one) works on a similarity matrix; the older 8ad18b6 (current
when the paper's experiments ran) counts "too similar" partners. Both give the fraction of items that keep a
diversity of 1.0; they can keep different items. `pair` is the problem's pairwise diversity in [0, 1].
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")
Pair = Callable[[T, T], float]


def similarity_matrix(items: Sequence[T], pair: Pair) -> list[list[float]]:
    """S[i][j] = 1 − pair(i, j) over every ordered pair, the diagonal included, as HEAD computes it.

    For binary, sokoban and zelda pair(x, x) is 0, so the diagonal is 1.
    """
    return [[1.0 - pair(a, b) for b in items] for a in items]


def greedy_head(items: Sequence[T], pair: Pair) -> tuple[float, list[float]]:
    """HEAD greedy: repeatedly drop the most-similar item until the rest are pairwise fully diverse.

    Row sums run over the items still present. While the largest exceeds 1 (something other than the item
    itself is similar), the first item with the largest sum is removed and scored
    clamp(1 − (rowsum − 1)/m, 0, 1), m = remaining items it has positive similarity with (itself included).
    The survivors score 1.0. Quirk kept: the benchmark re-inserts removed values by original index in a way
    that permutes the per-item array once ≥ 2 items are removed (3 identical binary levels give
    [0.333, 1.0, 0.5], not [0.333, 0.5, 1.0]); the fraction is unaffected. See `_head_order`.
    """
    n = len(items)
    if n == 0:
        return 0.0, []
    removed = _head_removals(items, pair)
    values = _head_order(n, removed)
    return sum(1 for v in values if v >= 1) / n, values


def head_survivors(items: Sequence[T], pair: Pair) -> list[int]:
    """Indices of the items HEAD's greedy keeps (each scores 1.0), in order: which levels count as unique.

    The per-item array of `greedy_head` is permuted (its quirk), so it cannot say which item survived; this can.
    """
    gone = {k for k, _ in _head_removals(items, pair)}
    return [i for i in range(len(items)) if i not in gone]


def _head_removals(items: Sequence[T], pair: Pair) -> list[tuple[int, float]]:
    """(original index, value) of each item HEAD's greedy removes, in removal order."""
    sim = np.array(similarity_matrix(items, pair), dtype=float).reshape(len(items), len(items))
    remaining = list(range(len(items)))
    removed: list[tuple[int, float]] = []
    while remaining:
        # numpy's row sums, as the benchmark takes them: its pairwise summation can differ from a left-to-right
        # sum in the last bit, and that decides near-tied argmaxes (found on mdungeons-large-v0's golden file)
        sums = sim[np.ix_(remaining, remaining)].sum(axis=1)
        pos = int(np.argmax(sums))
        top = float(sums[pos])
        if top <= 1:
            break
        k = remaining[pos]
        m = sum(1 for j in remaining if sim[k][j] > 0)
        removed.append((k, min(max(1.0 - (top - 1.0) / m, 0.0), 1.0)))
        remaining.pop(pos)
    return removed


def _head_order(n: int, removed: list[tuple[int, float]]) -> list[float]:
    """Per-item values in the benchmark's (permuted) order.

    The benchmark keeps the survivors' 1.0 values in a list and inserts each removed item's value at its
    original index, in reverse order of removal; inserting at an index into the shrinking-then-growing list
    places values by position, not by identity. Reproduced from that rule (measured example in the spec:
    3 identical items → [0.333, 1.0, 0.5]).
    """
    values = [1.0] * (n - len(removed))
    for index, value in reversed(removed):
        values.insert(index, value)
    return values


def greedy_8ad18b6(items: Sequence[T], pair: Pair) -> tuple[float, list[float]]:
    """The older greedy (pcg_benchmark 8ad18b6, used for the paper's figures), as an option.

    Count, per item, the partners with pair diversity < 1; repeatedly take the item with the highest count
    (stable: earliest index on ties) among those not yet taken; stop when that count is ≤ 0. A taken item
    scores the minimum diversity to partners not yet taken, and those partners' counts drop by one. Items
    never taken score 1.0. Values come back in original order (no permutation quirk here).
    """
    n = len(items)
    if n == 0:
        return 0.0, []
    div = [[1.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            div[i][j] = div[j][i] = pair(items[i], items[j])
    similar = [sum(1 for j in range(n) if j != i and div[i][j] < 1) for i in range(n)]
    minimum = [1.0] * n
    open_items = list(range(n))
    while open_items:
        open_items.sort(key=lambda i: similar[i], reverse=True)
        k = open_items.pop(0)
        if similar[k] <= 0:
            break
        for j in open_items:
            minimum[k] = min(minimum[k], div[k][j])
            similar[j] -= 1
    return sum(1 for v in minimum if v >= 1) / n, minimum
