"""The picture game end to end through pytest (pytester): collection, items, scripted doubles through the
response store, -n 0 and -n 2 alike, results.json, the leaderboard, the report and clembench's episode files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)  # ig_doubles.py: the scripted players, importable by workers
INSTANCES = "compact_grids/0,random_grids/1"
ARGS = [
    "subs",
    "--pcg-problem",
    "imagegame",
    "--pcg-backend",
    "scripted",
    "--pcg-imagegame-instances",
    INSTANCES,
    "--pcg-store",
    "store",
    "-p",
    "no:cacheprovider",
]
GIVER_PROMPT = (
    "Describe this picture to me, one row per command, then say Command: DONE.\n\n<TARGET_GRID>\n\n<QUESTION>"
)


@pytest.fixture
def game(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.syspath_prepend(HERE)
    monkeypatch.setenv("PYTHONPATH", HERE, prepend=os.pathsep)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    subs = {
        "perfect": {"imagegame.toml": 'model = "ig_doubles:respond_perfect"\n'},
        "chatty": {"imagegame.toml": 'model = "ig_doubles:respond_chatty_giver"\n'},
        "prompted": {
            "imagegame.toml": 'model = "ig_doubles:respond_perfect"\ngiver_prompt = "giver.txt"\n',
            "giver.txt": GIVER_PROMPT,
        },
        "broken": {"imagegame.toml": "model = \n"},
    }
    for name, files in subs.items():
        for fname, text in files.items():
            (pytester.path / "subs" / name).mkdir(parents=True, exist_ok=True)
            (pytester.path / "subs" / name / fname).write_text(text)
    return pytester


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    return {k: v for k, v in result.parseoutcomes().items() if not k.startswith("warning")}


def test_items_are_submission_instance_trial(game) -> None:
    result = game.runpytest(*ARGS, "--co", "-q", "--pcg-trials", "2")
    ids = [line for line in result.outlines if "::" in line]
    assert ids == ["subs/broken::not-evaluated"] + [
        f"subs/{s}::{i}::{t}" for s in ("chatty", "perfect", "prompted") for i in INSTANCES.split(",") for t in (1, 2)
    ]


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "2"]])
def test_a_scripted_run_ranks_and_writes_clembench_episodes(game, workers) -> None:
    result = game.runpytest_subprocess(*ARGS, "--pcg-out", "out", *workers)
    assert outcomes(result) == {"passed": 4, "zero": 2, "failed": 1}
    # identical rows share a rank (1, 1, 3); the bootstrap's 95 % rank interval in brackets; the test double's banner
    result.stdout.fnmatch_lines(
        [
            "*pytest-pcg leaderboard*",
            "UNOFFICIAL RUN: a test double*",
            "  1. * 1  perfect * 2 * 100 * 100 * 100 * 100 * 100/100 * 100/100",
            "  1. * 1  prompted *",
            "  3. * 3  chatty * 2 * 0 * – * – * 0 * 0/– * 0/–  2 aborted",
        ]
    )
    doc = json.loads((game.path / "out" / "results.json").read_text())
    board = {row["submission"]: row for row in doc["leaderboard"]}
    assert board["perfect"]["overall"] == {
        "episodes": 2,
        "% Played": 100.0,
        "Quality Score": 100.0,
        "Quality Score (std)": 0.0,
        "clemscore": 100.0,
        "Success (%)": 100.0,
    }
    assert board["chatty"]["overall"] == {
        "episodes": 2,
        "% Played": 0.0,
        "Quality Score": None,
        "Quality Score (std)": None,
        "clemscore": None,
        "Success (%)": 0.0,
    }
    assert board["chatty"]["aborted"] == 2
    assert list(doc["folder_errors"]) == ["subs/broken::not-evaluated"]
    prompted = [e for e in doc["episodes"] if e["submission"] == "prompted"]
    assert [e["episode scores"]["Main Score"] for e in prompted] == [100, 100]
    # the harness's read-back (issue 34): the problem re-scores the run as it ranked it; every row has an interval
    from pcg_plugin.core.stats.intervals import observed
    from pcg_plugin.problems.imagegame import rows as readback

    assert readback.scores(doc, observed) == {"perfect": 100.0, "prompted": 100.0, "chatty": 0.0}
    assert [row["rank_interval"] for row in doc["leaderboard"]] == [[1, 1], [1, 1], [3, 3]]
    trial_rows = readback.trial_rows(doc)
    assert len(trial_rows) == 6 and {r["score"] for r in trial_rows if r["submission"] == "chatty"} == {None}
    assert {r["reason"] for r in trial_rows if r["submission"] == "chatty"} == {"aborted"}

    from pcg_plugin.problems.imagegame import clembench_io
    from pcg_plugin.problems.imagegame.instances import load_instances

    for ep in doc["episodes"]:  # clembench's reading of every folder we wrote gives the scores we ranked
        folder = game.path / "out" / ep["episode_dir"]
        written = json.loads((folder / "scores.json").read_text())
        assert json.dumps(written) == json.dumps(clembench_io.score_folder(folder, load_instances()))  # NaN alike
    first = json.loads((game.path / "out" / prompted[0]["episode_dir"] / "interactions.json").read_text())
    assert first["turns"][0][0]["action"]["content"].startswith("Describe this picture to me")
    html = (game.path / "out" / "report.html").read_text()
    assert "compact_grids/0" in html and "turn 1" in html and "target" in html


def test_names_that_are_not_utf8_are_played_shown_escaped_and_paid_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The examples copied under team folders named in bytes that are not UTF-8 (as unzip writes them), with such
    a file inside one and a folder that is no submission, on a strict UTF-8 terminal."""
    import os
    import shutil
    import sqlite3

    monkeypatch.syspath_prepend(HERE)
    monkeypatch.setenv("PYTHONPATH", f"{HERE}{os.pathsep}{pytester.path}")
    monkeypatch.setenv("PYTHONIOENCODING", "utf-8:strict")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (pytester.path / "counting.py").write_text(
        "import ig_doubles\n\ndef respond(messages, n=1):\n"
        "    open('requests.log', 'a').write('.')\n"
        "    return ig_doubles.respond_perfect(messages, n)\n"
    )
    examples = Path(HERE).parents[1] / "examples" / "imagegame"
    subs = pytester.path / "subs"
    shutil.copytree(examples / "selfplay", subs / "selfplay")
    shutil.copytree(examples / "giver_program", subs / os.fsdecode(b"pr\xf6gram"))
    shutil.copytree(examples / "giver_prompt", subs / os.fsdecode(b"t\xe9am"))
    (subs / os.fsdecode(b"t\xe9am/caf\xe9.txt")).write_text("x")
    (subs / os.fsdecode(b"pr\xf6gram/h\xe9lper.py")).write_text("X = 1\n")
    (subs / os.fsdecode(b"br\xf6ken")).mkdir()
    (subs / os.fsdecode(b"br\xf6ken/imagegame.toml")).write_text("model = \n")
    result = pytester.runpytest_subprocess(
        "subs",
        "--pcg-problem",
        "imagegame",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "counting:respond",
        "--pcg-imagegame-instances",
        "compact_grids/0",
        "--pcg-out",
        "out",
        "--pcg-store",
        "store",
        "-p",
        "no:cacheprovider",
    )
    assert outcomes(result) == {"passed": 3, "failed": 1}, result.stdout.str()[-3000:]
    doc = json.loads((pytester.path / "out" / "results.json").read_text(encoding="utf-8"))
    board = {row["submission"]: row["overall"]["clemscore"] for row in doc["leaderboard"]}
    assert board == {"pr\\xf6gram": 100.0, "selfplay": 100.0, "t\\xe9am": 100.0}
    assert list(doc["folder_errors"]) == ["subs/br\\xf6ken::not-evaluated"]
    assert "t\\xe9am" in (pytester.path / "out" / "report.html").read_text(encoding="utf-8")
    with sqlite3.connect(pytester.path / "store" / "responses.sqlite3") as db:
        stored = db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    assert len((pytester.path / "requests.log").read_text()) == stored > 0
