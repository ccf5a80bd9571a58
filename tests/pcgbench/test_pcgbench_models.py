"""Several models in one PCG Benchmark run (issue 51): each model a level of the items, each row a submission x
model ranked across every row and within its model, every model's figures those of a run of that model alone,
and a rerun that replays the store and asks neither model anything."""

from __future__ import annotations

import json
import re
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


ARGS = ("subs", "--pcg-problem", "pcgbench/binary-v0", "--pcg-grid-instances", "1", "--pcg-trials", "3",
        "-p", "no:cacheprovider")  # fmt: skip


def run(grids: pytest.Pytester, out: str, models: str, store: str, *extra: str) -> tuple[dict[str, Any], str]:
    result = grids.runpytest_inprocess(*ARGS, "--pcg-model", models, "--pcg-out", out, "--pcg-store", store, *extra)
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
    assert "pcg: 2 models, one item level each (-k model_<name> selects one), each scored alone" in out
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


BAD_ALWAYS = TWO_GRIDS.replace('+ " MODE=cycle"', '+ " MODE=noblock"')  # the same model name, now worse


def test_export_card_compare_and_gate_keep_one_row_per_submission_and_model(grids: pytest.Pytester) -> None:
    """What a user reads back from a run of two models: the CSV, the model card and the comparison have a row
    per submission x model (never one row of two models' trials); the gate compares each model with the
    baseline's same model, and refuses a baseline of other models naming each one."""
    from pcg_plugin.core.results import card, compare, compare_page, export

    both, _ = run(grids, "both", ",".join(MODELS), "store", "--pcg-save-baseline", "base.json")
    rows = {r["key"]: r for r in both["submissions"]}

    csv_rows = list(__import__("csv").DictReader(export.csv_text(export.suite_rows(grids.path / "both")).splitlines()))
    per_row = {(r["submission"], r["model"]) for r in csv_rows}
    assert per_row == {(r["name"], r["model"]) for r in rows.values()} and len(csv_rows) == 12
    for r in rows.values():  # each row's trials are its model's: their scores make its score
        mine = [float(c["score"]) for c in csv_rows if (c["submission"], c["model"]) == (r["name"], r["model"])]
        assert sum(mine) / len(mine) == pytest.approx(r["score"])

    c = card.card(card.runs_in([grids.path / "both"]), reps=20)
    assert sorted((ln.submission, ln.model, ln.score, ln.rank) for ln in c.lines) == sorted(
        (r["name"], r["model"], r["score"], r["rank"]) for r in rows.values()
    )
    assert all(ln.trials == 3 for ln in c.lines)  # each line its model's 3 trials, not both models' 6
    table = card.markdown(c)
    assert all(f"| {r['name']} | {r['model']} |" in table for r in rows.values())

    from pcg_plugin.core.views.site import build
    from pcg_plugin.core.views.site.pages import board_path

    build([grids.path / "both"], grids.path / "site", resamples=20)
    board = (grids.path / "site" / board_path("pcgbench/binary-v0")).read_text()
    for r in rows.values():  # the board: a row per submission x model
        assert re.search(rf"<td[^>]*>{r['name']}</td>\s*<td[^>]*>{re.escape(r['model'])}</td>", board), board

    _, out = run(grids, "again", ",".join(MODELS), "store", "--pcg-baseline", "base.json")
    assert "0 regression(s)" in out and all(f"{key} " in out for key in rows)  # each row gated against its own
    (found,), _, _ = compare.compare_paths(grids.path / "both", grids.path / "again", reps=20)
    assert sorted((p.submission, p.model, p.a) for p in found.pairs) == sorted(
        (r["name"], r["model"], r["score"]) for r in rows.values()
    )
    assert all(len(p.targets) == 1 for p in found.pairs) and not found.unlike
    page = compare_page.render([found], grids.path)
    assert all(f"{r['name']} ({r['model']})" in page for r in rows.values())

    (grids.path / "two_grids.py").write_text(BAD_ALWAYS)
    worse = grids.runpytest_inprocess(*ARGS, "--pcg-model", ",".join(MODELS), "--pcg-out", "worse",
                                      "--pcg-store", "store-worse", "--pcg-baseline", "base.json")  # fmt: skip
    assert worse.ret == pytest.ExitCode.TESTS_FAILED
    failed = [line for line in worse.stdout.lines if line.rstrip().endswith("regressed")]
    # bad's rows (each gated against bad's in the baseline) regressed; good's, unchanged, did not
    assert sorted(line.split()[0:3] for line in failed) == [[n, "@", MODELS[1]] for n in ("program", "prompt")]

    one = grids.runpytest_inprocess(*ARGS, "--pcg-model", MODELS[0], "--pcg-out", "one", "--pcg-baseline", "base.json")
    assert one.ret == pytest.ExitCode.USAGE_ERROR
    one.stdout.fnmatch_lines([f"*the baseline's model {MODELS[1]} is not in this run*"])
    grids.runpytest_inprocess(*ARGS, "--pcg-model", MODELS[0], "--pcg-out", "single", "--pcg-save-baseline", "one.json")
    other = grids.runpytest_inprocess(
        *ARGS, "--pcg-model", ",".join(MODELS), "--pcg-out", "other", "--pcg-baseline", "one.json"
    )
    assert other.ret == pytest.ExitCode.USAGE_ERROR
    other.stdout.fnmatch_lines([f"*model {MODELS[1]} is not in the baseline (its models: {MODELS[0]})*"])
