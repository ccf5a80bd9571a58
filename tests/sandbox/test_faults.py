"""Fault injection: a seeded double LLM failing 30 % of calls, and a run SIGKILLed midway then restarted.

Run as a script, this file is the driver the test starts and kills: it runs every trial of a multi-turn
program through the sandbox with TrialChat and the response store, logging each answer the double gave.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

PROGRAM = '''
from chatgpt4pcg.competition import TrialContext, TrialLoop, chat_with_chatgpt


class ThreeTurns(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        history = [{"role": "user", "content": f"letter {target_character}"}]
        for turn in range(3):
            answer = chat_with_chatgpt(ctx, history)[0]
            history += [{"role": "assistant", "content": answer}, {"role": "user", "content": f"turn {turn}"}]
        return answer
'''
LETTERS, TRIALS = "ABCDE", 2


def answer(messages: list[dict]) -> str:
    """Deterministic in the request, so a clean run and a resumed run must agree."""
    h = int(hashlib.sha256(json.dumps(messages).encode()).hexdigest(), 16)
    return f"```\ndrop_block('b11', {h % 10})\ndrop_block('b31', {h % 7 + 1})\n```"


def drive(root: Path, rate: float, run: int) -> None:
    from pcg_plugin.errors import OfficialFailure
    from pcg_plugin.problems.science_birds.editions import profile_for
    from pcg_plugin.llm.retry import RetryPolicy
    from pcg_plugin.llm.scripted import Faults, ScriptedBackend
    from pcg_plugin.llm.session import TrialChat
    from pcg_plugin.llm.store import ResponseStore, TrialKey, request_hash
    from pcg_plugin.sandbox.run import SandboxLimits, run_program_trial

    profile = profile_for("2024", model="double")
    store = ResponseStore(root / "store.sqlite")
    entry = root / "program" / "main.py"
    results: dict[str, str] = {}
    retries = 0
    log = open(root / "answered.jsonl", "a", encoding="utf-8")
    for letter in LETTERS:
        for trial in range(1, TRIALS + 1):
            key = TrialKey("2024", "double", "three-turns", "h", letter, trial)

            def respond(messages: list[dict], n: int, key: TrialKey = key) -> list[str]:
                time.sleep(0.03)  # give the killer a window in the middle of a trial
                digest = request_hash({**profile.request_params(), "n": n, "messages": messages})
                log.write(json.dumps({"run": run, "key": key.id, "digest": digest}) + "\n")
                log.flush()
                return [answer(messages)] * n

            backend = ScriptedBackend(respond, failures=Faults(rate, seed=zlib.crc32(f'{letter}{trial}{run}'.encode())))
            chat = TrialChat(key, backend=backend, profile=profile, store=store,
                             retry=RetryPolicy(max_attempts=30, base=0.001, cap=0.002), sleep=lambda s: None)
            with tempfile.TemporaryDirectory() as work:
                try:
                    response = run_program_trial(entry, letter=letter, chat=chat.chat,
                                                 limits=SandboxLimits(wall_time=60, cpu_time=60),
                                                 workdir=Path(work))
                    chat.finish(response)
                    results[f"{letter}{trial}"] = response
                except OfficialFailure as failure:
                    results[f"{letter}{trial}"] = f"failed: {failure.reason}"
            retries += chat.usage["retries"]
    (root / f"retries-{run}.txt").write_text(str(retries))
    (root / "results.json").write_text(json.dumps(results, sort_keys=True))


def _setup(root: Path) -> Path:
    (root / "program").mkdir(parents=True)
    (root / "program" / "main.py").write_text(PROGRAM)
    return root


def _start(root: Path, rate: float, run: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, __file__, str(root), str(rate), str(run)], start_new_session=True,
                            cwd=Path(__file__).parents[2])  # fmt: skip


def _stored(root: Path) -> set[tuple[str, str]]:
    db = sqlite3.connect(root / "store.sqlite", timeout=30)
    try:
        return set(db.execute("SELECT key_id, request_hash FROM calls"))
    except sqlite3.OperationalError:
        return set()
    finally:
        db.close()


def _answered(root: Path, run: int) -> list[tuple[str, str]]:
    path = root / "answered.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")] if path.exists() else []
    return [(r["key"], r["digest"]) for r in rows if r["run"] == run]


def test_killed_faulty_run_resumes_to_the_clean_result(tmp_path: Path) -> None:
    clean = _setup(tmp_path / "clean")
    assert _start(clean, 0.0, 1).wait(timeout=120) == 0
    expected = json.loads((clean / "results.json").read_text())
    assert len(expected) == len(LETTERS) * TRIALS and not any(v.startswith("failed") for v in expected.values())

    faulty = _setup(tmp_path / "faulty")
    proc = _start(faulty, 0.3, 1)
    deadline = time.monotonic() + 120
    while len(_stored(faulty)) < 12 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the whole run dies midway: driver, its sandbox child, all at once
    proc.wait()
    stored = _stored(faulty)
    assert 12 <= len(stored) < len(LETTERS) * TRIALS * 3, "the kill did not land midway"
    assert not (faulty / "results.json").exists()

    assert _start(faulty, 0.3, 2).wait(timeout=120) == 0
    assert json.loads((faulty / "results.json").read_text()) == expected
    again = _answered(faulty, 2)
    assert again, "the restart should pay for the calls the first run never made"
    assert not set(again) & stored, "a response stored before the kill was requested again"
    assert len(again) == len(set(again)), "a response was requested twice in one run"
    assert len(_stored(faulty)) == len(LETTERS) * TRIALS * 3
    assert int((faulty / "retries-2.txt").read_text()) > 0, "the 30 % fault rate never fired"


if __name__ == "__main__":
    drive(Path(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]))
