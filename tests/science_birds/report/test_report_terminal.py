"""Terminal text: the header says loudly when the offline default LLM runs; the table ranks submissions."""

from __future__ import annotations

import json

from pcg_plugin.problems.science_birds.report.terminal import header_lines, ranking_table, reason_counts, summary_lines
from pcg_plugin.problems.science_birds.results import Results
from pcg_plugin.problems.science_birds.settings import resolve


def test_header_flags_the_offline_default(tmp_path):
    lines = header_lines(resolve({}, rootdir=tmp_path, env={}))
    text = "\n".join(lines)
    assert "OFFLINE DEFAULT" in text and "I,L," in text and "run folder" not in text  # said once items exist
    assert "pcg: model SmolLM2-135M-Instruct" in text
    assert "pcg: constrained decoding: answers are generated under the drop_block grammar" in text
    lines = header_lines(resolve({}, rootdir=tmp_path, env={"OPENAI_API_KEY": "k"}))
    assert "OFFLINE" not in "\n".join(lines) and "constrained" not in "\n".join(lines)


def test_header_names_the_classifier_that_really_runs(tmp_path):
    """Without --pcg-classifier the embedded approximation runs (classify._resolve), never the official ViT."""
    from pcg_plugin.problems.science_birds.classify.hf import OFFICIAL_MODEL_ID, _resolve

    default = next(ln for ln in header_lines(resolve({}, rootdir=tmp_path, env={})) if "classifier" in ln)
    assert _resolve(None)[1].startswith("pcg-letters") and "pcg-letters (embedded approximation" in default
    assert OFFICIAL_MODEL_ID in default  # says how to get official similarity
    chosen = header_lines(resolve({"pcg_classifier": OFFICIAL_MODEL_ID}, rootdir=tmp_path, env={}))
    assert f"pcg: classifier {OFFICIAL_MODEL_ID} on auto" in "\n".join(chosen)


SUBS = [
    {
        "name": "b",
        "rank": 2,
        "normalized_score": "25.5",
        "prompt_score": "0.1",
        "letters": {"A": {"trials": [{"reason": None}, {"reason": "no_code"}]}},
    },
    {
        "name": "a",
        "rank": 1,
        "normalized_score": "74.5",
        "prompt_score": "0.3",
        "letters": {"A": {"trials": [{"reason": "error"}, {"reason": "no_code"}]}},
    },
]


DOC = {"submissions": SUBS, "competition_score": "0.4", "settings": {}}


def test_ranking_table_sorted_by_rank():
    lines = ranking_table(Results.from_dict(DOC).submissions)
    assert lines[0].split()[:3] == ["rank", "95%", "rank"]
    assert lines[1].split()[:4] == ["1", "-", "a", "74.5000"]  # no rank_interval in the document: "-"
    assert lines[2].split()[:4] == ["2", "-", "b", "25.5000"]
    assert lines[1].split()[-3:] == ["2", "1", "1"]  # trials, zero, errors


def test_ranking_table_shows_each_rank_interval():
    doc = json.loads(json.dumps(DOC))
    for sub in doc["submissions"]:
        sub["rank_interval"] = {"a": [1, 2], "b": [2, 2]}[sub["name"]]
    lines = ranking_table(Results.from_dict(doc).submissions)
    assert lines[1].split()[:3] == ["1", "1-2", "a"] and lines[2].split()[:3] == ["2", "2", "b"]


def test_summary_names_reasons_and_paths(tmp_path):
    lines = summary_lines(DOC, tmp_path, None)
    text = "\n".join(lines)
    assert "no_code: 2" in text and str(tmp_path / "results.json") in text
    assert reason_counts(Results.from_dict(DOC)) == {"no_code": 2}  # an errored trial is no zero of the team's
    assert "trials scored 0 (reason: count): no_code: 2" in lines and "trials that errored: 1 (ERROR" in text
    assert summary_lines(Results.from_dict(DOC), tmp_path, None) == lines  # the type or its JSON dict
    assert summary_lines(None, tmp_path, None, error="boom")[0].endswith("boom")


def test_preflight_only_for_paid_backends(tmp_path):
    from pcg_plugin.problems.science_birds.report.terminal import preflight_line

    ids = ["submissions/a::A::1", "submissions/a::B::1", "submissions/b::A::1", "tests/test_x.py::test_y"]
    paid = resolve({"pcg_trials": "1", "pcg_store": str(tmp_path)}, rootdir=tmp_path, env={"OPENAI_API_KEY": "k"})
    line = preflight_line(paid, ids)
    assert line is not None and "2 submissions x 2 letters x 1 trials" in line
    offline = resolve({"pcg_store": str(tmp_path)}, rootdir=tmp_path, env={})
    assert preflight_line(offline, ids) is None
    assert preflight_line(paid, ["tests/test_x.py::test_y"]) is None


def test_several_models_get_a_per_model_table_and_all_their_trials_counted(tmp_path):
    from pcg_plugin.problems.science_birds.report.terminal import per_model_table

    letters = {"A": {"trials": [{"reason": None}, {"reason": "no_code"}]}}
    per_model = {
        m: {
            "submissions": {
                n: {"normalized_score": v, "prompt_score": "0.1", "rank": r, "letters": letters}
                for n, v, r in (("a", "30", 1), ("b", "20", 2))
            }
        }
        for m in ("qwen2.5:32b", "phi3")
    }
    subs = [
        {"name": "a", "rank": 1, "normalized_score": "60", "prompt_score": "0.2", "letters": {}},
        {"name": "b", "rank": 2, "normalized_score": "40", "prompt_score": "0.2", "letters": {}},
    ]
    lines = summary_lines(
        {"submissions": subs, "per_model": per_model, "competition_score": "0.4", "settings": {}}, tmp_path, None
    )
    assert lines[1].split()[-3:] == ["4", "2", "0"]  # 2 models x 2 trials, one zero each
    table = per_model_table(Results.from_dict({"per_model": per_model}).per_model, ["a", "b"])
    assert table[1].split() == ["model", "submission", "normalized", "prompt", "score", "model", "rank"]
    assert table[2].split() == ["qwen2.5:32b", "a", "30.0000", "0.100000", "1"]
    assert table[5].split()[:2] == ["phi3", "b"] and "no_code: 4" in "\n".join(lines)


def test_preflight_once_per_model(tmp_path):
    from pcg_plugin.problems.science_birds.report.terminal import preflight_line

    ids = [f"submissions/a::{m}::{c}::1" for m in ("m:1", "m:2") for c in "AB"] + ["submissions/b::m:2::A::1"]
    paid = resolve(
        {"pcg_trials": "1", "pcg_store": str(tmp_path), "pcg_edition": "2025", "pcg_model": "m:1,m:2"},
        rootdir=tmp_path,
        env={"OPENAI_API_KEY": "k"},
    )
    lines = preflight_line(paid, ids).splitlines()
    assert "1 submissions x 2 letters x 1 trials" in lines[0] and lines[0].endswith(
        "m:1: unknown price (local or unlisted model)"
    )
    assert "2 submissions x 2 letters x 1 trials" in lines[1] and "on m:2:" in lines[1]
