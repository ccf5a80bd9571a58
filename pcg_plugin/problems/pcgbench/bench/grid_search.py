"""4-neighbour grid searches shared by the benchmark's problems (binary, zelda): distances, regions, paths.

Grids are sequences of rows of ints, indexed grid[y][x]; positions are (x, y) like the benchmark's. Every
scan is row-major and neighbours are visited left, right, up, down, because the benchmark's tie-breaks
(which farthest tile, which path) depend on exactly that order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Sequence

Grid = Sequence[Sequence[int]]
Pos = tuple[int, int]

NEIGHBOURS: tuple[Pos, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))  # left, right, up, down


def tiles_of(grid: Grid, values: Collection[int]) -> list[Pos]:
    """Every (x, y) whose tile is in `values`, in row-major order."""
    return [(x, y) for y, row in enumerate(grid) for x, v in enumerate(row) if v in values]


def bfs_distances(grid: Grid, start: Pos, passable: Collection[int]) -> list[list[int]]:
    """Steps from `start` to every tile through passable tiles; -1 where unreachable (or a solid start)."""
    height, width = len(grid), len(grid[0])
    dist = [[-1] * width for _ in range(height)]
    sx, sy = start
    if grid[sy][sx] not in passable:
        return dist
    dist[sy][sx] = 0
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for dx, dy in NEIGHBOURS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < width and 0 <= ny < height and dist[ny][nx] < 0 and grid[ny][nx] in passable:
                dist[ny][nx] = dist[y][x] + 1
                queue.append((nx, ny))
    return dist


def count_regions(grid: Grid, values: Collection[int]) -> int:
    """Number of 4-connected components made of tiles in `values`."""
    seen: set[Pos] = set()
    regions = 0
    for pos in tiles_of(grid, values):
        if pos in seen:
            continue
        regions += 1
        dist = bfs_distances(grid, pos, values)
        seen.update((x, y) for y, row in enumerate(dist) for x, d in enumerate(row) if d >= 0)
    return regions


def _farthest(dist: list[list[int]]) -> tuple[Pos, int]:
    """The first maximum in row-major order (numpy argmax's tie-break) and its distance."""
    best, best_pos = -2, (0, 0)
    for y, row in enumerate(dist):
        for x, d in enumerate(row):
            if d > best:
                best, best_pos = d, (x, y)
    return best_pos, best


def longest_path(grid: Grid, passable: Collection[int]) -> int:
    """The benchmark's "longest shortest path": a double sweep per component, max over components.

    From each not-yet-visited passable tile: BFS, jump to the farthest tile, BFS again, keep the largest
    distance. On graphs with cycles this is a lower bound of the true diameter, not the diameter; the
    benchmark scores that heuristic, so we do too.
    """
    seen: set[Pos] = set()
    best = 0
    for pos in tiles_of(grid, passable):
        if pos in seen:
            continue
        dist = bfs_distances(grid, pos, passable)
        seen.update((x, y) for y, row in enumerate(dist) for x, d in enumerate(row) if d >= 0)
        far, _ = _farthest(dist)
        _, length = _farthest(bfs_distances(grid, far, passable))
        best = max(best, length)
    return best


def first_tile_distance(
    grid: Grid, start_values: Collection[int], end_values: Collection[int], passable: Collection[int]
) -> int:
    """BFS distance from the first start tile to the first end tile (row-major); -1 if none or unreachable."""
    starts, ends = tiles_of(grid, start_values), tiles_of(grid, end_values)
    if not starts or not ends:
        return -1
    (ex, ey) = ends[0]
    return bfs_distances(grid, starts[0], passable)[ey][ex]


def walk_back(dist: list[list[int]], end: Pos) -> list[Pos]:
    """The path start→end recovered from BFS distances, start first; [] if `end` is unreachable or the start.

    From the end, step to the first neighbour (left, right, up, down) with a strictly smaller distance.
    """
    height, width = len(dist), len(dist[0])
    x, y = end
    if dist[y][x] <= 0:
        return []
    path = [end]
    while dist[y][x] > 0:
        best = (x, y)
        for dx, dy in NEIGHBOURS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < width and 0 <= ny < height and 0 <= dist[ny][nx] < dist[best[1]][best[0]]:
                best = (nx, ny)
        if best == (x, y):
            break
        x, y = best
        path.append(best)
    path.reverse()
    return path


def first_tile_path(
    grid: Grid, start_values: Collection[int], end_values: Collection[int], passable: Collection[int]
) -> list[Pos]:
    """The walked-back path between the first start and first end tiles; [] if none or unreachable."""
    starts, ends = tiles_of(grid, start_values), tiles_of(grid, end_values)
    if not starts or not ends:
        return []
    return walk_back(bfs_distances(grid, starts[0], passable), ends[0])
