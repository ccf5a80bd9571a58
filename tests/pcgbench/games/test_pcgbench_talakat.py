"""talakat against pcg_benchmark 00b96f5: golden vectors from the reference, the spec's measured values, and
any content of the content space evaluating without a crash."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.registry import REGISTRY, get_problem, maker
from pcg_plugin.problems.pcgbench.games.talakat import problem as talakat

FIXTURES = Path(__file__).parents[1] / "fixtures" / "talakat"
TOL = 1e-9
VARIANTS = {name: kwargs for name, (_, kwargs) in REGISTRY.items() if maker(name) is talakat.make}


@cache
def golden(variant: str) -> dict:
    with gzip.open(FIXTURES / f"{variant}.json.gz", "rt") as f:
        return json.load(f)


def problem(variant: str):
    return get_problem(variant)


def close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= TOL))


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_golden_vectors(variant):
    g, p = golden(variant), problem(variant)
    assert g["kwargs"] == VARIANTS[variant]
    infos = {}
    valid = 0
    for idx, item in enumerate(g["items"]):
        reason = p.content.check(item["content"])
        if "error" in item:
            assert item["error"] == "RecursionError" and reason.startswith("endless pattern"), idx
            continue
        assert reason is None, (idx, reason)
        script = talakat.generate_script(item["content"], VARIANTS[variant]["maxHealth"])
        assert hashlib.sha256(json.dumps(script, sort_keys=True).encode()).hexdigest() == item["script_sha256"], idx
        info = infos[idx] = p.info(item["content"])
        assert set(info) == set(item["info"])
        for key, want in item["info"].items():
            assert close(info[key], want), (idx, key)
        assert abs(p.quality(info) - item["quality"]) <= TOL, idx
        for control, want in item["controllability"]:
            assert abs(p.controllability(info, control) - want) <= TOL, (idx, control)
        valid += 1
    assert valid >= 50
    for i, j, want in g["diversity"]:
        assert abs(p.diversity(infos[i], infos[j]) - want) <= TOL, (i, j)


def test_spec_measured_values():
    """spec §10b: three uniform talakat-v0 contents from default_rng(1), drawn as one (10, 100) array."""
    rng = np.random.default_rng(1)
    p = problem("talakat-v0")
    got = []
    for _ in range(3):
        info = p.info(rng.integers(0, 100, (10, 100)).tolist())
        got.append((round(info["percentage"], 3), info["script_connectivity"], round(p.quality(info), 4)))
    assert got == [(0.247, 0.5, 0.0617), (1.0, 0.1, 0.626), (1.0, 0.2, 0.8557)]


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("rows", "not spawner rows"),
        ([[0] * 100] * 4, "wrong shape: 4 rows"),
        ([[0] * 99] + [[0] * 100] * 4, "wrong shape: row 0 has 99"),
        ([[0] * 100] * 4 + [[0] * 99 + [100]], "wrong value: row 4 position 99"),
        ([[0] * 100] * 4 + [[0] * 99 + [True]], "wrong value"),
        ([[0] * 100] * 4 + [[0] * 99 + [1.0]], "wrong value"),
        ([[0] * 100] * 4 + [[3] * 100], "endless pattern: row 4"),
    ],
)
def test_check_names_the_reason(bad, reason):
    assert problem("talakat-simple-v0").content.check(bad).startswith(reason)


def test_sample_and_control_are_in_the_spaces():
    p = problem("talakat-long-v0")
    rng = np.random.default_rng(3)
    content = p.content.sample(rng)
    assert len(content) == 20 and all(len(r) == 100 and all(0 <= v < 100 for v in r) for r in content)
    drawn = p.sample_control(rng)  # what the harness draws and instance ids name
    assert list(drawn) == list(p.control_space) == [f"bullets_{s}" for s in range(10)]
    control = p.native_control(drawn)  # what everything else speaks: the benchmark's own control
    assert control == {"bullets": [drawn[f"bullets_{s}"] for s in range(10)]}
    assert all(75 <= v < 100 for v in control["bullets"]) and p.control_ranges() == {"bullets": [[75, 100]] * 10}
    assert p.control_problem(control) is None
    assert "lacks the key" in p.control_problem(drawn)
    info = p.info(content)
    short, long = {"bullets": control["bullets"][:3]}, {"bullets": control["bullets"] + [80, 90]}
    assert 0 <= p.controllability(info, short) <= 1 and 0 <= p.controllability(info, long) <= 1
    assert p.control_problem({"bullets": []}).startswith("control bullets must be a non-empty list")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(st.integers(0, 99), min_size=100, max_size=100), min_size=5, max_size=5),
    st.lists(st.integers(-10, 300), min_size=5, max_size=5),
)
def test_any_content_evaluates(content, targets):
    p = problem("talakat-simple-v0")
    reason = p.content.check(content)
    if reason is not None:
        assert reason.startswith("endless pattern")
        return
    info = p.info(content)
    json.dumps(info)  # plain JSON
    assert 0 < info["percentage"] <= 1
    assert 0 <= p.quality(info) <= 1
    assert 0 <= p.controllability(info, {"bullets": targets}) <= 1
    assert 0 <= p.diversity(info, info) <= 1


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 99), min_size=100, max_size=100), min_size=5, max_size=5), st.text())
def test_reply_round_trip_and_any_reply_is_named(content, noise):
    kind = problem("talakat-simple-v0").content
    shown = kind.show(content)
    assert re.fullmatch(kind.answer_regex(), noise.replace("`", "") + shown)
    assert kind.parse(noise.replace("`", "") + "\n" + shown) == (content, None)
    value, reason = kind.parse(noise)
    assert reason is None or reason.split(":")[0] in ("no block", "not spawner rows")
    assert (
        reason is not None
        or kind.check(value) is None
        or kind.check(value).split(":")[0].replace(" ", "_") in kind.reasons
    )


def test_drawing_shows_the_bullets():
    item = golden("talakat-v0")["items"][10]  # a pattern that lasts the whole fight
    svg = problem("talakat-v0").content.draw(item["content"])
    assert svg.startswith("<svg") and svg.count("<circle") > 30 and "run ended" not in svg
    short = next(it for it in golden("talakat-v0")["items"] if it.get("info", {}).get("percentage", 1) < 0.2)
    assert "run ended" in problem("talakat-v0").content.draw(short["content"])
