"""The dry run's verdict (``dry_run.dry_run``) read in this process, not through a pytest subprocess (which may
import another installed copy of the package): the program runs in the real sandbox against the scripted double,
and the verdict says whether it returned one of the double's answers unmodified."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import program

from pcg_plugin.problems.science_birds.rules.answers import not_an_answer
from pcg_plugin.problems.science_birds.rules.dry_run import double_answer, dry_run
from pcg_plugin.problems.science_birds.submissions import detect_folder

ASK = 'chat_with_chatgpt(ctx, [{"role": "user", "content": f"Draw {target_character}"}]'
BODIES = {
    "returns_the_answer": f"return {ASK})[0]",
    "returns_the_second_of_two": f"return {ASK}, n=2)[1]",
    "edits_the_answer": f"return {ASK})[0] + '\\n'",
    "joins_two_answers": f"return '\\n'.join({ASK}, n=2))",
    "asks_then_returns_a_level_of_its_own": f"{ASK})\n        return \"```\\ndrop_block('b11', 5)\\n```\"",
    "never_asks": "return \"```\\ndrop_block('b11', 5)\\n```\"",
}


def verdict(tmp_path: Path, name: str) -> tuple[bool, str]:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "main.py").write_text(program(BODIES[name]))
    sub = detect_folder(folder)
    assert sub is not None and sub.format == "program-2024"
    result = dry_run(sub, "T", edition="2024", requirements="off")
    return result.passed, result.message


@pytest.mark.parametrize("name", ["returns_the_answer", "returns_the_second_of_two"])
def test_a_program_returning_one_of_the_answers_passes(tmp_path: Path, name: str) -> None:
    passed, message = verdict(tmp_path, name)
    assert passed, message
    assert message.startswith("returned one of the model's answers unmodified")


@pytest.mark.parametrize("name", ["edits_the_answer", "joins_two_answers", "asks_then_returns_a_level_of_its_own"])
def test_a_final_response_that_is_not_one_of_the_answers_fails(tmp_path: Path, name: str) -> None:
    passed, message = verdict(tmp_path, name)
    assert not passed
    assert message.startswith("the returned string is not one of the model's answers: return the response unmodified")


def test_a_program_that_never_asks_fails(tmp_path: Path) -> None:
    passed, message = verdict(tmp_path, "never_asks")
    assert not passed and message.startswith("run() returned without calling the chat function")


def test_not_an_answer_names_what_it_got() -> None:
    answer = double_answer("T")
    assert not_an_answer(answer, [answer]) is None
    assert not_an_answer(answer, ["other", answer]) is None
    why = not_an_answer(answer.strip() + " ", [answer])
    assert why is not None and f"got {len(answer.strip()) + 1} characters starting" in why
    assert not_an_answer("", []) is not None and not_an_answer("", [""]) is None
