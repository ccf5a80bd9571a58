"""Fault injection: a provider's every fault against a whole run of every problem and edition; a seeded double
LLM failing 30 % of calls, and a run SIGKILLed midway then restarted.

Run as a script, this file is the driver the kill test starts and kills: it runs every trial of a multi-turn
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

import pytest

PROGRAM = """
from chatgpt4pcg.competition import TrialContext, TrialLoop, chat_with_chatgpt


class ThreeTurns(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        history = [{"role": "user", "content": f"letter {target_character}"}]
        for turn in range(3):
            answer = chat_with_chatgpt(ctx, history)[0]
            history += [{"role": "assistant", "content": answer}, {"role": "user", "content": f"turn {turn}"}]
        return answer
"""
LETTERS, TRIALS = "ABCDE", 2


def answer(messages: list[dict]) -> str:
    """Deterministic in the request, so a clean run and a resumed run must agree."""
    h = int(hashlib.sha256(json.dumps(messages).encode()).hexdigest(), 16)
    return f"```\ndrop_block('b11', {h % 10})\ndrop_block('b31', {h % 7 + 1})\n```"


def drive(root: Path, rate: float, run: int) -> None:
    from pcg_plugin.errors import OfficialFailure
    from pcg_plugin.llm.retry import RetryPolicy
    from pcg_plugin.llm.scripted import Faults, ScriptedBackend
    from pcg_plugin.llm.session import TrialChat
    from pcg_plugin.llm.store import ResponseStore, TrialKey, request_hash
    from pcg_plugin.problems.science_birds.editions import profile_for
    from pcg_plugin.sandbox.run import SandboxLimits, run_program_trial

    profile = profile_for("2024", model="double")
    store = ResponseStore(root / "store.sqlite")
    entry = root / "program" / "main.py"
    results: dict[str, str] = {}
    retries = 0
    with open(root / "answered.jsonl", "a", encoding="utf-8") as log:
        for letter in LETTERS:
            for trial in range(1, TRIALS + 1):
                key = TrialKey("2024", "double", "three-turns", "h", letter, trial)

                def respond(messages: list[dict], n: int, key: TrialKey = key) -> list[str]:
                    time.sleep(0.03)  # give the killer a window in the middle of a trial
                    digest = request_hash({**profile.request_params(), "n": n, "messages": messages})
                    log.write(json.dumps({"run": run, "key": key.id, "digest": digest}) + "\n")
                    log.flush()
                    return [answer(messages)] * n

                backend = ScriptedBackend(
                    respond, failures=Faults(rate, seed=zlib.crc32(f"{letter}{trial}{run}".encode()))
                )
                chat = TrialChat(
                    key,
                    backend=backend,
                    profile=profile,
                    store=store,
                    retry=RetryPolicy(max_attempts=30, base=0.001, cap=0.002),
                    sleep=lambda s: None,
                )
                with tempfile.TemporaryDirectory() as work:
                    try:
                        response = run_program_trial(
                            entry,
                            letter=letter,
                            chat=chat.chat,
                            limits=SandboxLimits(wall_time=60, cpu_time=60),
                            workdir=Path(work),
                        )
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
    return subprocess.Popen(
        [sys.executable, __file__, str(root), str(rate), str(run)],
        start_new_session=True,
        cwd=Path(__file__).parents[2],
    )


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


# -- a provider's faults against whole runs (issue 38) -------------------------------------------------------------

FAST = {"PCG_TRIAL_DEADLINE": "5"}  # a hung call waits 5 s, not the 3 to 30 minutes of a real run (a retry: 1 s)


SLOW = pytest.mark.slow
EVERY_PROBLEM = [
    "sb2024",
    "pcgbench",
    pytest.param("gameeval", marks=SLOW),  # its episodes' faults go through the same store and retries
    pytest.param("sb2023", marks=SLOW),
    pytest.param("sb2025", marks=SLOW),
    pytest.param("imagegame", marks=SLOW),
]


@pytest.mark.parametrize("problem", EVERY_PROBLEM)
def test_every_fault_of_a_provider_in_one_run(tmp_path: Path, problem: str) -> None:
    """One team per fault (``tests/fault_cases.py``), all in one run: the retried faults score as the clean team
    does, the replies taken as received are stored and replayed identically, the two waits past the deadline
    error their items at once and ``--lf`` finishes them; every reply the server gave is stored, none is asked
    for twice, and results.json and the report name every team each time."""
    every_fault_in_one_run(tmp_path, problem, "openai")


# The providers' fault handling is the harness's, the same for every problem: the default command runs it on the
# cheapest problem (a PCG Benchmark run imports no classifier), `-m slow` on the others.
NATIVE_PROBLEMS = ["pcgbench", pytest.param("sb2024", marks=SLOW), pytest.param("gameeval", marks=SLOW)]


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
@pytest.mark.parametrize("problem", NATIVE_PROBLEMS)
def test_every_fault_of_a_native_provider_in_one_run(tmp_path: Path, problem: str, provider: str) -> None:
    """The same suite through the Anthropic and Gemini SDKs against loopback fakes of their wire formats, each
    fault in that format (529 overloaded, RESOURCE_EXHAUSTED with a RetryInfo delay, a refusal or a candidate
    blocked for safety, a blocked prompt), plus the account's caps (a spend limit, a daily quota): never retried,
    the item errors naming it and ``--lf`` finishes it once the account has room."""
    pytest.importorskip(
        "anthropic" if provider == "anthropic" else "google.genai",
        reason=f"the {provider} SDK (pip install -e '.[{provider}]') is not installed",
    )
    every_fault_in_one_run(tmp_path, problem, provider)


def every_fault_in_one_run(tmp_path: Path, problem: str, provider: str) -> None:
    from fault_cases import (
        ACCOUNT,
        AS_RECEIVED,
        PAST_DEADLINE,
        PROBLEMS,
        RETRIED,
        FaultServer,
        faults_of,
        outcomes,
        run_pytest,
        scores,
        serve,
        team_name,
    )

    p, faults = PROBLEMS[problem], faults_of(provider)
    teams = {team_name(None): None, **{team_name(kind): kind for kind in faults}}
    args = p.setup(tmp_path, teams, {})
    clean = team_name(None)
    errored = [k for k in (*PAST_DEADLINE, *ACCOUNT) if k in faults]
    with serve(FaultServer(p.answer), provider) as server:
        first = run_pytest(tmp_path, server, p, args, "out1", env=FAST, provider=provider)
        assert first.returncode == 1, first.output[-3000:]
        assert first.results is not None and first.report
        got, score = outcomes(first.results), scores(first.results)
        assert set(got) == set(teams), first.output[-3000:]
        for kind in RETRIED:  # the provider's fault, retried: the team scores as the clean team does
            if kind in faults:
                assert got[team_name(kind)] == got[clean] == ["ok"] and score[team_name(kind)] == score[clean], kind
        for kind in AS_RECEIVED:  # the model's answer: scored, or a named zero
            assert got[team_name(kind)][0] == "ok" or got[team_name(kind)][0].startswith("zero:"), kind
        for kind in errored:
            assert got[team_name(kind)] == ["error"], kind
        assert first.output.count("rerun it with --lf") >= 2 and "would wait 3600" in first.output
        for kind, named in (("spend-limit", "spend limit"), ("daily-quota", "daily quota")):
            assert kind not in faults or named in first.output, named  # the account's cap, named as such
        assert first.requests == first.answered + first.faulted and first.faulted == len(faults) - len(AS_RECEIVED)
        assert first.held == first.recorded == first.answered  # every answer stored, no fault stored

        second = run_pytest(tmp_path, server, p, args, "out2", "--lf", env=FAST, provider=provider)
        assert second.returncode == 0, second.output[-3000:]
        assert outcomes(second.results) == {team_name(k): ["ok"] for k in errored}
        assert second.faulted == 0 and second.requests == second.answered > 0
        assert second.held == second.recorded == first.answered + second.answered  # nothing asked twice

        third = run_pytest(tmp_path, server, p, args, "out3", env=FAST, cache=False, provider=provider)
        assert third.returncode == 0 and third.requests == 0, third.output[-3000:]
        again = outcomes(third.results)
        assert again == {**got, **{team_name(k): ["ok"] for k in errored}}  # replayed as it was scored
        assert third.report and third.held == second.held


@pytest.mark.parametrize(
    ("problem", "in_flight"),
    [
        ("pcgbench", 1),
        ("pcgbench", 4),
        pytest.param("sb2024", 1, marks=SLOW),  # the store and the stop are the harness's: one problem here
        pytest.param("sb2024", 4, marks=SLOW),
        pytest.param("gameeval", 1, marks=SLOW),
        pytest.param("gameeval", 4, marks=SLOW),
    ],
)
def test_a_full_disk_stops_paying_and_the_run_reports_what_was_done(
    tmp_path: Path, problem: str, in_flight: int
) -> None:
    """The store's disk fills at the second call: that reply is paid and lost, no later call is paid, the run
    ends naming the error with results.json and the report of what was done; a rerun (disk freed) pays for the
    rest and scores every team. With trials in flight, the calls already sent when the disk filled are lost with
    it (at most one per trial in flight), and nothing is sent after."""
    import loopback_llm
    from fault_cases import DISK_FULL_CONFTEST, PROBLEMS, FaultServer, outcomes, run_pytest

    p = PROBLEMS[problem]
    teams = {f"t{i}": None for i in range(1, 5)}
    args = [*p.setup(tmp_path, teams, {}), "--pcg-in-flight", str(in_flight)]
    (tmp_path / "conftest.py").write_text(DISK_FULL_CONFTEST, encoding="utf-8")
    with loopback_llm.serve(FaultServer(p.answer)) as server:
        first = run_pytest(tmp_path, server, p, args, "out1", env={"PCG_TEST_DISK_FULL_AT": "2"})
        assert first.returncode != 0
        assert "pytest-pcg stopped the run" in first.output and "could not be written" in first.output, first.output[
            -3000:
        ]
        assert first.results is not None and first.report, first.output[-3000:]
        assert first.requests == first.answered
        if in_flight == 1:
            assert first.requests == first.recorded + 1  # the one lost, nothing paid after it
            done = outcomes(first.results)
            if problem == "gameeval":  # an episode makes several calls: the first episode's second is the one lost
                assert "ok" not in done.get("t1", []), done
            else:
                assert "ok" in done.get("t1", []), done
            assert "ok" not in done.get("t2", []) and "ok" not in done.get("t3", []) + done.get("t4", []), done
        else:  # the calls in flight when the disk filled: each trial's first, lost; none sent after
            assert first.recorded + 1 <= first.requests <= first.recorded + in_flight
        second = run_pytest(tmp_path, server, p, args, "out2", env={"PCG_TEST_DISK_FULL_AT": "0"})
        assert second.returncode == 0, second.output[-3000:]
        assert set(outcomes(second.results)) == set(teams)
        assert all(o == ["ok"] for o in outcomes(second.results).values()), outcomes(second.results)
        assert second.requests == second.recorded - first.recorded  # only what was not stored is paid again


# A trial resumed from its recording is the store's doing: the default command tries a program trial (the PCG
# Benchmark's) and an episode (GameEval's); Science Birds' program trial goes through the same sandbox and store.
@pytest.mark.parametrize("problem", [pytest.param("sb2024", marks=SLOW), *(p for p in EVERY_PROBLEM if p != "sb2024")])
def test_an_unseeded_program_is_resumed_from_its_recording(tmp_path: Path, problem: str) -> None:
    """A program whose prompt differs every run (a hint drawn anew): a rerun on the same store reuses every
    finished trial as recorded (nothing paid, the same outcomes and scores) instead of failing it."""
    import loopback_llm
    from fault_cases import PROBLEMS, FaultServer, outcomes, run_pytest, scores

    p = PROBLEMS[problem]
    teams = {"t1": None, "t2": None}
    args = p.setup(tmp_path, teams, {"unseeded": True, "trials": 2})
    with loopback_llm.serve(FaultServer(p.answer)) as server:
        first = run_pytest(tmp_path, server, p, args, "out1", cache=False)
        assert first.returncode == 0 and first.requests == first.recorded > 0, first.output[-3000:]
        second = run_pytest(tmp_path, server, p, args, "out2", cache=False)
        assert second.returncode == 0, second.output[-3000:]
        assert second.requests == 0 and second.held == first.held
        assert outcomes(second.results) == outcomes(first.results) and scores(second.results) == scores(first.results)


if __name__ == "__main__":
    drive(Path(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]))
