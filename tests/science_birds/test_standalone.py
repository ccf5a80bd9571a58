"""The standalone compat path: official run_evaluation layout, logging, resume and failure semantics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pcg_plugin.llm.scripted import ScriptedBackend
from pcg_plugin.problems.science_birds.standalone import check_arguments, run_evaluation
from pcg_plugin.sandbox.official_api import TrialContext, TrialLoop, chat_with_chatgpt, chat_with_llm
from pcg_plugin.sandbox.official_api.logfile import log_file_name


class Echo(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        return chat_with_chatgpt(ctx, [{"role": "user", "content": target_character}])[0]


class Greedy(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        return chat_with_llm(ctx, [{"role": "user", "content": target_character}], n=1)[0]


class Raises(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        raise {"A": TimeoutError, "B": ValueError, "C": KeyError}[target_character]("boom")


def backend(**kw) -> ScriptedBackend:
    return ScriptedBackend(lambda messages, n: [f"drop_block('b11', {ord(messages[-1]['content']) % 7})"] * n, **kw)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_official_layout_and_log(here: Path) -> None:
    llm = backend()
    counts = run_evaluation("team", Echo, num_trials=2, characters=["A", "B"], backend=llm)
    assert counts == {"succeeded": 4, "failed": 0, "skipped": 0}
    for c in "AB":
        for n in (1, 2):
            out = here / "team" / "raw" / c / f"team_{c}_{n}.txt"
            assert out.read_text(encoding="utf-8") == f"drop_block('b11', {ord(c) % 7})"
    (log,) = (here / "logs").glob("team_raw_*.log")
    assert re.fullmatch(r"team_raw_\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d_\.log", log.name)
    lines = log.read_text().splitlines()
    assert all(re.match(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] ", line) for line in lines)
    assert sum("succeeded" in line for line in lines) == 4


def test_existing_files_are_skipped_and_stored_responses_replayed(here: Path) -> None:
    llm = backend()
    run_evaluation("team", Echo, num_trials=2, characters=["A"], backend=llm)
    assert len(llm.calls) == 2
    assert run_evaluation("team", Echo, num_trials=2, characters=["A"], backend=llm)["skipped"] == 2
    (here / "team" / "raw" / "A" / "team_A_2.txt").unlink()
    assert run_evaluation("team", Echo, num_trials=2, characters=["A"], backend=llm)["succeeded"] == 1
    assert len(llm.calls) == 2  # the deleted file came back from the response store, not from a new call


def test_exceptions_fail_the_trial_without_a_file(here: Path) -> None:
    counts = run_evaluation("team", Raises, num_trials=1, characters=["A", "B", "C"], backend=backend())
    assert counts == {"succeeded": 0, "failed": 3, "skipped": 0}
    assert not list((here / "team" / "raw").rglob("*.txt"))
    log = next((here / "logs").glob("*.log")).read_text()
    assert log.count("Trial 1 failed with error:") == 3


def test_token_limit_is_a_value_error_and_a_failed_trial(here: Path) -> None:
    seen: list[BaseException] = []

    class Catches(TrialLoop):
        @staticmethod
        def run(ctx: TrialContext, target_character: str) -> str:
            try:
                return chat_with_chatgpt(ctx, [{"role": "user", "content": "x"}])[0]
            except ValueError as error:
                seen.append(error)
                raise

    counts = run_evaluation("team", Catches, num_trials=1, characters=["A"], backend=backend(usage=(20000, 6000)))
    assert counts["failed"] == 1 and isinstance(seen[0], ValueError) and "token limit" in str(seen[0])


def test_transient_faults_are_retried(here: Path) -> None:
    from pcg_plugin.llm.scripted import Faults

    llm = backend(failures=Faults(rate=0.3, seed=3, retry_after=0.0))
    counts = run_evaluation("team", Greedy, num_trials=3, characters=["A", "B"], backend=llm, edition="2025")
    assert counts["succeeded"] == 6


@pytest.mark.parametrize("bad", [["a"], ["AB"], ["1"], [""]])
def test_characters_outside_a_z_are_refused(bad: list[str]) -> None:
    with pytest.raises(ValueError):
        check_arguments("team", bad)


def test_team_logs_is_refused_and_default_is_a_to_z() -> None:
    with pytest.raises(ValueError):
        check_arguments("logs", None)
    assert "".join(check_arguments("t", None)) == "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def test_context_getters_match_the_official_package() -> None:
    ctx = TrialContext("team", "C", 3, Path("l.log"), "m", "http://x/v1")
    assert ctx.get_output_file_path() == Path("team/raw/C/team_C_3.txt")
    ctx.add_prompt_token_count(5)
    ctx.add_output_token_count(7)
    assert ctx.get_total_token_count() == 12 and ctx.get_model_name() == "m"
    assert "trial_number=3" in str(ctx)


def test_log_file_name_ends_with_empty_zone() -> None:
    from datetime import datetime

    assert log_file_name("t", datetime(2024, 7, 1, 2, 3, 4)) == "t_raw_2024_07_01_02_03_04_.log"


def test_shims_are_not_importable_outside_the_sandbox() -> None:
    import importlib.util

    from pcg_plugin.sandbox.official_api import SHIMS

    assert (SHIMS / "chatgpt4pcg" / "competition.py").is_file()
    spec = importlib.util.find_spec("chatgpt4pcg")
    assert spec is None or "shims" not in str(spec.origin)


def test_token_counts_are_on_the_context_and_in_the_log(here: Path) -> None:
    class Budget(TrialLoop):
        @staticmethod
        def run(ctx: TrialContext, target_character: str) -> str:
            chat_with_chatgpt(ctx, [{"role": "user", "content": "x"}])
            return str(ctx.get_total_token_count())

    run_evaluation("team", Budget, num_trials=1, characters=["A"], backend=backend(usage=(10, 20)))
    assert (here / "team" / "raw" / "A" / "team_A_1.txt").read_text() == "30"
    assert "Prompt tokens: 10, Output tokens: 20, Total tokens: 30" in next((here / "logs").glob("*.log")).read_text()
