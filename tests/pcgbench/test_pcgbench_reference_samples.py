"""Every variant against the reference's own samples (fixtures/spaces/, made by running pcg_benchmark 00b96f5;
SOURCE.md there): contents and controls drawn by its content and control spaces after `env.seed(37)`, given in
the benchmark's own JSON (talakat's {"bullets": [...]}, arcade's 0/1 rows), evaluate to its validity, info,
quality and controllability, and their set diversity to its `PCGEnv.diversity`. The same contents with extra
length (an extra row, column, letter, drop, key ...) and each problem's README examples, which the benchmark's
spaces accept, are scored exactly as the reference scores them, or refused by name where the reference fails
on them. The default run checks the first 3 samples of every variant and its sample of lowest controllability;
`-m slow` all 20."""

from __future__ import annotations

import gzip
import hashlib
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item, set_diversity
from pcg_plugin.problems.pcgbench.bench.jsonl_eval import evaluate_lines
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names
from pcg_plugin.problems.pcgbench.games.building import problem as building_module

FIXTURES = Path(__file__).parent / "fixtures" / "spaces"
TOL = 1e-9
# Extra length the reference scores for the level alone, but whose diversity against another level can raise
# (ddave: a solution spanning more than the variant's width or height; smb, smbtile: played levels of different
# widths): refused by name here, as the docs say (docs/problems/pcgbench-variants.md).
REFUSED_EXTRA = ("ddave-", "smb-", "smbtile-")


@cache
def golden(name: str) -> dict[str, Any]:
    return json.loads(gzip.decompress((FIXTURES / f"{name}.json.gz").read_bytes()))


@cache
def readme() -> dict[str, Any]:
    return json.loads((FIXTURES / "readme_examples.json").read_text())


def as_floats(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: as_floats(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [as_floats(v) for v in value]
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def digest(value: Any) -> str:
    """As the fixtures hash a large info value: its canonical JSON with every number a float."""
    return hashlib.sha256(json.dumps(as_floats(value), sort_keys=True).encode()).hexdigest()


def close(ours: Any, theirs: Any) -> bool:
    """Equal as JSON, numbers to TOL (ints and floats compare as numbers)."""
    if isinstance(theirs, dict):
        return isinstance(ours, dict) and set(ours) == set(theirs) and all(close(ours[k], theirs[k]) for k in theirs)
    if isinstance(theirs, list):
        return isinstance(ours, list | tuple) and len(ours) == len(theirs) and all(map(close, ours, theirs))
    if isinstance(theirs, int | float) and not isinstance(theirs, bool):
        return isinstance(ours, int | float) and math.isclose(ours, theirs, rel_tol=0, abs_tol=TOL)
    return bool(ours == theirs)


def reference_form(name: str, key: str, info: dict[str, Any], content: Any) -> Any:
    """Our info value under the reference's key, in the reference's form (where the forms differ)."""
    if name.startswith("binary") and key == "flat":  # binary keeps its maze flattened for the Hamming distance
        return [v for row in info["content"] for v in row]
    if name.startswith("sokoban") and key == "solution":  # [dx, dy] here, {"x", "y"} there
        return [{"x": dx, "y": dy} for dx, dy in info[key]]
    if name.startswith("building") and key.startswith("lvl_"):  # computed from the content when diversity needs it
        variant = get_problem(name).diversity.__self__  # the Building whose bound method diversity is
        return variant.oriented(content)[list(building_module.TYPES).index(key[4:])].tolist()
    return json.loads(json.dumps(info[key]))


def check_item(name: str, content: Any, control: Any, ref: dict[str, Any]) -> dict[str, Any] | None:
    """Our evaluation of one reference item agrees with it; returns our info (None when invalid)."""
    ev = evaluate_item(get_problem(name), content, control)
    if "error" in ref:
        assert not ev["valid"], f"{name}: the reference raised {ref['error']}, we scored it"
        return None
    assert ev["valid"], f"{name}: the reference scored it, we refused: {ev['reason']}"
    for key, value in ref["info"].items():
        assert close(reference_form(name, key, ev["info"], content), value), f"{name}: info {key}"
    for key, value in ref["info_sha256"].items():
        assert digest(reference_form(name, key, ev["info"], content)) == value, f"{name}: info {key} (sha256)"
    assert math.isclose(ev["quality"], ref["quality"], rel_tol=0, abs_tol=TOL), name
    if control is not None:
        assert math.isclose(ev["controllability"], ref["controllability"], rel_tol=0, abs_tol=TOL), name
    return ev["info"]


def check_samples(name: str, quick: bool) -> None:
    """All 20 samples and their set diversity; `quick`: the first 3 (and their set diversity) and the sample of
    lowest controllability (the deepest control branch, e.g. an arcade player off the map's 1 cells)."""
    doc = golden(name)
    items = list(zip(doc["contents"], doc["controls"], doc["items"], strict=True))
    chosen = items[:3] if quick else items
    infos = [check_item(name, content, control, ref) for content, control, ref in chosen]
    want = doc["set_diversity_quick"] if quick else doc["set_diversity"]
    fraction, per_item = set_diversity(get_problem(name), [i for i in infos if i is not None])
    assert close(fraction, want["fraction"]) and close(per_item, want["per_item"]), name
    if quick:
        check_item(name, *min(items, key=lambda item: item[2].get("controllability", 1.0)))


@pytest.mark.parametrize("name", names())
def test_the_reference_samples_score_as_the_reference_scores_them(name: str) -> None:
    check_samples(name, quick=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", names())
def test_every_reference_sample_scores_as_the_reference_scores_it(name: str) -> None:
    check_samples(name, quick=False)


def test_every_variant_has_its_reference_samples() -> None:
    """20 contents and controls per variant, drawn by the reference's spaces; none of them crashed it."""
    for name in names():
        doc = golden(name)
        assert doc["variant"] == name and len(doc["contents"]) == len(doc["controls"]) == len(doc["items"]) == 20
    assert isinstance(golden("talakat-v0")["controls"][0]["bullets"], list)
    assert all(set(row) <= {0, 1} for row in golden("arcade-v0")["controls"][0])


@pytest.mark.parametrize("name", ["talakat-v0", "talakat-long-v0", "arcade-v0", "arcade-wide-v0"])
def test_eval_lines_in_the_benchmarks_own_json(name: str) -> None:
    """What `pcg pcgbench eval` reads: the reference's own control format is scored, not refused."""
    doc = golden(name)
    lines = [
        json.dumps({"content": c, "control": k}) for c, k in zip(doc["contents"][:2], doc["controls"][:2], strict=True)
    ]
    *records, summary = evaluate_lines(get_problem(name), lines)
    for record, ref in zip(records, doc["items"][:2], strict=True):  # the two lines above
        assert record["valid"], record["reason"]
        assert math.isclose(record["controllability"], ref["controllability"], rel_tol=0, abs_tol=TOL)
    assert summary["diversity"] is not None


def refusal_allowed(name: str, ref: dict[str, Any]) -> bool:
    return "error" in ref or "diversity_error" in ref or name.startswith(REFUSED_EXTRA)


def check_longer(name: str, content: Any, control: Any, ref: dict[str, Any], base: dict[str, Any] | None) -> None:
    """A content with extra length: scored as the reference scores it, or refused where the reference fails."""
    ev = evaluate_item(get_problem(name), content, control)
    if not ev["valid"]:
        assert refusal_allowed(name, ref), f"{name}: the reference scores it, we refused: {ev['reason']}"
        return
    assert "diversity_error" not in ref and not name.startswith(REFUSED_EXTRA), f"{name}: we score it"
    check_item(name, content, control, ref)
    if base is not None and "diversity_from" in ref:
        assert close(get_problem(name).diversity(base, ev["info"]), ref["diversity_from"]), name
        assert close(get_problem(name).diversity(ev["info"], ev["info"]), ref["diversity_self"]), name


def check_extended(name: str) -> None:
    doc = golden(name)
    for ref in doc["extended"]:
        assert ref["sampled"], (name, ref["kind"])  # the benchmark's content space accepts it
        base = evaluate_item(get_problem(name), doc["contents"][ref["from"]])["info"]
        check_longer(name, ref["content"], doc["controls"][ref["from"]], ref, base)


@pytest.mark.parametrize("name", [n for n in names() if not n.startswith("arcade")])
def test_extra_length_is_scored_as_the_reference_scores_it(name: str) -> None:
    check_extended(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in names() if n.startswith("arcade")])
def test_extra_length_is_scored_as_the_reference_scores_it_arcade(name: str) -> None:
    check_extended(name)


def readme_cases() -> list:
    """(variant, problem index); the larger arcade variants (three games per content) run under `slow`."""
    slow = ("arcade-wide-v0", "arcade-large-v0")
    return [
        pytest.param(name, i, marks=[pytest.mark.slow] if name in slow else [])
        for i, problem in enumerate(readme()["problems"])
        for name in problem["variants"]
    ]


@pytest.mark.parametrize(("name", "problem"), readme_cases())
def test_readme_examples_are_scored_where_the_benchmark_scores_them(name: str, problem: int) -> None:
    """Each README content (and its extra-length forms, and contents of ours that make the reference fail) on
    every variant of its problem: refused where the benchmark's space refuses it, else scored as the reference
    scores it, with each README control, or refused by name where the reference raises."""
    doc = readme()["problems"][problem]
    base = None
    for (label, content), ref in zip(doc["contents"], doc["variants"][name], strict=True):
        ev = evaluate_item(get_problem(name), content)
        if not ref["sampled"]:
            assert not ev["valid"], (name, label)
            continue
        if label == "readme":
            info = check_item(name, content, None, ref)
            base = info
            for control, want in zip(doc["controls"], ref.get("controllability", []), strict=True):
                ours = evaluate_item(get_problem(name), content, control)
                if isinstance(want, str):  # the reference raised (mdungeons' README control misspells a key)
                    assert not ours["valid"], (name, control)
                else:
                    assert ours["valid"] and math.isclose(ours["controllability"], want, abs_tol=TOL), (name, control)
        else:
            check_longer(name, content, None, ref, base if label.startswith("readme ") else None)


def test_no_readme_example_is_lost_to_a_size_check() -> None:
    """Every README content the benchmark's space accepts and scores on a variant is scored there (the issue's
    cases: elimination-v0's on elimination-easy-v0, talakat-v0's on talakat-simple-v0, quality 0.895)."""
    scored = 0
    for problem in readme()["problems"]:
        (_label, content), *_ = problem["contents"]
        for name, (ref, *_) in problem["variants"].items():
            if ref["sampled"] and "error" not in ref:
                assert evaluate_item(get_problem(name), content)["valid"], name
                scored += 1
    assert scored == 23
    talakat = next(p for p in readme()["problems"] if "talakat-simple-v0" in p["variants"])
    ev = evaluate_item(get_problem("talakat-simple-v0"), talakat["contents"][0][1], {"bullets": [10, 20, 40, 70, 100]})
    assert round(ev["quality"], 3) == 0.895
