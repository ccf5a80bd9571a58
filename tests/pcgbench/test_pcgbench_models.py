"""Several models in one PCG Benchmark run (issue 51): each model a level of the items, each row a submission x
model ranked across every row and within its model, every model's figures those of a run of that model alone,
and a rerun that replays the store and asks neither model anything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent

# Two scripted models: ``good`` answers as the grid double does (the README maze and its mirrors), ``bad`` walks
# through valid, no block, a short row and a tile out of range by trial. Every call is logged, so a rerun that
# asks nothing is seen.
TWO_GRIDS = """
from pathlib import Path

import grid_double


def _log(which):
    with Path("calls.log").open("a") as log:
        log.write(which + "\\n")


def good(messages, n=1):
    _log("good")
    return grid_double.respond(messages, n)


def bad(messages, n=1):
    _log("bad")
    last = {**messages[-1], "content": messages[-1]["content"] + " MODE=cycle"}
    return grid_double.respond([*messages[:-1], last], n)
"""
MODELS = ("scripted/two_grids:good", "scripted/two_grids:bad")
PROGRAM = """
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop


class Entry(TrialLoop):
    @staticmethod
    def run(ctx, task):
        return chat_with_llm(ctx, [{"role": "user", "content": f"{task} TRIAL={ctx.get_trial_number()}"}])[0]
"""
FIGURES = ("score", "feasible", "controlled", "unique", "diversity_all", "zero_reasons", "errored_trials")


@pytest.fixture
def grids(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    shutil.copy(HERE / "grid_double.py", pytester.path / "grid_double.py")
    (pytester.path / "two_grids.py").write_text(TWO_GRIDS)
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    (pytester.path / "subs" / "program").mkdir(parents=True)
    (pytester.path / "subs" / "program" / "entry.py").write_text(PROGRAM)
    (pytester.path / "subs" / "prompt").mkdir()
    (pytester.path / "subs" / "prompt" / "prompt.txt").write_text("Level for <PROBLEM> with <CONTROL>.")
    return pytester


def run(grids: pytest.Pytester, out: str, models: str, store: str, *extra: str) -> tuple[dict[str, Any], str]:
    result = grids.runpytest_inprocess(
        "subs",
        "--pcg-problem",
        "pcgbench/binary-v0",
        "--pcg-model",
        models,
        "--pcg-grid-instances",
        "1",
        "--pcg-trials",
        "3",
        "--pcg-out",
        out,
        "--pcg-store",
        store,
        "-p",
        "no:cacheprovider",
        *extra,
    )
    assert result.ret == 0, result.stdout.str()
    return json.loads((grids.path / out / "results.json").read_text()), result.stdout.str()


def calls(grids: pytest.Pytester) -> list[str]:
    return (grids.path / "calls.log").read_text().split()


def test_two_models_in_one_run_rank_per_model_as_two_runs_of_one_and_replay(grids: pytest.Pytester) -> None:
    both, out = run(grids, "both", ",".join(MODELS), "store")
    assert both["models"] == list(MODELS)
    asked = calls(grids)
    assert sorted(asked) == ["bad"] * 6 + ["good"] * 6  # 2 submissions x 1 instance x 3 trials, per model
    rows = both["submissions"]
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)  # best first, across every row
    for row in rows:
        assert row["key"] == f"{row['name']} @ {row['model']}"
        assert "rank_interval" in row
    # good: the program's mirrored mazes keep 2 of 3 trials, the prompt (no trial marker) the same maze 3 times;
    # bad: one valid maze of 3 for either; ranked across every row (ties share) and within each model
    assert [(r["name"], r["model"], r["score"], r["rank"], r["rank_in_model"]) for r in rows] == [
        ("program", MODELS[0], 2 / 3, 1, 1),
        ("program", MODELS[1], 1 / 3, 2, 1),
        ("prompt", MODELS[0], 1 / 3, 2, 2),
        ("prompt", MODELS[1], 1 / 3, 2, 1),
    ]
    assert "program scripted/two_grids:good (#" in out and "of its model)" in out
    report = (grids.path / "both" / "report.html").read_text()
    assert "rank in model" in report and "prompt @ scripted/two_grids:bad" in report
    trials = {(r["name"], r["model"]): [t["response"] for i in r["instances"] for t in i["trials"]] for r in rows}
    assert len({p for ps in trials.values() for p in ps}) == 12  # each model's responses kept apart

    for model in MODELS:
        alone, _ = run(grids, model.split(":")[-1], model, "store-" + model.split(":")[-1])
        assert alone["models"] == [model]
        for sub in alone["submissions"]:
            mine = next(r for r in rows if (r["name"], r["model"]) == (sub["name"], model))
            assert {k: mine[k] for k in FIGURES} == {k: sub[k] for k in FIGURES}
            assert mine["rank_in_model"] == sub["rank"] == sub["rank_in_model"]
            keep = ("reason", "quality", "controllability", "feasible", "controlled", "unique", "content")
            assert [[{k: t.get(k) for k in keep} for t in i["trials"]] for i in mine["instances"]] == [
                [{k: t.get(k) for k in keep} for t in i["trials"]] for i in sub["instances"]
            ]
    singles = calls(grids)
    assert len(singles) == 2 * len(asked)  # each single run asked its own store

    again, _ = run(grids, "again", ",".join(MODELS), "store")
    assert calls(grids) == singles  # the rerun replayed every answer
    assert [(r["key"], r["rank"], r["rank_in_model"], r["score"]) for r in again["submissions"]] == [
        (r["key"], r["rank"], r["rank_in_model"], r["score"]) for r in rows
    ]


def test_one_model_selected_with_k(grids: pytest.Pytester) -> None:
    result = grids.runpytest_inprocess(
        "subs", "--pcg-problem", "pcgbench/binary-v0", "--pcg-model", ",".join(MODELS), "--pcg-grid-instances", "1",
        "--pcg-trials", "1", "--co", "-q", "-k", "model_scripted/two_grids:bad", "-p", "no:cacheprovider",
    )  # fmt: skip
    ids = [line for line in result.stdout.lines if "::" in line]
    assert len(ids) == 2 and all("::scripted/two_grids:bad::" in i for i in ids), result.stdout.str()
