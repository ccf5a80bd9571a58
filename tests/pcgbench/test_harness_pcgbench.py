"""End-to-end runs of the PCG Benchmark problems through pytest (pytester), with the scripted test double
`grid_double.py` or a loopback OpenAI-compatible server answering the same way."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.views.viewer import MARK

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent.parent / "examples" / "pcgbench"

PROGRAM = """
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop


class Entry(TrialLoop):
    @staticmethod
    def run(ctx, task):
        return chat_with_llm(ctx, [{"role": "user", "content": f"{task} TRIAL={ctx.get_trial_number()} EXTRA"}])[0]
"""


def own_part(report: str) -> str:
    """The problem's own report, without the harness's viewer part (its charts are drawings too)."""
    return report.split(MARK)[0]


def program(extra: str = "") -> str:
    return textwrap.dedent(PROGRAM).replace("EXTRA", extra)


@pytest.fixture
def grid(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester folder where the scripted double imports (in this process and in xdist workers)."""
    shutil.copy(HERE / "grid_double.py", pytester.path / "grid_double.py")
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return pytester


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def args(problem: str, out: str, *extra: str, model: str = "grid_double:respond") -> list[str]:
    return [
        "subs",
        "--pcg-problem",
        f"pcgbench/{problem}",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        model,
        "--pcg-out",
        out,
        "--pcg-store",
        "store",
        "-p",
        "no:cacheprovider",
        *extra,
    ]


def results(root: Path, out: str) -> dict[str, Any]:
    return json.loads((root / out / "results.json").read_text())  # type: ignore[no-any-return]


def by_name(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in doc["submissions"]}


def scores_only(doc: dict[str, Any]) -> list[Any]:
    """What must not change between a live run and its replay (everything but timings, usage and the run id)."""
    keep = ("reason", "message", "quality", "controllability", "feasible", "controlled", "unique", "content", "info")
    return [
        (
            s["rank"],
            s["name"],
            s["score"],
            s["feasible"],
            s["controlled"],
            s["unique"],
            s["diversity_all"],
            [[{k: t.get(k) for k in keep} for t in i["trials"]] for i in s["instances"]],
        )
        for s in doc["submissions"]
    ]


def test_scripted_double_gives_exact_records_scores_and_ranking(grid: pytest.Pytester) -> None:
    """binary-v0, instances path57 and path87, 3 trials. The double answers the README maze (path 60, quality 1)
    or its left-right / up-down mirror by trial; the LR mirror differs from the original in fewer than 79 cells
    (pair diversity 0.663), the UD mirror in more, so HEAD's greedy keeps trials 2 and 3 of {orig, LR, UD}."""
    write(
        grid.path,
        {
            "subs/good/entry.py": program(),  # trials 1, 2, 3: orig, LR, UD
            "subs/cycle/entry.py": program("MODE=cycle"),  # trial 1 orig, 2 no block, 3 one row short
            "subs/same/prompt.txt": "Level for <PROBLEM> with <CONTROL>.",  # no trial marker: orig every time
            "subs/broken/prompt.txt": "Level for <PROBLEM>. MODE=alphabet",  # a 9 in the first row
            "subs/notes/README.md": "no entry here",
        },
    )
    result = grid.runpytest(*args("binary-v0", "run", "--pcg-grid-instances", "2", "--pcg-trials", "3"))
    outcomes = result.parseoutcomes()  # an official zero passes, shown as "zero"
    assert (outcomes.get("passed"), outcomes.get("zero"), outcomes.get("failed")) == (14, 10, 1)  # failed: notes/
    doc = results(grid.path, "run")
    assert [i["id"] for i in doc["instances"]] == ["path57", "path87"]
    assert [(s["rank"], s["name"]) for s in doc["submissions"]] == [
        (1, "good"),
        (2, "cycle"),
        (2, "same"),
        (4, "broken"),
    ]
    subs = by_name(doc)
    good = subs["good"]
    assert good["score"] == pytest.approx(1 / 3)  # (2/3 on path57 + 0 on path87) / 2
    from pcg_plugin.core.stats.intervals import observed  # issue 34: the read-back re-scores exactly what was ranked
    from pcg_plugin.problems.pcgbench import rows as readback

    assert readback.scores(doc, observed) == pytest.approx({n: s["score"] for n, s in subs.items()})
    assert [r["score"] for r in readback.trial_rows(doc) if r["submission"] == "good"] == [0, 1, 1, 0, 0, 0]
    assert (good["feasible"], good["controlled"], good["unique"]) == (1.0, 0.5, pytest.approx(4 / 6))
    path57, path87 = good["instances"]
    assert [t["unique"] for t in path57["trials"]] == [False, True, True]
    assert path57["diversity"] == pytest.approx(2 / 3) and path57["passed"] == 2
    assert [t["controllability"] for t in path87["trials"]] == [pytest.approx(0.75)] * 3  # 60 / (87 - 7)
    assert [t["info"]["path"] for t in path87["trials"]] == [60, 60, 60]
    assert good["diversity_all"] == pytest.approx(2 / 6)  # hand-run greedy over orig, LR, UD twice
    cycle = subs["cycle"]
    assert [t["reason"] for t in cycle["instances"][0]["trials"]] == [None, "no_block", "wrong_shape"]
    assert cycle["instances"][0]["trials"][2]["message"] == "wrong shape: 13 rows, expected 14"
    assert cycle["zero_reasons"] == {"no_block": 2, "wrong_shape": 2}
    assert cycle["score"] == pytest.approx(1 / 6) and cycle["diversity_all"] == 0.5
    same = subs["same"]
    assert [t["unique"] for t in same["instances"][0]["trials"]] == [False, False, True]
    assert same["score"] == pytest.approx(1 / 6) and same["instances"][0]["diversity"] == pytest.approx(1 / 3)
    broken = subs["broken"]
    assert broken["score"] == 0 and broken["zero_reasons"] == {"wrong_alphabet": 6}
    assert (
        broken["instances"][0]["trials"][0]["message"] == "wrong alphabet: cell (0, 0) is 9, expected an integer 0..1"
    )
    assert list(doc["folder_errors"]) == ["subs/notes::not-evaluated"]
    text = result.stdout.str()
    assert "1. [95% rank 1-2] good score 0.333 (feasible 1.000, controlled 0.500, unique 0.667" in text
    assert "4. [95% rank 2-4] broken score 0.000" in text and "zeros: wrong_alphabet 6" in text
    # every bad reply named in the terminal: submission, instance, trial, the consequence and what was wrong
    assert "ZERO cycle instance path87 trial 3: wrong_shape (scored 0): wrong shape: 13 rows, expected 14" in text
    assert (
        "ZERO cycle instance path57 trial 2: no_block (scored 0): no block: the reply has no fenced block (```...```)"
        in text
    )
    assert text.count("ZERO broken instance ") == 6 and text.count("(scored 0)") == 10
    assert "NOT EVALUATED subs/notes::not-evaluated: " in text
    report = (grid.path / "run" / "report.html").read_text()
    assert own_part(report).count("<svg") == 6 + 2 + 6  # one drawing per level read: good, cycle, same (broken: none)
    assert "score 0: wrong_alphabet" in report and "subs/notes::not-evaluated" in report
    assert "path57 · score 0.667 · 3 trials: feasible 3, controlled 3, unique 2, all three 2" in report
    assert "0 = solid</span><span>" in report and "1 = empty</span>" in report  # the legend


NESTED_PROGRAM = {  # run from the folder as `python agent/agent.py`: reads prompts/ from there, imports a sibling
    "agent/__init__.py": "",
    "agent/helpers.py": "def ask(template, task):\n    return template.replace('{TASK}', task)\n",
    "agent/agent.py": textwrap.dedent("""
        from pathlib import Path

        from helpers import ask
        from llms4pcg.competition import chat_with_llm
        from llms4pcg.models.trial_loop import TrialLoop


        class Agent(TrialLoop):
            @staticmethod
            def run(ctx, task):
                template = Path("prompts/level.txt").read_text()
                return chat_with_llm(ctx, [{"role": "user", "content": ask(template, task)}])[0]
        """),
    "prompts/level.txt": "Write one level for this task: {TASK}\n",
    "notes.txt": "first ideas, no placeholders\n",
    "README.md": "python agent/agent.py\n",
    "requirements.txt": "llms4pcg\n",
    ".env.example": "OPENAI_API_KEY=\n",
    ".DS_Store": "\x00\x01",
    "__pycache__/agent.cpython-311.pyc": "\x00garbage",
}
PROMPT_WITH_STRAYS = {
    "prompt.txt": "Design <PROBLEM> (<WIDTH>x<HEIGHT>), tiles:\n<LEGEND>\nIt must meet <CONTROL>.\n",
    "draft.txt": "an older idea without placeholders\n",
    "README.md": "our prompt\n",
    ".DS_Store": "\x00",
}


@pytest.mark.parametrize("problem", ["binary-v0", "sokoban-v0", "zelda-v0"])
def test_example_submissions_run_on_every_problem(grid: pytest.Pytester, problem: str) -> None:
    """The shipped examples (two prompts, a program) and two realistic folders (a nested program with stray
    files, a prompt beside notes) with the double: it answers the README level every trial (no TRIAL marker),
    so each instance keeps one unique level, and the first instance asks for what the README level meets
    (binary path 60 in 57±7, sokoban 2 crates in [1, 3], zelda 11/12 in 13±2/12±2), the second not."""
    shutil.copytree(EXAMPLES, grid.path / "subs")
    write(grid.path / "subs" / "nested", NESTED_PROGRAM)
    write(grid.path / "subs" / "strays", PROMPT_WITH_STRAYS)
    result = grid.runpytest(*args(problem, "run", "--pcg-grid-instances", "2", "--pcg-trials", "2"))
    assert result.ret == 0, result.stdout.str()
    doc = results(grid.path, "run")
    assert doc["problem"] == f"pcgbench/{problem}" and doc["benchmark"]["commit"] == "00b96f5"
    assert [(s["rank"], s["name"], s["format"], s["path"]) for s in doc["submissions"]] == [
        (1, "few_shot", "pcgbench-prompt", "subs/few_shot"),
        (1, "nested", "pcgbench-program", "subs/nested"),
        (1, "self_check", "pcgbench-program", "subs/self_check"),
        (1, "strays", "pcgbench-prompt", "subs/strays"),
        (1, "zero_shot", "pcgbench-prompt", "subs/zero_shot"),
    ]
    assert not doc["folder_errors"] and not doc["errors"]
    for s in doc["submissions"]:
        assert (s["score"], s["feasible"], s["controlled"], s["unique"]) == (0.25, 1.0, 0.5, 0.5), s["name"]
        assert [[t["unique"] for t in i["trials"]] for i in s["instances"]] == [[False, True]] * 2
        assert all(t["usage"]["calls"] == 1 for i in s["instances"] for t in i["trials"])
    assert (grid.path / "run" / "report.html").is_file()
    assert (grid.path / "run" / "zero_shot" / "raw").is_dir()


def grid_server() -> Any:
    """The loopback OpenAI-compatible server of tests/llm/conftest.py, answering as the scripted double does."""
    import loopback_llm

    class GridServer(loopback_llm.FakeOpenAI):
        def answer(self, body: dict[str, Any]) -> list[str]:
            from grid_double import respond  # type: ignore[import-not-found]

            return respond(body["messages"], body.get("n", 1))  # type: ignore[no-any-return]

    return loopback_llm.serve(GridServer())


def test_loopback_server_with_xdist_then_a_replay_that_asks_nothing(grid: pytest.Pytester) -> None:
    """The examples on zelda-v0 through a real HTTP server on 127.0.0.1 with -n 2 score exactly as with the
    scripted double; `--pcg-record none` replays the store, asks the server nothing and gives identical results."""
    shutil.copytree(EXAMPLES, grid.path / "subs")
    common = ["--pcg-grid-instances", "2", "--pcg-trials", "2"]
    assert grid.runpytest(*args("zelda-v0", "scripted", *common)).ret == 0
    with grid_server() as server:
        http = ["--pcg-backend", "openai-compatible", "--pcg-base-url", server.url, "--pcg-model", "fake-model"]
        live = grid.runpytest(*args("zelda-v0", "live", *common), *http, "-p", "xdist", "-n", "2")
        assert live.ret == 0, live.stdout.str()
        calls = len(server.bodies)  # 3 submissions x 2 instances x 2 trials, one call each
        assert calls == 12 and all(b["model"] == "fake-model" and b["temperature"] == 1.0 for b in server.bodies)
        replay = grid.runpytest(*args("zelda-v0", "replay", *common), *http, "--pcg-record", "none")
        assert replay.ret == 0, replay.stdout.str()
        assert len(server.bodies) == calls  # the replay asked nothing
    assert scores_only(results(grid.path, "live")) == scores_only(results(grid.path, "scripted"))
    assert scores_only(results(grid.path, "replay")) == scores_only(results(grid.path, "live"))
    replayed = [
        t["usage"] for s in results(grid.path, "replay")["submissions"] for i in s["instances"] for t in i["trials"]
    ]
    assert all(u["replayed_calls"] == 1 and u["paid_calls"] == 0 for u in replayed)


def test_record_none_without_a_recording_is_an_error_not_a_zero(grid: pytest.Pytester) -> None:
    write(grid.path, {"subs/only/prompt.txt": "<PROBLEM> <CONTROL>"})
    result = grid.runpytest(
        *args("sokoban-v0", "run", "--pcg-grid-instances", "1", "--pcg-trials", "1", "--pcg-record", "none")
    )
    result.assert_outcomes(errors=1)  # an infrastructure error (ReplayMiss): pytest's ERROR, not a FAILED submission
    doc = results(grid.path, "run")
    trial = doc["submissions"][0]["instances"][0]["trials"][0]
    assert (
        trial["reason"] == "error" and "ReplayMiss" not in trial["message"] and "--pcg-record none" in trial["message"]
    )
    assert doc["submissions"][0]["errored_trials"] == 1


def test_a_sokoban_reply_without_a_player_is_scored_and_the_run_ends(grid: pytest.Pytester) -> None:
    """Such a level used to end the run with 'scoring the run failed: RuntimeError: generator raised
    StopIteration' (diversity replayed its empty solution on a level it cannot load). It is a valid level of
    quality 1/3 with the empty solution string, like the benchmark's."""
    write(
        grid.path,
        {
            "subs/noplayer/prompt.txt": "Level for <PROBLEM>. MODE=noplayer",
            "subs/good/prompt.txt": "Level for <PROBLEM> with <CONTROL>.",
        },
    )
    result = grid.runpytest(*args("sokoban-v0", "run", "--pcg-grid-instances", "1", "--pcg-trials", "2"))
    assert result.ret == 0, result.stdout.str()
    assert "scoring the run failed" not in result.stdout.str()
    subs = by_name(results(grid.path, "run"))
    trials = subs["noplayer"]["instances"][0]["trials"]
    assert [(t["reason"], t["quality"], t["info"]["solution"]) for t in trials] == [(None, 1 / 3, [])] * 2
    assert sum(t["unique"] for t in trials) == 1  # "" and "" are not diverse: the greedy keeps one
    assert subs["good"]["feasible"] == 1.0


BUILDING = "Drop <BLOCKS> pieces for <PROBLEM> in <WIDTH>x<LENGTH>x<HEIGHT>:\n<TYPES>\n<CONTROL> TRIAL=1 EXTRA"


def test_building_end_to_end_with_the_double_and_through_a_loopback_server(grid: pytest.Pytester) -> None:
    """building-v0: the double answers the feasible example (40 3x3 pieces in four piles), one piece short, a
    piece at x 9, or no block; the same run through a real HTTP server on 127.0.0.1 scores the same. The report
    draws each building."""
    shutil.copytree(EXAMPLES.parent / "pcgbench-building", grid.path / "subs")
    for mode in ("shape", "alphabet", "noblock"):
        write(grid.path, {f"subs/{mode}/prompt.txt": BUILDING.replace("EXTRA", f"MODE={mode}")})
    common = ["--pcg-grid-instances", "2", "--pcg-trials", "1"]
    assert grid.runpytest(*args("building-v0", "scripted", *common)).ret == 0
    doc = results(grid.path, "scripted")
    subs = by_name(doc)
    # the instances ask for a mix (1x1_15-1x3_13-3x1_8-3x3_4, 1x1_3-1x3_10-3x1_0-3x3_27); the piles are 40 3x3
    assert subs["zero_shot"]["feasible"] == 1.0 and subs["zero_shot"]["controlled"] == 0.0
    assert {name: s["zero_reasons"] for name, s in subs.items() if name != "zero_shot"} == {
        "shape": {"wrong_count": 2},
        "alphabet": {"out_of_range": 2},
        "noblock": {"no_block": 2},
    }
    assert doc["benchmark"]["kind"] == "blocks" and doc["benchmark"]["blocks"] == 40
    report = (grid.path / "scripted" / "report.html").read_text()
    assert own_part(report).count("<svg") == 2 and "3 = 3x3" in report
    with grid_server() as server:
        http = ["--pcg-backend", "openai-compatible", "--pcg-base-url", server.url, "--pcg-model", "fake-model"]
        live = grid.runpytest(*args("building-v0", "live", *common), *http)
        assert live.ret == 0, live.stdout.str()
        assert len(server.bodies) == 8
    assert scores_only(results(grid.path, "live")) == scores_only(doc)


@pytest.mark.parametrize("problem", ["binary-wide-v0", "sokoban-large-v0", "zelda-large-v0", "building-huge-v0"])
def test_a_variant_without_examples_runs_end_to_end(grid: pytest.Pytester, problem: str) -> None:
    """The double answers a sample of the content space (such a variant has no example), written as the kind
    writes a reply: it is read back and scored, never a zero; the report draws it."""
    write(grid.path, {"subs/mine/prompt.txt": "Design <PROBLEM> for <CONTROL>.\n<EXAMPLES>"})
    result = grid.runpytest(*args(problem, "run", "--pcg-grid-instances", "1", "--pcg-trials", "1"))
    assert result.ret == 0, result.stdout.str()
    trial = results(grid.path, "run")["submissions"][0]["instances"][0]["trials"][0]
    assert trial["reason"] is None and 0 <= trial["quality"] < 1 and trial["content"] is not None
    assert "<svg" in (grid.path / "run" / "report.html").read_text()


def test_names_that_are_not_utf8_are_scored_shown_escaped_and_paid_once(
    grid: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A team folder, a file inside a team and a folder that is no submission, named in bytes that are not
    UTF-8 (as unzip writes them), on a strict UTF-8 terminal: every team scored, the names shown escaped."""
    import os
    import sqlite3

    monkeypatch.setenv("PYTHONIOENCODING", "utf-8:strict")
    (grid.path / "counting.py").write_text(
        "import grid_double\n\ndef respond(messages, n=1):\n"
        "    open('requests.log', 'a').write('.')\n"
        "    return grid_double.respond(messages, n)\n"
    )
    write(grid.path, {"subs/good/entry.py": program()})
    for raw, text in (
        (b"subs/good/caf\xe9.txt", "x"),
        (b"subs/t\xe9am/entry.py", program()),
        (b"subs/pr\xf6mpt/prompt.txt", "Level for <PROBLEM> with <CONTROL>."),
        (b"subs/br\xf6ken/README.md", "no entry here"),
    ):
        path = grid.path / os.fsdecode(raw)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    result = grid.runpytest_subprocess(
        *args("binary-v0", "run", "--pcg-grid-instances", "1", "--pcg-trials", "2", model="counting:respond")
    )
    assert "INTERNALERROR" not in result.stdout.str()
    doc = results(grid.path, "run")
    assert sorted(s["name"] for s in doc["submissions"]) == ["good", "pr\\xf6mpt", "t\\xe9am"]
    assert all(s["score"] > 0 for s in doc["submissions"])
    assert list(doc["folder_errors"]) == ["subs/br\\xf6ken::not-evaluated"]
    assert "t\\xe9am" in (grid.path / "run" / "report.html").read_text(encoding="utf-8")
    with sqlite3.connect(grid.path / "store" / "responses.sqlite3") as db:
        stored = db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    assert len((grid.path / "requests.log").read_text()) == stored == 6  # 3 teams x 1 instance x 2 trials
