"""`pcg gameeval replay/aggregate` on bad input: the line and the reason named on stderr, exit 1, others go on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ge_helpers import TK_SEATING

from pcg_plugin.cli import main


def write(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return str(path)


def test_replay_names_bad_lines_and_keeps_going(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {"id": "short", "mode": "hard", "word": "apple", "replies": ["Is it?"]},
        {"id": "long", "mode": "hard", "word": "apple", "replies": ["Is it an apple?", "gameover", "extra"]},
        {"id": "mode", "mode": "medium", "word": "apple", "replies": []},
        {"id": "ok", "mode": "hard", "word": "apple", "replies": ["Is it an apple?", "gameover"]},
    ]
    assert main(["gameeval", "replay", "askguess", write(tmp_path / "s.jsonl", lines), "--json"]) == 1
    out, err = capsys.readouterr()
    assert [json.loads(x)["id"] for x in out.splitlines()] == ["ok"]
    assert "(id 'short')" in err and "call 2 (answerer, answer) has none" in err
    assert "(id 'long')" in err and "after 2 of 3 replies" in err and "(id 'mode')" in err


def test_replay_rejects_a_seating_without_every_role(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seating = [dict(s, role="Queen") for s in TK_SEATING]
    assert (
        main(
            [
                "gameeval",
                "replay",
                "tofukingdom",
                write(tmp_path / "s.jsonl", [{"id": "x", "seating": seating, "replies": []}]),
                "--json",
            ]
        )
        == 1
    )
    assert "one of each role" in capsys.readouterr().err


def test_aggregate_of_nothing_is_the_references_division_by_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gameeval", "aggregate", "askguess", write(tmp_path / "r.jsonl", []), "--json"]) == 1
    assert "divides by zero" in capsys.readouterr().err
