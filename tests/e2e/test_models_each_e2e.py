"""Several models in an edition that ran one (2024): nothing combines them, so each model is scored alone by the
official scorer, one row per submission x model ranked across every row and within its model (issue 51).

Each model's figures in the run of two must be those of a run of that model alone (its own store, so that the
single run asks its model again), and a rerun of the two must replay every answer and ask neither model."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from e2e_support import TINY_CLASSIFIER, VARIED_BODY, load_results, program, rescore_run_folder, write_competition

# ``first`` is the scripted double; ``second`` draws the next glyph variant and refuses team_b's trial 1, so the
# models' figures differ. Every call is logged: a rerun that asks nothing is seen.
TWO_LLMS = """
from pathlib import Path

import scripted_llm


def _log(which):
    with Path("calls.log").open("a") as log:
        log.write(which + "\\n")


def first(messages, n=1):
    _log("first")
    return scripted_llm.respond(messages, n)


def second(messages, n=1):
    _log("second")
    text = messages[-1]["content"]
    if "TEAM=b" in text and "TRIAL=1" in text:
        return ["I cannot draw that letter, sorry."] * n
    for k in range(9, -1, -1):
        text = text.replace(f"TRIAL={k}", f"TRIAL={k + 1}")
    return scripted_llm.respond([*messages[:-1], {**messages[-1], "content": text}], n)
"""
MODELS = ("scripted/two_llms:first", "scripted/two_llms:second")
FIGURES = ("prompt_score", "normalized_score")


@pytest.fixture
def two_teams(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tiny_classifier: Path) -> pytest.Pytester:
    shutil.copytree(tiny_classifier, pytester.path / TINY_CLASSIFIER)
    entries = {"team_a": {"entry.py": program(VARIED_BODY)}, "team_b": {"entry.py": program(VARIED_BODY, "TEAM=b")}}
    write_competition(pytester.path, entries)
    (pytester.path / "two_llms.py").write_text(TWO_LLMS)
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return pytester


def run(root: pytest.Pytester, out: str, models: str, store: str, *extra: str) -> tuple[dict[str, Any], str]:
    result = root.runpytest_inprocess(*argv(out, models, store, *extra))
    assert result.ret == 0, result.stdout.str()
    return load_results(root.path, out), result.stdout.str()


def argv(out: str, models: str, store: str, *extra: str) -> tuple[str, ...]:
    return (
        "submissions",
        "--pcg-edition",
        "2024",
        "--pcg-model",
        models,
        "--pcg-letters",
        "I",
        "--pcg-trials",
        "2",
        "--pcg-classifier",
        str(TINY_CLASSIFIER),
        "--pcg-out",
        out,
        "--pcg-store",
        store,
        "-p",
        "no:cacheprovider",
        *extra,
    )


def calls(root: pytest.Pytester) -> list[str]:
    return (root.path / "calls.log").read_text().split()


def letters(row: dict[str, Any]) -> dict[str, Any]:
    return {c: (v["char_score"], [t.get("trial_score") for t in v["trials"]]) for c, v in row["letters"].items()}


def test_2024_with_two_models_ranks_each_model_as_a_run_of_it_alone(two_teams: pytest.Pytester) -> None:
    both, out = run(two_teams, "both", ",".join(MODELS), "store", "--pcg-save-baseline", "base.json")
    assert sorted(calls(two_teams)) == ["first"] * 4 + ["second"] * 4  # 2 teams x 1 letter x 2 trials, per model
    assert "the 2024 edition ran one model, so each model is scored alone by the official scorer" in out
    assert "UNOFFICIAL RUN" in out
    assert both["models"] == list(MODELS) and "model_rule" not in both
    rows = both["submissions"]
    assert sorted((r["name"], r["model"]) for r in rows) == [("team_a", m) for m in MODELS] + [
        ("team_b", m) for m in MODELS
    ]
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    assert all(r["key"] == f"{r['name']} @ {r['model']}" and "rank_interval" in r for r in rows)
    assert "team_b @ scripted/two_llms:second (#2)" in out  # its refused trial ranks it last within its model
    report = (two_teams.path / "both" / "report.html").read_text()
    assert "rank in model" in report and "team_a @ scripted/two_llms:second" in report

    for model in MODELS:
        alone, _ = run(two_teams, model.split(":")[-1], model, "store-" + model.split(":")[-1])
        part = both["per_model"][model]
        assert (part["competition_score"], part["weights"]) == (alone["competition_score"], alone["weights"])
        for sub in alone["submissions"]:
            mine = next(r for r in rows if (r["name"], r["model"]) == (sub["name"], model))
            assert {k: mine[k] for k in FIGURES} == {k: sub[k] for k in FIGURES}
            assert mine["rank_in_model"] == sub["rank"] == part["submissions"][sub["name"]]["rank"]
            assert letters(mine) == letters(sub)
    b_second = next(r for r in rows if r["key"] == "team_b @ scripted/two_llms:second")
    assert [t["reason"] for t in b_second["letters"]["I"]["trials"]] == ["no_code", None]
    asked = calls(two_teams)
    assert len(asked) == 16  # each single run asked its own store

    again, out = run(two_teams, "again", ",".join(MODELS), "store", "--pcg-baseline", "base.json")
    assert calls(two_teams) == asked  # the rerun replayed every answer
    assert "no score changed" in out and "0 regressions" in out  # each row gated against its own model's
    keep = ("key", "rank", "rank_in_model", "prompt_score", "normalized_score")
    assert [{k: r[k] for k in keep} for r in again["submissions"]] == [{k: r[k] for k in keep} for r in rows]
    for model, part in again["per_model"].items():
        assert (part["competition_score"], part["weights"]) == (
            both["per_model"][model]["competition_score"],
            both["per_model"][model]["weights"],
        )

    # `pcg score` on the run folder: each model's official tree scored alone gives that model's figures
    text = rescore_run_folder(two_teams.path / "both")["text"]
    for model in MODELS:
        part = text.split(f"model {model} (scored alone")[1].split("wrote")[0]
        assert f"competition score {both['per_model'][model]['competition_score']}" in part
        for name, sub in both["per_model"][model]["submissions"].items():
            assert re.search(rf"^\s*{sub['rank']}  {name}\s+\S+  {re.escape(sub['prompt_score'])}$", part, re.M)

    # a baseline of other models is refused, naming the model
    alone = two_teams.runpytest_inprocess(*argv("one", MODELS[0], "store", "--pcg-baseline", "base.json"))
    assert alone.ret == pytest.ExitCode.USAGE_ERROR, alone.stdout.str()
    alone.stdout.fnmatch_lines([f"*the baseline's model {MODELS[1]} is not in this run*"])

    # the second model gets worse for team_a (no code in trial 2 now): only its rows of that model regress
    (two_teams.path / "two_llms.py").write_text(TWO_LLMS.replace("if ", 'if "TRIAL=2" in text or ', 1))
    worse = two_teams.runpytest_inprocess(
        *argv("worse", ",".join(MODELS), "store-worse", "--pcg-baseline", "base.json")
    )
    assert worse.ret == pytest.ExitCode.TESTS_FAILED, worse.stdout.str()
    regressed = {line.split("  ")[0] for line in worse.stdout.lines if line.rstrip().endswith("regressed")}
    assert regressed == {"team_a @ scripted/two_llms:second"}  # the first model's rows, unchanged, pass
    assert (two_teams.path / "worse" / "compare.html").is_file()
    from pcg_plugin.core.results.compare import compare_paths

    (found,), _, _ = compare_paths(two_teams.path / "both", two_teams.path / "worse", reps=20)
    assert sorted((p.submission, p.model, p.a) for p in found.pairs) == sorted(
        (r["name"], r["model"], float(r["normalized_score"])) for r in rows
    )
    fell = next(p for p in found.pairs if (p.submission, p.model) == ("team_a", MODELS[1]))
    assert fell.b == 0 and fell.why_a is None and "diversity 0" in (fell.why_b or "")  # its own row's cause
