"""The end of a run: the reference's table per submission, results.json, and report.html with each episode as a
chat (outcome and why), a crash included."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from ge_helpers import SEATS, describe_round, said, vote

from pcg_plugin.problems.gameeval import askguess, spyfall
from pcg_plugin.problems.gameeval.games import GAMES
from pcg_plugin.problems.gameeval.leaderboard import rows
from pcg_plugin.problems.gameeval.records import EpisodeRecord
from pcg_plugin.problems.gameeval.replay import scripted
from pcg_plugin.problems.gameeval.report import finish_run, summary_lines


def record(sub: str, target: str, trial: int, played, role: str | None = None) -> EpisodeRecord:
    return EpisodeRecord(
        nodeid=f"{sub}::{target}::{trial}",
        submission=sub,
        game="x",
        target=target,
        trial=trial,
        outcome=played.outcome,
        rounds=played.rounds,
        result=played.result,
        why=played.why,
        exception=played.exception,
        role=role,
        events=played.events_json(),
    )


def ask(word: str, replies: list) -> object:
    return askguess.play(askguess.Setup(word, "easy"), scripted(replies)[0])


def test_askguess_table_is_compute_py_with_n_trials() -> None:
    recs = [
        record("a", "apple", 1, ask("apple", ["d", "Is it an apple?", "gameover"])),
        record("a", "apple", 2, ask("apple", ["d", "q", "no", "Is it an apple?", "gameover"])),
        record("a", "bear", 1, ask("bear", ["d", "q", "gameover"])),
        record("a", "bear", 2, ask("bear", [None])),
    ]
    (row,) = rows(GAMES["askguess-easy"], recs, 2, {}, {"a": {}})
    assert {k: row["figures"][k] for k in ("Round", "ST", "EE", "CE", "RLE", "AME")} == {
        "Round": (1.5 + 30) / 2,
        "ST": 50.0,
        "EE": 25.0,
        "CE": 25.0,
        "RLE": 0.0,
        "AME": 0.0,
    }


def test_results_and_report_show_each_episode_as_a_chat(tmp_path: Path) -> None:
    setup = spyfall.Setup(("tiger", "lion"), tuple(SEATS), 2)
    won = spyfall.play(setup, scripted(describe_round() + [vote("Nancy")] * 6)[0])
    crash = spyfall.play(setup, scripted([said("a"), "not json <b>"])[0])
    recs = {
        r.nodeid: r
        for r in (record("v", "tiger&lion", 1, won, "villager"), record("v", "tiger&lion", 2, crash, "villager"))
    }
    collected = SimpleNamespace(records=recs, errors={}, items={k: {"name": "v"} for k in recs}, folder_problems={})
    doc, report = finish_run(
        GAMES["spyfall"], {"run_dir": str(tmp_path), "id": "r1", "settings": {"trials": 2}}, collected
    )
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["leaderboard"][0]["figures"]["villager"] == 1 and saved["leaderboard"][0]["figures"]["crash"] == 1
    assert [e["outcome"] for e in saved["episodes"]] == ["villager", "crash"]
    html = report.read_text()
    assert "Host: The game now start." in html and "Tom</span> → " in html
    assert "not json &lt;b&gt;" in html and "<b>crash</b>" in html  # the crashing reply, escaped, and the outcome
    assert "the spy Nancy was voted out" in html
    lines = summary_lines(GAMES["spyfall"], doc, tmp_path, report, None)
    assert any("crash: the description is not a JSON object" in line for line in lines)
    from pcg_plugin._util import provenance
    from pcg_plugin._util.paths import REPO_ROOT

    assert saved["provenance"] == json.loads(json.dumps(provenance.collect(REPO_ROOT)))  # what `pcg card` shows


def test_an_entry_whose_every_episode_errored_shows_the_role_it_plays(tmp_path: Path) -> None:
    """No record came back (every item errored): the row still says what the entry is, from its manifest, and
    counts its errors; a self-play entry beside it is still self-play."""
    setup = spyfall.Setup(("tiger", "lion"), tuple(SEATS), 2)
    won = spyfall.play(setup, scripted(describe_round() + [vote("Nancy")] * 6)[0])
    recs = {"self::tiger&lion::1": record("self", "tiger&lion", 1, won)}
    items = {
        "self::tiger&lion::1": {"name": "self", "role": None, "models": {}},
        "spyprompt::tiger&lion::1": {"name": "spyprompt", "role": "spy", "models": {"spy": "m2"}},
        "spyprompt::tiger&lion::2": {"name": "spyprompt", "role": "spy", "models": {"spy": "m2"}},
    }
    errors = {n: "call: InfrastructureError: the server is down" for n in items if n.startswith("spyprompt")}
    collected = SimpleNamespace(records=recs, errors=errors, items=items, folder_problems={})
    doc, report = finish_run(
        GAMES["spyfall"], {"run_dir": str(tmp_path), "id": "r1", "settings": {"trials": 2}}, collected
    )
    board = {row["submission"]: row for row in doc["leaderboard"]}
    assert (board["spyprompt"]["role"], board["spyprompt"]["models"], board["spyprompt"]["errors"]) == (
        "spy",
        {"spy": "m2"},
        2,
    )
    assert board["self"]["role"] is None
    lines = summary_lines(GAMES["spyfall"], doc, tmp_path, report, None)
    assert any(line.startswith("2. [95% rank -] spyprompt spy | ") and line.endswith(", 2 errors") for line in lines), (
        lines
    )
    assert any(line.startswith("1. [95% rank -] self self-play | ") for line in lines)
    assert '<td class="l">spy</td>' in report.read_text()
