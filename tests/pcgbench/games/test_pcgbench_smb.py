"""smb and smbtile against pcg_benchmark 00b96f5, through the registered variants: every golden content's whole
info (the play-through's actions and Mario's positions included), quality, controllability and diversity; the
spec's measured values; and any content of the content space evaluating without a crash."""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.problem import reason_code
from pcg_plugin.problems.pcgbench.bench.registry import REGISTRY, get_problem, maker
from pcg_plugin.problems.pcgbench.games.smb import problem as smb

FIXTURES = Path(__file__).parents[1] / "fixtures" / "smb"
TOL = 1e-9
VARIANTS = {name: kwargs for name, (_, kwargs) in REGISTRY.items() if maker(name) in (smb.make, smb.make_tile)}


@cache
def golden(variant: str) -> dict:
    with gzip.open(FIXTURES / f"{variant}.json.gz", "rt") as f:
        return json.load(f)


def close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= TOL))


def test_every_variant_registered():
    assert sorted(VARIANTS) == sorted(
        f"{p}-{s}" for p in ("smb", "smbtile") for s in ("v0", "medium-v0", "small-v0", "scene-v0")
    )


ASTAR = sorted(p.name.removesuffix("-astar.json.gz") for p in FIXTURES.glob("*-astar.json.gz"))


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_golden_vectors(variant):
    check_golden(variant, golden(variant))


@pytest.mark.parametrize(
    "variant", [pytest.param(v, marks=pytest.mark.slow) if v == "smb-small-v0" else v for v in ASTAR]
)
def test_golden_astar_levels(variant):
    """Sparse levels the heuristic agent cannot finish: A* replans, mostly without reaching the flag."""
    g = golden(f"{variant}-astar")
    check_golden(variant, g)
    assert all(len(set(item["info"]["actions"])) > 1 for item in g["items"])  # A* played every one


def check_golden(variant: str, g: dict) -> None:
    p = get_problem(variant)
    assert g["kwargs"] == VARIANTS[variant]
    infos = {}
    for idx, item in enumerate(g["items"]):
        reason = p.content.check(item["content"])
        if "error" in item:
            assert item["error"] == "ZeroDivisionError" and reason_code(reason) == "no_enemy", idx
            continue
        assert reason is None, (idx, reason)
        info = infos[idx] = p.info(item["content"])
        assert set(info) == set(item["info"]), idx
        for key, want in item["info"].items():
            assert close(info[key], want), (idx, key)
        assert abs(p.quality(info) - item["quality"]) <= TOL, idx
        for control, want in item["controllability"]:
            assert abs(p.controllability(info, control) - want) <= TOL, (idx, control)
    for i, j, want in g["diversity"]:
        assert abs(p.diversity(infos[i], infos[j]) - want) <= TOL, (i, j)


def test_spec_measured_values():
    """§10b: 49 × slice 0 and slice 5 at 20 on smb-small: complete, 6 jumps, 88 agent events, quality 1."""
    p = get_problem("smb-small-v0")
    assert reason_code(p.content.check([0] * 50)) == "no_enemy"
    c = [0] * 50
    c[20] = 5
    info = p.info(c)
    assert (info["complete"], info["jumps"], info["enemies"], info["coins"], len(info["actions"])) == (1.0, 6, 0, 0, 88)
    assert p.quality(info) == 1.0
    grid = [[0] * 50 for _ in range(14)] + [[1] * 50, [1] * 50]
    grid[13][20] = 7
    tile = get_problem("smbtile-small-v0")
    info = tile.info(grid)
    assert (info["empty"], info["complete"], info["jumps"]) == (0.87375, 1.0, 6) and tile.quality(info) == 1.0


def test_examples_are_feasible():
    for name in VARIANTS:
        p = get_problem(name)
        assert p.examples and p.quality(p.info(p.examples[0])) == 1.0, name


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["smb-scene-v0", "smb-small-v0"]), st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_any_slice_content_evaluates(variant, seed, nonzero):
    """Uniform contents, and mostly empty ones (the kind the gate plays), evaluate or are named invalid."""
    p = get_problem(variant)
    rng = np.random.default_rng(seed)
    for content in (p.content.sample(rng), [0] * VARIANTS[variant]["width"]):
        for x in rng.integers(0, len(content), nonzero):
            content[int(x)] = int(rng.integers(0, 126))
        if p.content.check(content) is None:
            info = p.info(content)
            assert 0.0 <= p.quality(info) <= 1.0 and 0.0 <= info["complete"] <= 1.0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8))
def test_any_tile_content_evaluates(seed, nonzero):
    p = get_problem("smbtile-scene-v0")
    rng = np.random.default_rng(seed)
    floor = [[0] * 16 for _ in range(14)] + [[1] * 16, [1] * 16]
    for grid in (p.content.sample(rng), floor):
        for _ in range(nonzero):
            grid[int(rng.integers(0, 16))][int(rng.integers(0, 16))] = int(rng.integers(0, 10))
        if p.content.check(grid) is None:
            info = p.info(grid)
            assert 0.0 <= p.quality(info) <= 1.0
