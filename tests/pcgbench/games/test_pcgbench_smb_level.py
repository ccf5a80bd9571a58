"""smb / smbtile level measures against pcg_benchmark 00b96f5: golden vectors from the reference (static info
of every content; quality, controllability and diversity over the reference's own infos, played levels
included), the spec's measured values, and any content of the content space measured without a crash."""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.games.smb import level as smb

FIXTURES = Path(__file__).parents[1] / "fixtures" / "smb"
TOL = 1e-9
WIDTHS = {"v0": 150, "medium-v0": 100, "small-v0": 50, "scene-v0": 16}
VARIANTS = [f"{p}-{s}" for p in ("smb", "smbtile") for s in WIDTHS]


@cache
def golden(variant: str) -> dict:
    with gzip.open(FIXTURES / f"{variant}.json.gz", "rt") as f:
        return json.load(f)


def measure(variant: str, content) -> dict:
    if variant.startswith("smbtile"):
        return smb.static_info(smb.tile_level(content), smb.tile_empty(content), len(content[0]), True)
    return smb.static_info(smb.slice_level(content), smb.smb_empty(content), len(content), False)


@pytest.mark.parametrize("variant", VARIANTS)
def test_golden_vectors(variant):
    g = golden(variant)
    width = g["kwargs"]["width"]
    played = 0
    for idx, item in enumerate(g["items"]):
        if "error" in item:
            assert item["error"] == "ZeroDivisionError", idx
            with pytest.raises(smb.NoEnemies):
                measure(variant, item["content"])
            continue
        ref = item["info"]
        ours = measure(variant, item["content"])
        for key in smb.STATIC_FIELDS:
            assert ours[key] == ref[key], (idx, key)
        assert smb.passes_gate(ours) == bool(ref["actions"]), idx
        if ref["actions"]:
            played += 1
        else:  # not played: the whole info is the static one, so quality is ours end to end
            assert {k: v for k, v in ours.items() if k != "height"} == {
                k: v for k, v in ref.items() if k != "height"
            }, idx
        assert abs(smb.quality(ours if not ref["actions"] else ref) - item["quality"]) <= TOL, idx
        for control, want in item["controllability"]:
            assert abs(smb.controllability(ref, control, width) - want) <= TOL, (idx, control)
    assert played >= 25
    items = g["items"]
    for i, j, want in g["diversity"]:
        assert abs(smb.diversity(items[i]["info"], items[j]["info"]) - want) <= TOL, (i, j)


def test_spec_measured_values():
    """§10b: smb-small all slice 0 has no enemy; 49 × slice 0 and slice 5 at 20 passes the gate with empty 0.98."""
    with pytest.raises(smb.NoEnemies):
        measure("smb-small-v0", [0] * 50)
    c = [0] * 50
    c[20] = 5
    info = measure("smb-small-v0", c)
    assert info["empty"] == 0.98 and info["fenemies"] == 0 and info["tube"] == 0 and not any(info["noise"])
    assert smb.passes_gate(info)
    grid = [[0] * 50 for _ in range(14)] + [[1] * 50, [1] * 50]
    grid[13][20] = 7
    tile = measure("smbtile-small-v0", grid)
    assert tile["empty"] == 0.87375 and smb.passes_gate(tile)


def test_bottom_row_enemy_floats_in_smbtile_only():
    grid = [[0] * 16 for _ in range(16)]
    grid[15][5] = 7
    assert measure("smbtile-scene-v0", grid)["fenemies"] == 1.0


def test_level_string_shape():
    rows = smb.slice_level([5] * 16)
    assert len(rows) == 16 and {len(r) for r in rows} == {22}
    assert rows[13][1] == "M" and rows[13][20] == "F" and rows[6][3:19] == "y" * 16
    tile = smb.tile_level([[0] * 16 for _ in range(16)])
    assert tile[14][:3] == "XXX" and tile[13][:3] == "-M-" and tile[15][3:19] == "-" * 16


def test_diversity_clamps_to_column_15():
    a = {"width": 150, "locations": [[16 * 40.0, 200.0]]}
    b = {"width": 150, "locations": [[16 * 90.0, 200.0]]}
    assert smb.diversity(a, b) == 0.0  # both land in column 15
    assert smb.diversity({"width": 150, "locations": []}, {"width": 150, "locations": []}) == 0.0


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([16, 50]).flatmap(lambda w: st.lists(st.integers(0, 125), min_size=w, max_size=w)))
def test_any_slice_content_is_measured(content):
    try:
        info = measure("smb", content)
    except smb.NoEnemies:
        assert not any(ch in smb.ENEMIES for r in smb.slice_level(content) for ch in r)
        return
    assert 0.0 <= smb.quality(info) <= 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), min_size=16, max_size=16), min_size=16, max_size=16))
def test_any_tile_content_is_measured(grid):
    try:
        info = measure("smbtile", grid)
    except smb.NoEnemies:
        assert not any(v in (7, 8, 9) for row in grid for v in row)
        return
    assert 0.0 <= smb.quality(info) <= 1.0
