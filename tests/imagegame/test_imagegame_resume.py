"""A picture-game run through a loopback OpenAI-compatible server with -n 2, killed midway (SIGKILL to the whole
pytest process group) and restarted on the same response store: it gives the scores of an uninterrupted run and
asks the server only the turns the killed run had not stored (every request of the reference run is asked
exactly once across the two)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import ig_doubles
import loopback_llm
import pytest

HERE = Path(__file__).resolve().parent
INSTANCES = "compact_grids/0,random_grids/1"


class GameServer(loopback_llm.FakeOpenAI):
    """Answers as the perfect scripted players; from ``hold_after`` answers on, holds every request unanswered
    (the run is killed while they wait)."""

    def __init__(self) -> None:
        super().__init__()
        self.hold_after: int | None = None
        self.answered: list[str] = []
        self.held = 0
        self.release = threading.Event()

    def answer(self, body: dict[str, Any]) -> list[str]:
        with self.lock:
            hold = self.hold_after is not None and len(self.answered) >= self.hold_after
            if hold:
                self.held += 1
            else:
                self.answered.append(canonical(body))
        if hold:
            self.release.wait(120)
            return ["(the client is gone)"]
        return list(ig_doubles.respond_perfect(body["messages"], body.get("n", 1)))


def canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True, ensure_ascii=False)


def command(url: str, out: str, store: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "subs",
        "--pcg-problem",
        "imagegame",
        "--pcg-backend",
        "openai-compatible",
        "--pcg-base-url",
        url,
        "--pcg-model",
        "double",
        "--pcg-imagegame-instances",
        INSTANCES,
        "--pcg-trials",
        "2",
        "--pcg-out",
        out,
        "--pcg-store",
        store,
        "-p",
        "no:cacheprovider",
        "-p",
        "xdist",
        "-n",
        "2",
        "--pcg-in-flight",  # one turn in flight a worker: the hold point below is then two held turns exactly
        "1",
        "-q",
    ]


def scores(root: Path, out: str) -> dict[str, Any]:
    doc = json.loads((root / out / "results.json").read_text())
    return {
        "leaderboard": doc["leaderboard"],
        "episodes": {
            (e["instance"], e["trial"]): (e["outcome"], e["turns"], e["episode scores"]) for e in doc["episodes"]
        },
    }


@pytest.mark.slow  # a killed run's resume is the harness's: tests/sandbox/test_faults.py kills and resumes one too
def test_a_killed_run_resumes_from_the_store_and_scores_as_an_uninterrupted_one(pytester: pytest.Pytester) -> None:
    (pytester.path / "subs" / "selfplay").mkdir(parents=True)
    (pytester.path / "subs" / "selfplay" / "imagegame.toml").write_text("# the run's model plays both roles\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    env.pop("OPENAI_API_KEY", None)

    def run(url: str, out: str, store: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command(url, out, store), cwd=pytester.path, env=env, capture_output=True, text=True, timeout=600
        )

    server = GameServer()
    with loopback_llm.serve(server):
        reference = run(server.url, "ref", "ref-store")
        assert reference.returncode == 0, reference.stdout[-3000:]
        asked = Counter(canonical(b) for b in server.bodies)
        total = sum(asked.values())
        assert len(server.answered) == total

        server.requests.clear()
        server.answered.clear()
        server.hold_after = total // 2
        killed = subprocess.Popen(
            command(server.url, "run1", "store"),
            cwd=pytester.path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 300
        while server.held < 2 and time.monotonic() < deadline and killed.poll() is None:
            time.sleep(0.1)  # both workers wait on an unanswered turn: every answer before is stored
        assert server.held == 2, f"the run did not reach the hold point (held {server.held})"
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait(30)
        before = list(server.answered)
        server.release.set()

        server.requests.clear()
        server.answered.clear()
        server.hold_after = None
        resumed = run(server.url, "run2", "store")
        assert resumed.returncode == 0, resumed.stdout[-3000:]
        after = list(server.answered)

    assert len(before) == total // 2
    assert len(after) == total - len(before)  # no stored turn asked again
    assert Counter(before) + Counter(after) == asked  # each turn of the reference run asked exactly once
    assert scores(pytester.path, "run2") == scores(pytester.path, "ref")
    print(
        f"reference run: {total} requests; killed run: {len(before)} answered (+2 held, unanswered); "
        f"resumed run: {len(after)} requests"
    )
