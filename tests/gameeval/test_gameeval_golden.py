"""Every call, outcome and result of 100 scripted episodes per game equals what jordddan/GameEval@5025a1a's own
code gave on the same replies (fixtures/reference/SOURCE.md)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
from ge_helpers import FIXTURES

from pcg_plugin.problems.gameeval import replay

REF = FIXTURES / "reference"


def digest(calls: list[dict]) -> str:
    body = [{"role": c["role"], "messages": c["messages"]} for c in calls]
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def pairs(game: str) -> list[tuple[dict, dict]]:
    scripts = [json.loads(x) for x in (REF / f"{game}.script.jsonl").read_text().splitlines()]
    expected = [json.loads(x) for x in (REF / f"{game}.expected.jsonl").read_text().splitlines()]
    assert len(scripts) == len(expected) == 100
    return list(zip(scripts, expected, strict=True))


@pytest.mark.parametrize("game", replay.GAMES)
def test_replay_equals_reference(game: str) -> None:
    outcomes = set()
    for script, want in pairs(game):
        got = replay.replay_line(game, script)
        assert (got["outcome"], got["rounds"], got["result"]) == (want["outcome"], want["rounds"], want["result"]), (
            script["id"]
        )
        assert got.get("exception") == want["exception"], script["id"]
        assert len(got["calls"]) == want["n_calls"], script["id"]
        assert digest(got["calls"]) == want["calls_sha256"], script["id"]
        if "calls" in want:
            assert [{"role": c["role"], "messages": c["messages"]} for c in got["calls"]] == want["calls"]
        outcomes.add(got["outcome"])
    assert len(outcomes) >= 4  # the fixtures reach several endings, crash among them for SpyFall/TofuKingdom


def test_command_line_prints_the_contract(tmp_path) -> None:
    script = REF / "tofukingdom.script.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "pcg_plugin", "gameeval", "replay", "tofukingdom", str(script), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    want = [json.loads(x) for x in (REF / "tofukingdom.expected.jsonl").read_text().splitlines()]
    assert [x["outcome"] for x in lines] == [w["outcome"] for w in want]
    assert all({"id", "game", "outcome", "rounds", "result", "calls", "trial"} <= set(x) for x in lines)
