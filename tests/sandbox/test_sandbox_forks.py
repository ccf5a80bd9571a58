"""The fork server: trials forked from one started sandbox process start from the same state a new interpreter
would give them (fresh import, own random state, own CPU-time account, own folder), and a trial that had to be
stopped takes its server down with it, never the next trial."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pcg_plugin.errors import OfficialFailure
from pcg_plugin.sandbox import forks as sandbox_forks
from pcg_plugin.sandbox.run import SandboxLimits, run_program_trial, use_start_method

FAST = SandboxLimits(wall_time=20.0, cpu_time=20, memory_bytes=2 << 30)
STATEFUL = """
import os, random
from chatgpt4pcg.competition import TrialContext, TrialLoop, chat_with_chatgpt

CALLS = []


class Stateful(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        CALLS.append(target_character)
        left = os.listdir(".")
        open("note.txt", "w").write(target_character)
        open(os.path.join(os.environ["TMPDIR"], "t.txt"), "w").write(target_character)
        chat_with_chatgpt(ctx, [{"role": "user", "content": target_character}])
        return f"{len(CALLS)}|{sorted(left)}|{random.random()}|{os.getcwd().endswith('submission')}"
"""
SPINS_HALF = """
import time
from chatgpt4pcg.competition import TrialContext, TrialLoop


class Spins(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        end = time.process_time() + 0.7
        while time.process_time() < end:
            pass
        return "spun"
"""
SLEEPS = """
import time
from chatgpt4pcg.competition import TrialContext, TrialLoop


class Sleeps(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        time.sleep(float(target_character))
        return "slept"
"""


@pytest.fixture(autouse=True)
def fork_start() -> Iterator[None]:
    use_start_method("fork")
    sandbox_forks.stop_all()
    yield
    sandbox_forks.stop_all()


def echo(messages: list[dict], n: int) -> list[str]:
    return [f"echo {messages[-1]['content']}"] * n


def entry_of(tmp_path: Path, name: str, source: str) -> Path:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "main.py").write_text(source)
    (folder / "prompt.txt").write_text("p")
    return folder / "main.py"


def run(entry: Path, tmp_path: Path, letter: str, limits: SandboxLimits = FAST, chat=echo) -> str:
    work = tmp_path / f"work-{letter}-{len(list(tmp_path.iterdir()))}"
    work.mkdir()
    return run_program_trial(entry, letter=letter, chat=chat, limits=limits, workdir=work)


def servers() -> list[int]:
    return [s.proc.pid for pool in sandbox_forks._SERVERS.values() for s in pool]


def test_each_trial_starts_from_a_fresh_import_folder_and_random_state(tmp_path: Path) -> None:
    entry = entry_of(tmp_path, "team", STATEFUL)
    outs = [run(entry, tmp_path, letter) for letter in "ABC"]
    calls, listings, randoms, in_scratch = zip(*(o.split("|") for o in outs), strict=True)
    assert calls == ("1", "1", "1")  # module state is never carried from one trial to the next
    assert set(listings) == {str(["main.py", "prompt.txt"])}  # the file the last trial wrote is not there
    assert len(set(randoms)) == 3  # random is seeded again in every forked child
    assert in_scratch == ("True", "True", "True")
    assert len(servers()) == 1  # all three were forked from one server


def test_the_cpu_limit_counts_each_trial_on_its_own(tmp_path: Path) -> None:
    """Two trials of 0.7 s CPU each under a 1 s limit: a shared account would stop the second."""
    entry = entry_of(tmp_path, "team", SPINS_HALF)
    limits = dataclasses.replace(FAST, cpu_time=1)
    assert [run(entry, tmp_path, letter, limits) for letter in "AB"] == ["spun", "spun"]


def test_a_timed_out_trial_stops_its_server_and_the_next_trial_gets_a_new_one(tmp_path: Path) -> None:
    entry = entry_of(tmp_path, "team", SLEEPS)
    assert run(entry, tmp_path, "0") == "slept"
    first = servers()
    with pytest.raises(OfficialFailure) as info:
        run(entry, tmp_path, "30", dataclasses.replace(FAST, wall_time=1.0))
    assert info.value.reason == "timeout"
    assert run(entry, tmp_path, "0") == "slept"
    assert servers() != first and len(servers()) == 1


def test_a_program_that_exits_mid_chat_leaves_nothing_for_the_next_trial(tmp_path: Path) -> None:
    """An answer the dying program never read stays in that trial's own pipe."""
    leaves = entry_of(
        tmp_path,
        "leaves",
        """
import os
from chatgpt4pcg.competition import TrialContext, TrialLoop


class Leaves(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        channel = next(c.cell_contents for c in ctx._transport.__closure__ if hasattr(c.cell_contents, "send"))
        channel.send({"op": "chat", "messages": [{"role": "user", "content": "unread"}], "n": 1})
        os._exit(3)
""",
    )
    good = entry_of(tmp_path, "good", STATEFUL)
    with pytest.raises(OfficialFailure) as info:
        run(leaves, tmp_path, "A")
    assert info.value.reason == "program_error" and "status 3" in info.value.message
    assert run(good, tmp_path, "B").startswith("1|")
    assert len(servers()) == 1


def test_a_busy_server_sends_a_second_thread_to_a_new_interpreter(tmp_path: Path) -> None:
    entry = entry_of(tmp_path, "team", SLEEPS)
    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(run(entry, tmp_path, "0.5"))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == ["slept", "slept"] and len(servers()) == 1


def test_an_unknown_start_method_is_refused() -> None:
    with pytest.raises(ValueError, match="--pcg-sandbox-start"):
        use_start_method("spawn")


KILLS_SERVER = """
import ctypes, os, signal, time
from chatgpt4pcg.competition import TrialContext, TrialLoop


class KillsServer(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        ctypes.CDLL(None).kill(os.getppid(), signal.SIGKILL)  # native: the audit hook does not see it
        time.sleep(2)  # in a PID namespace it dies with the server at once; elsewhere it ends here
        os._exit(1)
"""


def test_a_server_that_dies_during_a_trial_is_an_infrastructure_error_and_is_replaced(tmp_path: Path) -> None:
    """Who ended the server cannot be told apart from a harness fault, so the trial is not scored (the item errors,
    visibly) rather than charged to the program; the next trial starts a new server."""
    from pcg_plugin.errors import InfrastructureError

    with pytest.raises(InfrastructureError, match="fork server ended"):
        run(entry_of(tmp_path, "killer", KILLS_SERVER), tmp_path, "A")
    assert run(entry_of(tmp_path, "good", STATEFUL), tmp_path, "B").startswith("1|")


def test_a_server_killed_between_trials_costs_the_next_trial_nothing(tmp_path: Path) -> None:
    import os
    import signal

    entry = entry_of(tmp_path, "team", STATEFUL)
    assert run(entry, tmp_path, "A").startswith("1|")
    for server in (s for pool in sandbox_forks._SERVERS.values() for s in pool):
        os.killpg(server.proc.pid, signal.SIGKILL)  # e.g. the OOM killer, noticed only when the next trial is sent
    assert run(entry, tmp_path, "B").startswith("1|")
    assert run(entry, tmp_path, "C").startswith("1|")
