"""The sandbox against hostile participant programs: each is stopped or neutralised, the others are unaffected.

Every test runs twice: with each trial forked from the fork server (the default) and with a new interpreter per
trial (``--pcg-sandbox-start exec``)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pcg_plugin.errors import InfrastructureError, OfficialFailure
from pcg_plugin.problems.science_birds.editions import program_limits
from pcg_plugin.sandbox.run import START_METHODS, SandboxLimits, run_program_trial, use_start_method

HOSTILE = Path(__file__).parents[1] / "hostile"
GOOD = """
from chatgpt4pcg.competition import TrialContext, TrialLoop, chat_with_chatgpt, run_evaluation


class ZeroShot(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        return chat_with_chatgpt(ctx, [{"role": "user", "content": f"build {target_character}"}])[0]


if __name__ == "__main__":
    run_evaluation("team", ZeroShot, 10)
"""
FAST = SandboxLimits(wall_time=20.0, cpu_time=20, memory_bytes=2 << 30)


@pytest.fixture(autouse=True, params=START_METHODS)
def start_method(request: pytest.FixtureRequest) -> Iterator[str]:
    use_start_method(request.param)
    yield request.param
    use_start_method("fork")


def echo(messages: list[dict], n: int) -> list[str]:
    return [f"echo {messages[-1]['content']}"] * n


def program(tmp_path: Path, name: str, source: str | None = None, **files: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    text = source if source is not None else (HOSTILE / f"{name}.py.txt").read_text()
    (folder / "main.py").write_text(text)
    for fname, content in files.items():
        (folder / fname.replace("_", ".")).write_text(content)
    return folder / "main.py"


def trial(entry: Path, tmp_path: Path, chat=echo, limits: SandboxLimits = FAST, letter: str = "A") -> str:
    work = tmp_path / f"work-{entry.parent.name}-{letter}"
    work.mkdir()
    return run_program_trial(entry, letter=letter, chat=chat, limits=limits, workdir=work)


def failure(entry: Path, tmp_path: Path, **kw) -> OfficialFailure:
    with pytest.raises(OfficialFailure) as info:
        trial(entry, tmp_path, **kw)
    return info.value


def test_good_program_round_trips_chat(tmp_path: Path) -> None:
    assert trial(program(tmp_path, "good", GOOD), tmp_path) == "echo build A"


def test_llms4pcg_shim_registers_run_evaluation_and_serves_n(tmp_path: Path) -> None:
    seen = []

    def chat(messages, n):
        seen.append(n)
        return [f"choice {i}" for i in range(n)]

    assert trial(program(tmp_path, "llms4pcg_ok"), tmp_path, chat=chat) == "choice 1"
    assert seen == [2]


def test_api_key_never_reaches_the_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    monkeypatch.setenv("PCG_SECRET_TOKEN", "tok")
    out = trial(program(tmp_path, "reads_key"), tmp_path)
    assert "sk-secret-123" not in out and "KEY=None" in out and "PCG_SECRET_TOKEN" not in out


def test_reading_the_parents_environment_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    f = failure(program(tmp_path, "reads_parent_env"), tmp_path)
    assert f.reason == "sandbox_violation" and "/proc/" in f.message and "sk-secret" not in f.message


@pytest.mark.parametrize("network", ["deny", "hook"])
def test_socket_is_stopped_and_nothing_arrives(tmp_path: Path, network: str) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    got: list[bytes] = []
    try:
        entry = program(tmp_path, "opens_socket", port_txt=str(server.getsockname()[1]))
        f = failure(entry, tmp_path, limits=dataclasses.replace(FAST, network=network))
        # The program has ended: a connection it made waits in the listen queue with what it sent.
        server.settimeout(0.5)
        with contextlib.suppress(OSError):
            conn, _ = server.accept()
            got.append(conn.recv(100))
    finally:
        server.close()
    assert f.reason == "sandbox_violation" and "network" in f.message
    assert got == []


def test_write_outside_scratch_is_stopped(tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    f = failure(program(tmp_path, "writes_outside", target_txt=str(target)), tmp_path)
    assert f.reason == "sandbox_violation" and "outside the scratch folder" in f.message
    assert not target.exists()


@pytest.mark.parametrize("name", ["forks", "spawns"])
def test_new_processes_are_stopped(tmp_path: Path, name: str) -> None:
    f = failure(program(tmp_path, name), tmp_path)
    assert f.reason == "sandbox_violation" and "starting a process" in f.message


def test_ten_gib_allocation_hits_the_memory_limit(tmp_path: Path) -> None:
    f = failure(program(tmp_path, "allocates"), tmp_path)
    assert f.reason == "memory" and "GiB memory limit" in f.message


def test_sleeping_forever_is_killed_at_the_wall_clock(tmp_path: Path) -> None:
    limits = dataclasses.replace(FAST, wall_time=1.5)
    f = failure(program(tmp_path, "sleeps"), tmp_path, limits=limits)
    assert f.reason == "timeout" and "wall-clock" in f.message


def _scripted_chat(tmp_path: Path, token_limit: int):
    from pcg_plugin.llm.scripted import ScriptedBackend
    from pcg_plugin.llm.session import TrialChat
    from pcg_plugin.llm.store import ResponseStore, TrialKey
    from pcg_plugin.problems.science_birds.editions import profile_for

    profile = dataclasses.replace(profile_for("2024"), token_limit=token_limit)
    store = ResponseStore(tmp_path / "store.sqlite")
    backend = ScriptedBackend(lambda m, n: ["drop_block('b11', 1)"] * n, usage=(10, 20))
    key = TrialKey("2024", "scripted", "cheat", "h", "A", 1)
    return TrialChat(key, backend=backend, profile=profile, store=store), store


@pytest.mark.parametrize("name", ["patches_counter", "catches_guard"])
def test_token_counter_lives_in_the_parent(tmp_path: Path, name: str) -> None:
    chat, store = _scripted_chat(tmp_path, token_limit=100)
    try:
        f = failure(program(tmp_path, name), tmp_path, chat=chat.chat)
    finally:
        store.close()
    assert f.reason == "token_limit"
    assert chat.usage["calls"] == 4  # 30 tokens a call: the 4th passes 100 and is refused, whatever the child did


def test_syntax_error_is_a_program_error_with_traceback(tmp_path: Path) -> None:
    f = failure(program(tmp_path, "syntax_error"), tmp_path)
    assert f.reason == "program_error" and "SyntaxError" in f.message


def test_bytes_return_is_bad_return(tmp_path: Path) -> None:
    assert failure(program(tmp_path, "returns_bytes"), tmp_path).reason == "bad_return"


def test_huge_response_is_refused(tmp_path: Path) -> None:
    limits = dataclasses.replace(FAST, max_response_bytes=1 << 20)
    assert failure(program(tmp_path, "huge_response"), tmp_path, limits=limits).reason == "response_too_large"


def test_missing_trial_loop_is_a_program_error(tmp_path: Path) -> None:
    f = failure(program(tmp_path, "empty", "x = 1\n"), tmp_path)
    assert f.reason == "program_error" and "TrialLoop" in f.message


TWO_LOOPS = """
from chatgpt4pcg.competition import TrialLoop, run_evaluation


class Draft(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        return "draft"


class Final(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        return "final"


run_evaluation("team", Final, 10)
"""


def test_top_level_run_evaluation_picks_the_loop_among_several(tmp_path: Path) -> None:
    """The shim's registry is the one the child reads (the child runs as ``__main__``: no second copy)."""
    assert trial(program(tmp_path, "two_loops", TWO_LOOPS), tmp_path) == "final"


def test_infrastructure_errors_are_not_scored(tmp_path: Path) -> None:
    def broken(messages, n):
        raise InfrastructureError("model server down")

    with pytest.raises(InfrastructureError):
        trial(program(tmp_path, "good", GOOD), tmp_path, chat=broken)


def test_hostile_programs_leave_the_others_unaffected(tmp_path: Path) -> None:
    """Interleave every hostile program with a good one: the good results are identical and nothing lingers."""
    good = program(tmp_path, "good", GOOD)
    before = trial(good, tmp_path, letter="B")
    for i, name in enumerate(["forks", "sleeps", "writes_outside", "allocates"]):
        entry = program(tmp_path, name, target_txt=str(tmp_path / "x.txt"))
        with pytest.raises(OfficialFailure):
            trial(entry, tmp_path, limits=dataclasses.replace(FAST, wall_time=1.5))
        assert trial(good, tmp_path, letter=chr(ord("C") + i)) == f"echo build {chr(ord('C') + i)}"
    assert before == "echo build B"


def test_scrubbed_environment_keeps_only_basics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pcg_plugin.sandbox.run import _scrubbed_env

    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "y")
    env = _scrubbed_env(tmp_path, tmp_path)
    assert set(env) <= {
        "PATH",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TZ",
        "HOME",
        "TMPDIR",
        "PYTHONHASHSEED",
        "PYTHONIOENCODING",
    }
    assert os.environ["OPENAI_API_KEY"] == "sk-x"


def test_limits_follow_the_edition() -> None:
    assert SandboxLimits.for_max_time(120.0).wall_time == 180.0 == SandboxLimits().wall_time
    assert program_limits("2024").wall_time == 180.0 and program_limits("2023").wall_time == 180.0
    assert program_limits("2025").wall_time == 560.0 and program_limits("2025").cpu_time == 560


def test_stdout_flood_hits_the_file_size_limit(tmp_path: Path) -> None:
    limits = dataclasses.replace(FAST, max_output_bytes=1 << 20)
    f = failure(program(tmp_path, "floods_stdout"), tmp_path, limits=limits)
    assert f.reason == "sandbox_violation" and "bytes to one file" in f.message


def test_busy_loop_hits_the_cpu_limit(tmp_path: Path) -> None:
    f = failure(program(tmp_path, "spins"), tmp_path, limits=dataclasses.replace(FAST, cpu_time=1))
    assert f.reason == "timeout" and "CPU" in f.message


def test_garbage_on_the_harness_pipe_is_a_violation(tmp_path: Path) -> None:
    f = failure(program(tmp_path, "writes_pipe_garbage"), tmp_path)
    assert f.reason == "sandbox_violation" and "garbage" in f.message


def _processes_in(folder: Path) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")).is_relative_to(folder):
                pids.append(int(proc.name))
        except OSError:
            pass
    return pids


@pytest.mark.skipif(
    "--kill-child" not in __import__("pcg_plugin.sandbox.run").sandbox.run.network_namespace_prefix(),
    reason="no unprivileged PID namespace here: a native fork + setsid can outlive the trial",
)
def test_native_fork_that_leaves_the_group_dies_with_the_pid_namespace(tmp_path: Path) -> None:
    entry = program(tmp_path, "native_fork")
    assert trial(entry, tmp_path) == "forked natively"  # the audit hook cannot see native code ...
    time.sleep(0.3)
    assert _processes_in(tmp_path) == []  # ... but the PID namespace took the escapee down with it


COUNTS = """
from chatgpt4pcg.competition import TrialContext, TrialLoop, chat_with_chatgpt


class Counts(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        for _ in range(2):
            chat_with_chatgpt(ctx, [{"role": "user", "content": target_character}])
        return f"{ctx.get_total_token_count()} {ctx.get_trial_number()} {ctx.get_team_name()}"
"""


def test_context_counters_mirror_the_parents(tmp_path: Path) -> None:
    chat, store = _scripted_chat(tmp_path, token_limit=25_000)
    try:
        entry = program(tmp_path, "counts", COUNTS)
        work = tmp_path / "w"
        work.mkdir()
        out = run_program_trial(entry, letter="A", chat=chat.chat, limits=FAST, workdir=work, team="team_x", trial=7)
    finally:
        store.close()
    assert out == "60 7 team_x"  # two calls of 10 prompt + 20 completion tokens, counted by the parent


def test_a_caught_violation_still_stops_the_trial_before_any_more_calls(tmp_path: Path) -> None:
    calls: list[int] = []

    def counting(messages, n):
        calls.append(n)
        return ["x"] * n

    f = failure(program(tmp_path, "catches_violation"), tmp_path, chat=counting)
    assert f.reason == "sandbox_violation" and calls == []


def test_nested_program_runs_from_the_root_with_its_imports_and_model_name(tmp_path: Path) -> None:
    """``python tot/tot.py`` from the team folder: prompts read from the root's working folder, a sibling module of
    the entry and a root module both import, installed requirements come from ``site_dirs``, and the context
    carries the model name (2025's run_evaluation passed it)."""
    root = tmp_path / "team"
    for rel, text in {
        "tot/tot.py": (
            "from llms4pcg.competition import TrialContext, TrialLoop\nimport sibling, at_root, installed\n"
            "class T(TrialLoop):\n    @staticmethod\n    def run(ctx, c):\n"
            "        return '|'.join([open('tot/prompts/p.txt').read(), sibling.X, at_root.Y, installed.Z,"
            " str(ctx.get_model_name())])\n"
        ),
        "tot/sibling.py": "X = 'sibling'\n",
        "at_root.py": "Y = 'root'\n",
        "tot/prompts/p.txt": "prompt",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    site = tmp_path / "site"
    site.mkdir()
    (site / "installed.py").write_text("Z = 'installed'\n")
    work = tmp_path / "work"
    work.mkdir()
    out = run_program_trial(
        root / "tot" / "tot.py",
        letter="A",
        chat=echo,
        limits=FAST,
        workdir=work,
        root=root,
        cwd=root,
        site_dirs=(site,),
        model="qwen2.5:32b",
    )
    assert out == "prompt|sibling|root|installed|qwen2.5:32b"
