"""The fork server: trials forked from one started sandbox process start from the same state a new interpreter
would give them (fresh import, own random state, own CPU-time account, own folder); many run side by side, each in
namespaces of its own where the sandbox has a PID namespace, and a trial that had to be stopped is killed with
everything it started, never another trial or the server."""

from __future__ import annotations

import dataclasses
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pcg_plugin.core.session.inflight import slots
from pcg_plugin.core.session.inflight.slots import Slots
from pcg_plugin.errors import OfficialFailure
from pcg_plugin.sandbox import forks as sandbox_forks
from pcg_plugin.sandbox.run import SandboxLimits, network_namespace_prefix, run_program_trial, use_start_method

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


@pytest.fixture(autouse=True, params=["one at a time", "side by side"])
def fork_start(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test with one trial in flight per process (the server runs one trial at a time), and with trials in
    flight (the server runs them side by side, each in namespaces of its own where there is a PID namespace)."""
    use_start_method("fork")
    sandbox_forks.stop_all()
    slots.install(Slots(1, 8) if request.param == "side by side" else None)
    yield request.param
    slots.install(None)
    sandbox_forks.stop_all()


SIDE_BY_SIDE = pytest.mark.parametrize("fork_start", ["side by side"], indirect=True)  # that server's tests only
ONE_AT_A_TIME = pytest.mark.parametrize("fork_start", ["one at a time"], indirect=True)


def echo(messages: list[dict], n: int) -> list[str]:
    return [f"echo {messages[-1]['content']}"] * n


def entry_of(tmp_path: Path, name: str, source: str) -> Path:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "main.py").write_text(source)
    (folder / "prompt.txt").write_text("p")
    return folder / "main.py"


def run(entry: Path, tmp_path: Path, letter: str, limits: SandboxLimits = FAST, chat=echo) -> str:
    work = Path(tempfile.mkdtemp(prefix=f"work-{letter}-", dir=tmp_path))  # a folder of its own from any thread
    return run_program_trial(entry, letter=letter, chat=chat, limits=limits, workdir=work)


def at_once(entry: Path, tmp_path: Path, letter: str, count: int) -> list[str]:
    """``count`` trials of ``entry`` started from as many threads at once; their outcomes."""
    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(run(entry, tmp_path, letter))) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def servers() -> list[int]:
    return [s.proc.pid for s in sandbox_forks._SERVERS.values()]


def isolated() -> bool:
    """Whether this machine's fork server runs each trial in namespaces of its own (side by side, where
    ``unshare -rnpf`` works)."""
    return all(s.isolated for s in sandbox_forks._SERVERS.values())


def pid_namespace() -> bool:
    return "--kill-child" in network_namespace_prefix()


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


HEARTBEAT = """
import ctypes, os, time
from chatgpt4pcg.competition import TrialContext, TrialLoop


class Heartbeat(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        libc = ctypes.CDLL(None)
        if libc.fork() == 0:  # native: the audit hook does not see it
            libc.setsid()  # leaves the trial's process group
            while True:
                with open(os.path.join(os.environ["TMPDIR"], "beat"), "a") as f:
                    f.write(".")
                time.sleep(0.05)
        time.sleep(float(target_character))
        return "slept"
"""


def test_a_timed_out_trial_is_killed_with_what_it_started_and_the_server_goes_on(tmp_path: Path) -> None:
    entry = entry_of(tmp_path, "team", SLEEPS)
    assert run(entry, tmp_path, "0") == "slept"
    first = servers()
    beats = entry_of(tmp_path, "beats", HEARTBEAT)
    with pytest.raises(OfficialFailure) as info:
        run(beats, tmp_path, "30", dataclasses.replace(FAST, wall_time=1.0))
    assert info.value.reason == "timeout"
    if pid_namespace():  # its native fork that left the group ended with the trial's (or the sandbox's) namespace
        (beat,) = tmp_path.glob("work-*/tmp/beat")
        size = beat.stat().st_size
        time.sleep(0.3)
        assert beat.stat().st_size == size > 0
    assert run(entry, tmp_path, "0") == "slept"
    assert servers() == first  # the other trials' server was never stopped


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


@SIDE_BY_SIDE
def test_trials_in_flight_are_forked_side_by_side_from_one_server(tmp_path: Path) -> None:
    entry = entry_of(tmp_path, "team", SLEEPS)
    assert run(entry, tmp_path, "0") == "slept"  # the server is started
    began = time.perf_counter()
    assert at_once(entry, tmp_path, "0.6", 4) == ["slept"] * 4 and len(servers()) == 1
    assert time.perf_counter() - began < 4 * 0.6  # not one after another


LISTS_PROCESSES = """
import os, time
from chatgpt4pcg.competition import TrialContext, TrialLoop


class Lists(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        time.sleep(0.3)  # the other trials are running now
        return ",".join(sorted(p for p in os.listdir("/proc") if p.isdigit()))
"""


@SIDE_BY_SIDE
def test_a_trial_sees_only_its_own_processes_beside_other_trials(tmp_path: Path) -> None:
    """Each trial is PID 2 under its own init: it cannot see, signal or read another team's trial or the server."""
    entry = entry_of(tmp_path, "team", LISTS_PROCESSES)
    run(entry, tmp_path, "A")
    if not isolated():
        pytest.skip("this machine gives the sandbox no PID namespace (unshare -rnpf): trials share one")
    assert at_once(entry, tmp_path, "A", 3) == ["1,2"] * 3


@ONE_AT_A_TIME
def test_a_busy_server_sends_a_second_thread_to_a_new_interpreter(tmp_path: Path) -> None:
    """One trial in flight per process: a second thread (never the harness's own) gets a new interpreter."""
    entry = entry_of(tmp_path, "team", SLEEPS)
    assert at_once(entry, tmp_path, "0.5", 2) == ["slept", "slept"] and len(servers()) == 1


def test_an_unknown_start_method_is_refused() -> None:
    with pytest.raises(ValueError, match="--pcg-sandbox-start"):
        use_start_method("spawn")


KILLS_PARENT = """
import ctypes, os, signal, time
from chatgpt4pcg.competition import TrialContext, TrialLoop


class KillsParent(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        ctypes.CDLL(None).kill(os.getppid(), signal.SIGKILL)  # native: the audit hook does not see it
        time.sleep(0.5)
        os._exit(1)
"""


@SIDE_BY_SIDE
def test_a_program_cannot_kill_the_server_beside_other_trials(tmp_path: Path) -> None:
    """Its parent is its trial's own init (PID 1 of its namespace, which the kernel shields from it): the server and
    the other trials go on; the program just fails."""
    run(entry_of(tmp_path, "good", STATEFUL), tmp_path, "A")
    if not isolated():
        pytest.skip("this machine gives the sandbox no PID namespace (unshare -rnpf): its parent is the server")
    first = servers()
    with pytest.raises(OfficialFailure) as info:
        run(entry_of(tmp_path, "killer", KILLS_PARENT), tmp_path, "B")
    assert info.value.reason == "program_error" and "status 1" in info.value.message
    assert run(entry_of(tmp_path, "good", STATEFUL), tmp_path, "C").startswith("1|") and servers() == first


def test_a_server_that_dies_during_a_trial_is_an_infrastructure_error_and_is_replaced(tmp_path: Path) -> None:
    """Who ended the server cannot be told apart from a harness fault, so the trial is not scored (the item errors,
    visibly) rather than charged to the program; the next trial starts a new server."""
    import os
    import signal

    from pcg_plugin.errors import InfrastructureError

    entry = entry_of(tmp_path, "team", SLEEPS)
    assert run(entry, tmp_path, "0") == "slept"
    (pid,) = servers()
    threading.Timer(0.5, lambda: os.killpg(pid, signal.SIGKILL)).start()  # e.g. the OOM killer
    with pytest.raises(InfrastructureError, match="fork server ended"):
        run(entry, tmp_path, "5")
    assert run(entry_of(tmp_path, "good", STATEFUL), tmp_path, "B").startswith("1|")
    assert servers() != [pid]


def test_a_server_killed_between_trials_costs_the_next_trial_nothing(tmp_path: Path) -> None:
    import os
    import signal

    entry = entry_of(tmp_path, "team", STATEFUL)
    assert run(entry, tmp_path, "A").startswith("1|")
    for server in sandbox_forks._SERVERS.values():
        os.killpg(server.proc.pid, signal.SIGKILL)  # e.g. the OOM killer, noticed only when the next trial is sent
    assert run(entry, tmp_path, "B").startswith("1|")
    assert run(entry, tmp_path, "C").startswith("1|")
