"""The typed results document: an exact round trip (keys, order, values), this version's own key order for a
document built in code, foreign schemas refused, and the file read and written in one place."""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.errors import ResultsError
from pcg_plugin.problems.science_birds import results
from pcg_plugin.problems.science_birds.results import ERROR_REASON, Part, Results

# -- documents as the plugin writes them (docs/results-schema.md), drawn independently of the type ---------------

names = st.text('aé"/:_0 ', min_size=1, max_size=6)
decimals = st.decimals(min_value=0, max_value=200, places=20).map(lambda d: format(d, "f"))
floats = st.floats(allow_nan=False, allow_infinity=False)
maybe = st.none().__or__
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | floats | names,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=8,
)
letters = st.lists(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), min_size=1, max_size=3, unique=True)


@st.composite
def trials(draw: Any, number: int) -> dict[str, Any]:
    errored = draw(st.booleans())
    row = {
        "trial": number,
        "nodeid": draw(names),
        "sta": draw(maybe(floats)),
        "sim": draw(maybe(floats)),
        "total_blocks": draw(maybe(st.integers(0, 99))),
        "moving_blocks": draw(maybe(st.integers(0, 99))),
        "top": draw(maybe(st.sampled_from("AZ"))),
        "reason": ERROR_REASON if errored else draw(maybe(names)),
        "message": draw(maybe(names)),
        "raw": draw(maybe(names)),
        "code": draw(maybe(names)),
        "level": draw(maybe(names)),
        "image": draw(maybe(names)),
        "probs": draw(maybe(st.lists(floats, max_size=4))),
        "timings": draw(st.dictionaries(names, floats, max_size=2)),
    }
    if not errored:  # an errored item has no record, hence no seed
        row["seed"] = draw(st.integers(0, 2**31 - 1))
    row["trial_score"] = draw(decimals)
    return row


@st.composite
def letter_docs(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(0, 3))
    return {
        "char_score": draw(decimals),
        "sta_mean": draw(decimals),
        "sim_mean": draw(decimals),
        "diversity": draw(decimals),
        "trials": [draw(trials(t)) for t in range(1, n + 1)],
    }


def in_order(**parts: Any) -> Any:
    """An object whose keys come in the order given (st.fixed_dictionaries does not keep it)."""
    keys = list(parts)
    return st.tuples(*parts.values()).map(lambda values: dict(zip(keys, values, strict=True)))


usage = in_order(
    prompt_tokens=st.integers(0),
    completion_tokens=st.integers(0),
    calls=st.integers(0),
    replayed_calls=st.integers(0),
    cost_usd=maybe(floats),
)
weights = in_order(weight=decimals, w_sta=decimals, w_sim=decimals, w_div=decimals)


@st.composite
def documents(draw: Any) -> dict[str, Any]:
    """A whole document: one model, or several (``per_model``, ``settings.models``, empty letters and weights)."""
    run_letters = draw(letters)
    several = draw(st.booleans())
    models = draw(st.lists(names, min_size=1, max_size=2, unique=True)) if several else []
    per_letter = in_order(**{c: letter_docs() for c in run_letters})
    subs = []
    for name in draw(st.lists(names, max_size=3, unique=True)):
        subs.append(
            {
                "name": name,
                "team": draw(names),
                "format": draw(st.sampled_from(["program-2024", "prompt-2023"])),
                "path": draw(maybe(names)),
                "files_hash": draw(maybe(names)),
                "prompt_length": draw(maybe(st.integers(0))),
                "prompt_score": draw(decimals),
                "normalized_score": draw(decimals),
                "rank": draw(maybe(st.integers(1, 9))),
                "usage": draw(usage),
                "letters": {} if several else draw(per_letter),
            }
        )
    settings_doc = {
        "edition": draw(st.sampled_from(["2023", "2024", "2025"])),
        "letters": run_letters,
        "trials": draw(st.integers(1, 10)),
        "backend": draw(names),
        "offline_default": draw(st.booleans()),
        "model": ",".join(models) or draw(maybe(names)),
        "base_url": draw(maybe(names)),
        "temperature": draw(maybe(floats)),
        "seed_policy": draw(maybe(names)),
        "max_time": draw(maybe(st.integers(1))),
        "token_limit": draw(maybe(st.integers(1))),
        "record_mode": draw(names),
        "classifier": draw(json_values),
        "physics": draw(json_values),
        "diversity_vector": draw(names),
        "disable_weights": draw(st.booleans()),
        "tie_break": draw(maybe(names)),
        "constrained_decoding": draw(maybe(names)),
        "unmodified_response": draw(maybe(st.sampled_from(["zero", "off"]))),
        "notes": draw(st.lists(names, max_size=2)),
    }
    if several:
        settings_doc["models"] = models
    per_model = None
    if several:
        per_model = {
            m: {
                "competition_score": draw(decimals),
                "weights": {c: draw(weights) for c in run_letters},
                "submissions": {
                    s["name"]: {
                        "prompt_score": draw(decimals),
                        "normalized_score": draw(decimals),
                        "model_normalized_score": draw(decimals),
                        "rank": draw(st.integers(1, 9)),
                        "usage": draw(usage),
                        "letters": draw(per_letter),
                    }
                    for s in subs
                },
            }
            for m in models
        }
    folders = [
        {
            "folder": draw(names),
            "status": draw(st.sampled_from(["submission", "error", "skipped"])),
            "format": draw(names),
            "entry": draw(names),
            "workdir": ".",
            "requirements": "",
            "rules": "pass",
            "message": draw(names),
            "environment": draw(names),
        }
        for _ in range(draw(st.integers(0, 2)))
    ]
    return {
        "schema": results.SCHEMA,
        "run": {"id": draw(names), "started": draw(names), "finished": draw(names), "out_dir": draw(names)},
        "settings": settings_doc,
        "provenance": {
            "git_sha": draw(maybe(names)),
            "versions": draw(st.dictionaries(names, names, max_size=3)),
            "platform": draw(names),
        },
        "competition_score": draw(decimals),
        "weights": {} if several else {c: draw(weights) for c in run_letters},
        "submissions": subs,
        "per_model": per_model,
        "workers": draw(st.dictionaries(names, json_values, max_size=2)),
        "folders": folders,
        "folder_errors": draw(st.dictionaries(names, names, max_size=2)),
    }


@st.composite
def reshaped(draw: Any, doc: Any) -> Any:
    """``doc`` as another version might have written it: some objects' keys reordered, some dropped, unknown
    keys added (the round trip must keep all of it exactly)."""
    if isinstance(doc, list):
        return [draw(reshaped(v)) for v in doc]
    if not isinstance(doc, dict):
        return doc
    keys = list(doc)
    if draw(st.booleans()):
        keys = [k for k in keys if draw(st.integers(0, 5))]  # about one key in six dropped
    if draw(st.booleans()):
        keys = draw(st.permutations(keys))
    out = {k: draw(reshaped(doc[k])) for k in keys}
    unknown = st.dictionaries(names, json_values, max_size=2)  # an object: it may land in a mapping of parts
    for key, value in draw(
        st.dictionaries(st.text("xyz_", min_size=1, max_size=4).map("new_".__add__), unknown, max_size=2)
    ).items():
        out[key] = value
    return out


def text(doc: dict[str, Any]) -> str:
    """The exact bytes results.json would hold (key order included: dict equality ignores it)."""
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def built_in_code(part: Any) -> Any:
    """The same document with every part's ``layout`` forgotten: what the aggregator builds."""
    if isinstance(part, Part):
        changes = {f.name: built_in_code(getattr(part, f.name)) for f in fields(part) if f.name != "layout"}  # type: ignore[arg-type]
        return replace(part, **changes, layout=None)  # type: ignore[type-var]
    if isinstance(part, tuple):
        return tuple(built_in_code(p) for p in part)
    if isinstance(part, dict) and any(isinstance(v, Part) for v in part.values()):
        return {k: built_in_code(v) for k, v in part.items()}
    return part


# -- round trip ---------------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(documents())
def test_written_documents_round_trip_exactly_and_in_this_versions_order(doc: dict[str, Any]) -> None:
    typed = Results.from_dict(doc)
    assert results.dumps(typed) == text(doc)
    rebuilt = built_in_code(typed)
    assert rebuilt == typed and results.dumps(rebuilt) == text(doc)  # the order the aggregator writes = the schema's


@settings(max_examples=40, deadline=None)
@given(documents().flatmap(reshaped))
def test_any_document_round_trips_exactly(doc: dict[str, Any]) -> None:
    assert results.dumps(Results.from_dict(doc)) == text(doc)


def test_attributes_read_what_the_keys_hold() -> None:
    doc = {
        "schema": results.SCHEMA,
        "settings": {"letters": ["A"], "classifier": {"name": "vit", "digest": "d"}},
        "submissions": [
            {
                "name": "x",
                "rank": 1,
                "usage": {"calls": 2},
                "letters": {"A": {"char_score": "0.5", "trials": [{"trial": 1, "reason": "error"}]}},
            }
        ],
    }
    typed = Results.from_dict(doc)
    assert typed.settings.letters == ("A",) and typed.settings.classifier_name == "vit"
    assert typed.settings.classifier_digest == "d" and typed.settings.physics_digest is None
    (sub,) = typed.submissions
    assert sub.usage.calls == 2 and sub.usage.prompt_tokens == 0  # absent: its default, and not written back
    assert sub.letters["A"].trials[0].errored and typed.per_model is None
    assert typed.model_letters("x") == [(None, sub.letters)]
    assert Results.from_dict(doc).to_dict() == doc


def test_a_part_changed_in_code_writes_its_new_key() -> None:
    trial = Results.from_dict({"submissions": [{"letters": {"A": {"trials": [{"trial": 1}]}}}]}).submissions[0]
    row = trial.letters["A"].trials[0]
    assert replace(row, seed=7).to_dict() == {"trial": 1, "seed": 7}


# -- refusals -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("schema", ["pytest-pcg/results/2", "pytest-pcg/baseline/1", None])
def test_another_schema_is_refused_by_name(schema: str | None) -> None:
    with pytest.raises(ResultsError, match=f"its schema is {schema!r}"):
        Results.from_dict({"schema": schema, "submissions": []})


def test_a_malformed_part_is_named() -> None:
    with pytest.raises(ResultsError, match=r"results.submissions\[0\].letters.A.trials is a str, not a list"):
        Results.from_dict({"submissions": [{"letters": {"A": {"trials": "1,2"}}}]})
    with pytest.raises(ResultsError, match="the document is a list, not an object"):
        Results.from_dict([])


# -- the file -----------------------------------------------------------------------------------------------------


def test_read_and_write_the_file(tmp_path: Path) -> None:
    doc = Results.from_dict({"schema": results.SCHEMA, "competition_score": "1.5", "settings": {"notes": ["é"]}})
    path = results.write(tmp_path / "run" / results.FILE, doc)
    assert path.read_text(encoding="utf-8") == results.dumps(doc) and "é" in path.read_text(encoding="utf-8")
    assert results.read(tmp_path / "run") == doc == results.read(path)
    assert not list(tmp_path.rglob(".tmp-*"))  # written whole, through a temporary that is gone
    (tmp_path / "bad.json").write_text('{"schema": "other/1"}')
    with pytest.raises(ResultsError, match=r"bad.json: not a pytest-pcg/results/1 document"):
        results.read(tmp_path / "bad.json")
    with pytest.raises(ResultsError, match="cannot read"):
        results.read(tmp_path / "missing.json")


def test_every_part_is_frozen() -> None:
    doc = Results.from_dict({"submissions": [{"name": "x"}]})
    assert all(is_dataclass(p) for p in (doc, doc.submissions[0], doc.settings, doc.run))
    with pytest.raises(AttributeError):
        doc.submissions[0].name = "y"  # type: ignore[misc]
