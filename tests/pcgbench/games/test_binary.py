import pytest
from levels import BINARY_README

from pcg_plugin.problems.pcgbench.bench.registry import get_problem

BINARY = get_problem("binary-v0")
info, quality, controllability, diversity = BINARY.info, BINARY.quality, BINARY.controllability, BINARY.diversity


def test_readme_maze_golden():
    """Spec §1.3 (measured on the benchmark): path 60, regions 1, quality 1.0; control 50 → 0.9784."""
    inf = info(BINARY_README)
    assert (inf["path"], inf["regions"]) == (60, 1)
    assert quality(inf) == 1.0
    assert controllability(inf, {"path": 50}) == pytest.approx(0.9784, abs=1e-4)


def test_quality_terms():
    all_solid = info([[0] * 14 for _ in range(14)])
    assert quality(all_solid) == 0.0  # no region, no path
    all_empty = info([[1] * 14 for _ in range(14)])
    assert all_empty["path"] == 26 and all_empty["regions"] == 1
    assert quality(all_empty) == pytest.approx((1 + 26 / 28) / 2, abs=1e-6)


def test_diversity_threshold_is_79_cells():
    base = [[0] * 14 for _ in range(14)]

    def flipped(n):
        cells = [[0] * 14 for _ in range(14)]
        for i in range(n):
            cells[i // 14][i % 14] = 1
        return info(cells)

    assert diversity(info(base), flipped(79)) == 1.0
    assert diversity(info(base), flipped(78)) < 1.0
    assert diversity(info(base), info(base)) == 0.0


def test_control_space():
    assert BINARY.control_space == {"path": (35, 98)}
