"""arcade against pcg_benchmark 00b96f5: golden vectors from the reference (contents as plain JSON), the
engine's RNG equivalence, named check reasons, and any content of the content space evaluating."""

from __future__ import annotations

import gzip
import hashlib
import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.bench.registry import REGISTRY, get_problem, maker
from pcg_plugin.problems.pcgbench.games.arcade import problem as arcade
from pcg_plugin.problems.pcgbench.games.arcade.engine import MOVES

FIXTURES = Path(__file__).parents[1] / "fixtures" / "arcade"
TOL = 1e-9
QUICK = 6
VARIANTS = {
    name: kwargs for name, (_, kwargs) in REGISTRY.items() if maker(name) is arcade.make
}  # golden items checked by the default run; the slow test checks them all


@cache
def golden(variant: str) -> dict:
    with gzip.open(FIXTURES / f"{variant}.json.gz", "rt") as f:
        return json.load(f)


def problem(variant: str):
    return get_problem(variant)


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def check_items(variant: str, indices) -> dict[int, dict]:
    g, p = golden(variant), problem(variant)
    infos = {}
    for idx in indices:
        item = g["items"][idx]
        assert p.content.check(item["content"]) is None, idx
        info = infos[idx] = p.info(item["content"])
        for key, want in item["trace_sha256"].items():
            assert digest(info[key]) == want, (idx, key)
        assert {k: info[k] for k in item["info_small"]} == item["info_small"], idx
        assert abs(p.quality(info) - item["quality"]) <= TOL, idx
        for control, want in item["controllability"]:
            assert abs(p.controllability(info, control) - want) <= TOL, idx
    for i, j, want in g["diversity"]:
        if i in infos and j in infos:
            assert abs(p.diversity(infos[i], infos[j]) - want) <= TOL, (i, j)
    return infos


def quick_indices(variant: str) -> list[int]:
    """The fastest reference items that still reach the deep code: an MCTS win, a near-duplicate pair."""
    items = golden(variant)["items"]
    near = next(
        i
        for i, it in enumerate(items)
        if "near" in it
        and golden(variant)["diversity"]
        and any(d[1] == i and d[2] > 0 for d in golden(variant)["diversity"])
    )
    won = [i for i, it in enumerate(items) if "summary" in it and it["summary"]["flat_mcts"][1:2] == [True]]
    won.sort(key=lambda i: items[i]["seconds"])
    return sorted({items[near]["near"], near, *won[: QUICK - 2]})


def test_layout_is_the_reference_one():
    for variant, kwargs in VARIANTS.items():
        assert arcade.layout(kwargs["width"], kwargs["height"]) == golden(variant)["layout"]


def test_golden_vectors_quick():
    infos = check_items("arcade-v0", quick_indices("arcade-v0"))
    assert any(info["flat_mcts"][-1][0]["isWin"] for info in infos.values())


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_golden_vectors_all(variant):
    assert len(check_items(variant, range(len(golden(variant)["items"])))) >= 50


def test_choice_of_five_moves_is_integers_below_five():
    """The agents draw `choice` over their five moves; `integers(0, 5)` must consume the stream identically."""
    for seed in range(50):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        moves = [{"x": x, "y": y} for x, y in MOVES]
        assert [moves.index(a.choice(moves)) for _ in range(200)] == [int(b.integers(0, 5)) for _ in range(200)]


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda c: c.pop("seed"), "wrong keys: missing ['seed']"),
        (lambda c: c.update(x=7), "wrong value: x is 7"),
        (lambda c: c.update(red=True), "wrong value: red is True"),
        (lambda c: c["greenStart"].update(num=5), "wrong value: greenStart.num"),
        (lambda c: c["greenStart"].update(x=[0, 0, 0]), "wrong value: greenStart.x"),
        (lambda c: c["red-green"].update(score=4), "wrong value: red-green"),
        (lambda c: c.update({"player-red": [0, 0]}), "wrong value: player-red"),
    ],
)
def test_check_names_the_reason(mutate, reason):
    p = problem("arcade-v0")
    content = p.content.sample(np.random.default_rng(0))
    assert p.content.check(content) is None
    mutate(content)
    assert p.content.check(content).startswith(reason)
    assert p.content.check("rules").startswith("not a rule set")


def test_control_sampler_gives_one_region_drawn_packed_and_given_as_the_map():
    """The harness draws a layout packed in one integer (what instance ids name); everything a user reads or
    gives is the benchmark's own control, the map as rows of 0/1."""
    from pcg_plugin.problems.pcgbench.bench.grid_search import count_regions

    for variant, kw in VARIANTS.items():
        p = problem(variant)
        drawn = p.sample_control(np.random.default_rng(1))
        grid = p.native_control(drawn)
        assert grid == arcade.unpack_map(drawn["layout"], kw["width"], kw["height"])
        assert count_regions(grid, (1,)) == 1 and arcade.pack_map(grid) == drawn["layout"]
        assert 0 <= drawn["layout"] < p.control_space["layout"][1] and p.control_problem(grid) is None
        assert p.control_problem(drawn).startswith("control is not a map")
        assert p.show_control(grid).endswith("\n".join("".join(map(str, row)) for row in grid))
        assert p.control_ranges() == [[[0, 2]] * kw["width"]] * kw["height"]


def test_extra_keys_are_ignored_and_a_map_without_a_start_cell_is_named():
    p = problem("arcade-v0")
    content = p.examples[0]
    assert p.content.check({**content, "extra": 1}) is None  # the benchmark's dictionary space ignores it
    full = evaluate_item(p, content, [[1] * 7] * 7)
    assert evaluate_item(p, {**content, "extra": 1}, [[1] * 7] * 7) == full
    assert evaluate_item(p, content, [[1] * 8] * 9)["controllability"] == full["controllability"]
    small = evaluate_item(p, content, [[1]])
    assert not small["valid"] and small["reason"].startswith("benchmark fails: the control map has no cell")


def test_diversity_never_reaches_one():
    """The reference passes width and height as the plateau end and maximum: the plateau is empty."""
    p = problem("arcade-v0")
    empty = {"flat_mcts": [], "do_nothing": [], "random": []}
    state = {"_player": {"x": 1, "y": 1}, "_reds": [], "_greens": [], "_yellows": []}
    for cells in range(1, 20):
        trace = [[{**state, "_player": {"x": 1 + k % 7, "y": 1 + k // 7}}, None] for k in range(cells)]
        value = p.diversity(empty, {**empty, "flat_mcts": trace})
        assert value < 1 and (value > 0) == (cells / 2 < 7)


def rule_sets(width: int, height: int):
    """Every content of the benchmark's content space, as plain JSON."""
    ints = st.integers
    start = st.fixed_dictionaries(
        {
            "num": ints(0, 4),
            "x": st.lists(ints(0, width - 1), min_size=4, max_size=4),
            "y": st.lists(ints(0, height - 1), min_size=4, max_size=4),
        }
    )
    fields = {"x": ints(0, width - 1), "y": ints(0, height - 1), "seed": ints(0, 10**6 - 1), "win": ints(0, 3)}
    for colour in ("red", "yellow", "green"):
        fields[colour] = ints(0, 7)
        fields[f"{colour}Start"] = start
    for key in arcade.RULE_KEYS:
        fields[key] = st.fixed_dictionaries({"action": ints(0, 3), "score": ints(0, 3)})
    return st.fixed_dictionaries(fields)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_sets(7, 7), st.lists(st.lists(st.integers(0, 1), min_size=7, max_size=7), min_size=7, max_size=7))
def test_any_content_evaluates(content, control):
    p = problem("arcade-v0")
    assert p.content.check(content) is None
    info = p.info(content)
    json.dumps(info)
    assert 0 <= p.quality(info) <= 1
    assert 0 <= p.diversity(info, info) < 1
    assert 0 <= p.controllability(info, control) <= 1


@settings(max_examples=30, deadline=None)
@given(rule_sets(15, 7), st.text())
def test_reply_round_trip_and_any_reply_is_named(content, noise):
    kind = problem("arcade-wide-v0").content
    assert kind.parse(noise.replace("`", "") + "\n" + kind.show(content)) == (content, None)
    value, reason = kind.parse(noise)
    assert reason is None or reason.split(":")[0] in ("no block", "not a rule set")
    if reason is None:
        assert kind.check(value) is None or kind.check(value).split(":")[0].replace(" ", "_") in kind.reasons


def test_drawing_shows_layout_starts_and_rules():
    p = problem("arcade-v0")
    content = golden("arcade-v0")["items"][20]["content"]
    svg = p.content.draw(content)
    starts = sum(content[f"{c}Start"]["num"] for c in ("red", "green", "yellow"))
    assert svg.startswith("<svg") and svg.count("<circle") == starts and "win: " in svg
    assert svg.count('fill="#3b3b3b"') == sum(row.count(0) for row in arcade.layout(7, 7))
