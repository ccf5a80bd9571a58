from levels import SOKOBAN_MICROBAN

from pcg_plugin.problems.pcgbench.games.sokoban.solver import astar, bfs, dead_cells, heuristic, load, solve, step


def test_dead_cells_are_corners_and_wall_runs_without_targets():
    # An open 3×3 room inside the border: its four corners are dead, and so are the edge cells between them
    # unless a target sits on that edge.
    level = [[1, 1, 1], [1, 2, 1], [1, 1, 4]]
    board, _ = load(level)
    assert {(1, 1), (3, 1), (1, 3)} <= board.dead
    assert (3, 3) not in board.dead  # a target corner is alive
    assert (2, 1) in board.dead and (1, 2) in board.dead  # top and left edges: no target
    assert (3, 2) not in board.dead and (2, 3) not in board.dead  # edges that end at the target corner
    assert dead_cells(board.solid, [(1, 1), (3, 1), (1, 3), (3, 3)]) == frozenset()


def test_push_and_blocked_moves():
    board, state = load([[2, 3, 1], [1, 1, 1], [1, 1, 4]])
    moved, pushed = step(board, state, (1, 0))
    assert pushed and moved.player == (2, 1) and moved.crates == ((3, 1),)
    blocked, pushed = step(board, moved, (1, 0))
    assert not pushed and blocked == moved


def test_bfs_finds_the_shortest_solution_and_respects_the_budget():
    board, start = load(SOKOBAN_MICROBAN)
    result = bfs(board, start, 5000)
    assert result.solved and len(result.moves) == 10
    starved = bfs(board, start, 3)
    assert not starved.solved and starved.popped == 3


def test_astar_and_cascade():
    board, start = load(SOKOBAN_MICROBAN)
    assert astar(board, start, 1.0, 5000).solved
    assert solve(SOKOBAN_MICROBAN)[0] == 0
    assert heuristic(board, start) == 5  # crate (3,3)→(2,3): 1, then crate (4,4)→(3,1): 4


def test_budget_exhaustion_returns_the_last_searchs_best_heuristic():
    h, moves = solve(SOKOBAN_MICROBAN, limit=2)
    assert moves == [] and h >= 0


def test_pushes_onto_dead_cells_are_pruned():
    from pcg_plugin.problems.pcgbench.games.sokoban.solver import _children, _Node

    board, start = load([[2, 3, 1], [1, 1, 1], [1, 1, 4]])
    node = _Node(start, None, None, 0, heuristic(board, start))
    # Right would push the crate into the top-right corner (dead); left and up are walls: only down is left.
    assert [c.move for c in _children(board, node, 0.0)] == [(0, 1)]


def test_heuristic_matches_each_crate_to_the_first_nearest_remaining_target():
    # Targets (1,1), (3,1); crates (2,1), (4,1) on the padded grid: the first crate ties and takes (1,1).
    board, state = load([[4, 3, 4, 3, 1], [1, 1, 1, 1, 1], [2, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]])
    assert heuristic(board, state) == 2
