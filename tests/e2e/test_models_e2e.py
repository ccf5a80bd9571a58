"""2025 in one run: three models through a loopback OpenAI-compatible server, scored per model and summed.

The expectation is ``scoring.score_models`` on the stage files of each model's official folder tree, read back
the way the official scorer reads them (``official_layout.read_layout``): none of the plugin's records->inputs
code is reused.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import loopback_llm
import pytest
from e2e_support import TINY_CLASSIFIER, assert_rescore_equals_results, load_results

MODELS = ("qwen2.5:32b-instruct-fp16", "gemma2:27b-instruct-fp16", "phi3:14b-medium-128k-instruct-fp16")
FOLDERS = ("qwen2.5_32b-instruct-fp16", "gemma2_27b-instruct-fp16", "phi3_14b-medium-128k-instruct-fp16")
LETTERS, TRIALS = ("I", "L"), 2

PROGRAM_2025 = """
from llms4pcg.competition import TrialContext, TrialLoop, chat_with_llm


class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        message = f"TEAM={ctx.get_team_name()} TARGET={target_character} TRIAL={ctx.get_trial_number() + SHIFT}"
        return chat_with_llm(ctx, [{"role": "user", "content": message}])[0]
"""


class ThreeModels(loopback_llm.FakeOpenAI):  # type: ignore[name-defined,misc]
    """Each model draws the asked letter its own way (a glyph variant per model and trial); the third model
    writes no code for letter L trial 1, so the models' scores differ and a zero trial is in the sums.
    ``broken`` = (team, model): that model writes no code for that team at all (a regression)."""

    broken: tuple[str, str] | None = None

    def answer(self, body: dict[str, Any]) -> list[str]:
        from pcg_plugin.problems.science_birds.level.glyphs import letter_program

        text = body["messages"][-1]["content"]
        team = re.search(r"TEAM=(\w+)", text).group(1)  # type: ignore[union-attr]
        letter = re.search(r"TARGET=([A-Z])", text).group(1)  # type: ignore[union-attr]
        trial = int(re.search(r"TRIAL=(\d+)", text).group(1))  # type: ignore[union-attr]
        which = MODELS.index(body["model"])
        if (which == 2 and letter == "L" and trial == 1) or self.broken == (team, body["model"]):
            return ["I would rather not draw that."] * body.get("n", 1)
        return ["```\n" + letter_program(letter, (trial + which) % 4) + "\n```"] * body.get("n", 1)


@pytest.fixture
def three_models() -> Iterator[ThreeModels]:
    with loopback_llm.serve(ThreeModels()) as state:
        yield state


@pytest.fixture
def contest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tiny_classifier: Path) -> pytest.Pytester:
    """Two 2025 programs (the second asks for other glyph variants) and the tiny classifier."""
    import shutil

    shutil.copytree(tiny_classifier, pytester.path / TINY_CLASSIFIER)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for name, shift in (("team_a", 0), ("team_b", 1)):
        folder = pytester.path / "submissions" / name
        folder.mkdir(parents=True)
        (folder / "entry.py").write_text(PROGRAM_2025.replace("SHIFT", str(shift)))
    return pytester


def args(url: str, out: str, *extra: str) -> list[str]:
    return [
        "submissions",
        "--pcg-edition",
        "2025",
        "--pcg-backend",
        "openai-compatible",
        "--pcg-base-url",
        url,
        "--pcg-model",
        ",".join(MODELS),
        "--pcg-letters",
        ",".join(LETTERS),
        "--pcg-trials",
        str(TRIALS),
        "--pcg-classifier",
        str(TINY_CLASSIFIER),
        "--pcg-out",
        out,
        "--pcg-store",
        "store",
        "-p",
        "no:cacheprovider",
        *extra,
    ]


def expected(run: Path, results: dict[str, Any]) -> Any:
    """``scoring.score_models`` on each model's stage files as the official scorer reads them from disk
    (``official_layout.read_layout``, the ``pcg score`` reader), not on the plugin's records->inputs code; the
    files are checked against results.json's per-trial numbers and scipy's cosine formula on the way (written
    out with numpy here: scipy is not installed in CI; tests/science_birds/scoring/test_diversity.py ties the
    package to scipy's bits)."""
    import math

    import numpy as np

    def cosine(u: Any, v: Any) -> float:
        u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
        return float(np.clip(1.0 - np.dot(u, v) / math.sqrt(np.dot(u, u) * np.dot(v, v)), 0.0, 2.0))

    from pcg_plugin.problems.science_birds.report.official_layout import read_layout
    from pcg_plugin.problems.science_birds.scoring.official import score_models

    per_model = {}
    for model, folder in zip(MODELS, FOLDERS, strict=True):
        per_model[model] = read_layout(run / folder, LETTERS, edition="2025")
        assert set(per_model[model]) == set(results["per_model"][model]["submissions"])
        for name, letters in per_model[model].items():
            for letter, given in letters.items():
                trials = results["per_model"][model]["submissions"][name]["letters"][letter]["trials"]
                assert given.stability == tuple(
                    (t["trial"], Decimal(repr(t["sta"]))) for t in trials if t["sta"] is not None
                )
                assert given.similarity == tuple(
                    (t["trial"], Decimal(repr(t["sim"]))) for t in trials if t["sim"] is not None
                )
                sims = json.loads((run / folder / name / "similarity" / f"{letter}.json").read_text())
                vecs = [s["cls_embedding"] for s in sims["similarities"]]
                div = sum(cosine(vecs[i], vecs[j]) for i in range(len(vecs)) for j in range(i + 1, len(vecs)))
                assert float(given.diversity) == pytest.approx(div / (TRIALS * (TRIALS + 1) / 2 - TRIALS), abs=1e-12)
    return score_models(per_model, trials=TRIALS, letters=LETTERS)


def check(run: Path, results: dict[str, Any]) -> None:
    """Per-model and total scores equal score_models digit for digit (as exact strings)."""
    from pcg_plugin.problems.science_birds.report.official_layout import result_tables

    exp = expected(run, results)
    assert results["competition_score"] == format(exp.competition_score, "f")
    assert results["settings"]["models"] == list(MODELS)
    for sub in results["submissions"]:
        name = sub["name"]
        assert sub["prompt_score"] == format(exp.totals[name], "f")
        assert sub["normalized_score"] == format(exp.normalized[name], "f")
        assert sub["rank"] == dict(exp.ranking)[name]
        for model in MODELS:
            doc, res = results["per_model"][model]["submissions"][name], exp.per_model[model]
            assert doc["prompt_score"] == format(res.programs[name].prompt_score, "f")
            assert doc["normalized_score"] == format(exp.per_model_normalized[model][name], "f")
            assert doc["rank"] == res.programs[name].rank
            assert doc["model_normalized_score"] == format(res.programs[name].normalized_score, "f")
            for letter in LETTERS:
                assert doc["letters"][letter]["char_score"] == format(
                    res.programs[name].letters[letter].char_score, "f"
                )
        total = sum(Decimal(results["per_model"][m]["submissions"][name]["normalized_score"]) for m in MODELS)
        # the per-model shares add up, as published (HFLN 17.80 + 17.76 + 9.40 = 44.96): to the rounding, since each
        # share and the total are rounded to 20 places before x100 (so they can differ by 1.5e-18, as this data does)
        assert abs(total - Decimal(sub["normalized_score"])) <= Decimal("1.5e-18")
    # each model's result/ is what `pcg score <model folder>` writes
    for model, folder in zip(MODELS, FOLDERS, strict=True):
        tables = result_tables(exp.per_model[model])
        names = ("character_scores.csv", "prompt_scores_ranks.csv")  # bytes: the official CRLF line ends too
        assert {f: (run / folder / "result" / f).read_bytes().decode() for f in names} == {f: tables[f] for f in names}
        weights = results["per_model"][model]["weights"]
        assert {c: w["weight"] for c, w in weights.items()} == {
            c: format(w.weight, "f") for c, w in exp.per_model[model].weights.items()
        }


def scores(results: dict[str, Any]) -> Any:
    """Everything that must not depend on -n or on replaying (usage and timings do)."""
    per_model = json.loads(json.dumps(results["per_model"]))
    for doc in per_model.values():
        for sub in doc["submissions"].values():
            del sub["usage"]
            for letter in sub["letters"].values():
                for trial in letter["trials"]:
                    del trial["timings"]
                    trial.pop("usage", None)
    return (
        results["competition_score"],
        [(s["name"], s["prompt_score"], s["normalized_score"], s["rank"]) for s in results["submissions"]],
        per_model,
    )


def test_three_models_in_one_run_with_and_without_xdist(contest, three_models):
    """Live under -n 2 (saving a baseline), then replayed serially from the store (gated against it): both
    equal score_models; then one model regresses for one team and the per-model gate names it."""
    runs = {}
    for out, extra in (
        ("parallel", ("-p", "xdist", "-n", "2", "--pcg-save-baseline", "base.json")),
        ("serial", ("--pcg-record", "none", "--pcg-baseline", "base.json")),
    ):
        if out == "parallel":  # a pytest process of its own with its xdist workers; the replay in this process
            result = contest.runpytest_subprocess(*args(three_models.url, out, *extra), timeout=600)
        else:
            result = contest.runpytest_inprocess(*args(three_models.url, out, *extra))
        assert result.ret == 0, result.stdout.str()
        assert result.parseoutcomes() == {"passed": 2 * 3 * 2 * 2 - 1, "zero": 1}  # phi3's no-code trial scores 0
        result.stdout.fnmatch_lines(["*pytest-pcg leaderboard*", "*per model*", f"*{MODELS[2]}*team_b*"])
        runs[out] = load_results(contest.path, out)
        check(contest.path / out, runs[out])
    # the serial run replayed every trial from the store (keyed by model): no model was asked twice
    assert len(three_models.bodies) == 2 * 3 * 2 * 2
    assert {b["model"] for b in three_models.bodies} == set(MODELS)
    assert scores(runs["serial"]) == scores(runs["parallel"])
    result.stdout.fnmatch_lines(["*baseline comparison*", "*0 regressions, 0 improvements -> ok*"])
    results = runs["serial"]
    prompt = {m: [Decimal(d["prompt_score"]) for d in results["per_model"][m]["submissions"].values()] for m in MODELS}
    assert len({tuple(v) for v in prompt.values()}) == 3 and all(v > 0 for vs in prompt.values() for v in vs)
    phi = results["per_model"][MODELS[2]]["submissions"]
    assert [t["reason"] for t in phi["team_a"]["letters"]["L"]["trials"]] == ["no_code", None]
    run = contest.path / "serial"
    for folder in FOLDERS:  # one official tree per model, each with the scorer's result/
        assert (run / folder / "team_a/raw/I/team_a_I_1.txt").is_file()
        assert (run / folder / "team_b/images/L/team_b_L_2.png").is_file()
        assert (run / folder / "result/prompt_scores_ranks.csv").is_file()
    assert not (run / "team_a").exists() and not (run / "result").exists()
    assert_rescore_equals_results(run, results)  # `pcg score <run folder>`: each model's tree, summed, = results.json
    html = (run / "report.html").read_text()
    assert all(m in html for m in MODELS) and "Per model" in html
    base = json.loads((contest.path / "base.json").read_text())
    assert set(base["scores"]["submissions"]["team_b"]["models"]) == set(MODELS)

    # gemma now writes no code for team_b: paid again, the gate fails on that model's rows and the totals
    three_models.broken = ("team_b", MODELS[1])
    worse = contest.runpytest_inprocess(
        *args(three_models.url, "worse", "--pcg-record", "all", "--pcg-baseline", "base.json")
    )
    assert worse.ret == pytest.ExitCode.TESTS_FAILED, worse.stdout.str()
    worse.stdout.fnmatch_lines(
        [
            "*submission*model*letter*metric*",
            "*team_b*all*-*prompt_score*regressed*",
            f"*team_b*{MODELS[1]}*-*prompt_score*regressed*",
            f"*team_b*{MODELS[1]}*I*char_score*regressed*",
            "*regressions*FAILED*",
        ]
    )
    check(contest.path / "worse", load_results(contest.path, "worse"))


def test_model_is_a_node_level_selectable_with_k(contest):
    result = contest.runpytest(
        *args("http://127.0.0.1:9/v1", "co", "--co", "-q", "-k", f"model_{MODELS[1]} and letter_L and team_b")
    )
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids == [f"submissions/team_b::{MODELS[1]}::L::{t}" for t in (1, 2)]
    every = contest.runpytest(*args("http://127.0.0.1:9/v1", "co", "--co", "-q"))
    ids = [line for line in every.stdout.lines if "::" in line]
    assert ids == [
        f"submissions/{s}::{m}::{c}::{t}" for s in ("team_a", "team_b") for m in MODELS for c in LETTERS for t in (1, 2)
    ]


def test_an_ini_list_of_models(contest):
    contest.makeini("[pytest]\npcg_model =\n    " + "\n    ".join(MODELS) + "\n")
    argv = [a for a in args("http://127.0.0.1:9/v1", "co", "--co", "-q") if a != ",".join(MODELS)]
    argv.remove("--pcg-model")
    result = contest.runpytest(*argv)
    assert sum(1 for line in result.stdout.lines if "::" in line) == 2 * 3 * 2 * 2


def test_several_models_in_an_edition_of_one_are_scored_each_alone(contest):
    """2024 ran one model: several are accepted, each a level of the items, and the header says that nothing
    sums them (tests/e2e/test_models_each_e2e.py runs them)."""
    argv = args("http://127.0.0.1:9/v1", "co", "--co")
    argv[argv.index("2025")] = "2024"
    result = contest.runpytest_inprocess(*argv)
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["*3 models, one item level each; the 2024 edition ran one model, so each model is scored alone*"]
    )
    result.stdout.fnmatch_lines([f"*{2 * 3 * 2 * 2} tests collected*"])


# Two scripted models (BACKEND/MODEL entries), each answering its own glyph variants; the second writes no code for
# team_a's letter L trial 1. Every call is appended to calls.log, so a rerun that asks nothing is seen.
TWO_MODELS = """
import re
from pathlib import Path
from pcg_plugin.problems.science_birds.level.glyphs import letter_program

def _answer(messages, n, which):
    with Path("calls.log").open("a") as log:
        log.write(f"{which}\\n")
    text = messages[-1]["content"]
    team = re.search(r"TEAM=(\\w+)", text).group(1)
    letter = re.search(r"TARGET=([A-Z])", text).group(1)
    trial = int(re.search(r"TRIAL=(\\d+)", text).group(1))
    if which == 1 and (team, letter, trial) == ("team_a", "L", 1):
        return ["I would rather not draw that."] * n
    return ["```\\n" + letter_program(letter, (trial + which) % 4) + "\\n```"] * n

def first(messages, n=1):
    return _answer(messages, n, 0)

def second(messages, n=1):
    return _answer(messages, n, 1)
"""
SCRIPTED = ("scripted/two_models:first", "scripted/two_models:second")


@pytest.mark.slow  # four runs with physics and the classifier: ~40 s alone, minutes on a loaded machine
def test_two_scripted_models_in_one_run_score_as_two_runs_of_one(contest, monkeypatch) -> None:
    """Science Birds 2025, two models named BACKEND/MODEL in one command: each model's figures (prompt score, its
    own normalized score and rank, every char score) equal a run of that model alone; the edition's rule (scores
    summed) is named in the header and results.json; a rerun replays everything and asks neither model."""
    (contest.path / "two_models.py").write_text(TWO_MODELS)
    monkeypatch.setenv("PYTHONPATH", str(contest.path), prepend=os.pathsep)

    def run(out: str, models: str, store: str) -> dict[str, Any]:
        argv = args("unused", out, "--pcg-store", store, "-p", "no:randomly")
        argv = [a for a in argv if a not in ("--pcg-backend", "openai-compatible", "--pcg-base-url", "unused")]
        argv[argv.index(",".join(MODELS))] = models
        result = contest.runpytest_subprocess(*argv, timeout=600)
        assert result.ret == 0, result.stdout.str()
        run.lines = result.stdout.lines  # type: ignore[attr-defined]
        return load_results(contest.path, out)

    both = run("both", ",".join(SCRIPTED), "store")
    assert any("the 2025 edition's rule" in line and "summed over the models" in line for line in run.lines)  # type: ignore[attr-defined]
    asked = (contest.path / "calls.log").read_text().count("\n")
    assert asked == 2 * 2 * len(LETTERS) * TRIALS
    assert both["models"] == list(SCRIPTED) and "summed over the models" in both["model_rule"]
    assert {s["model"] for s in both["submissions"]} == {"all"}
    for model, store in zip(SCRIPTED, ("store1", "store2"), strict=True):
        alone = run(model.split(":")[-1], model, store)
        assert alone["models"] == [model] and "model_rule" not in alone  # one model: no rule to name
        per = both["per_model"][model]["submissions"]
        for sub in alone["submissions"]:
            mine = per[sub["name"]]
            assert mine["model"] == model and sub["model"] == "scripted:" + model.split("/", 1)[1]
            assert (mine["prompt_score"], mine["model_normalized_score"], mine["rank"]) == (
                sub["prompt_score"],
                sub["normalized_score"],
                sub["rank"],
            )
            assert {c: v["char_score"] for c, v in mine["letters"].items()} == {
                c: v["char_score"] for c, v in sub["letters"].items()
            }
    second = both["per_model"][SCRIPTED[1]]["submissions"]["team_a"]["letters"]["L"]["trials"]
    assert [t["reason"] for t in second] == ["no_code", None]  # the models' figures differ: they are not one
    again = run("again", ",".join(SCRIPTED), "store")
    assert (contest.path / "calls.log").read_text().count("\n") == 2 * asked  # the singles, each on its own store
    assert scores(again) == scores(both)
