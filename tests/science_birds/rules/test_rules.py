"""Participant rule checks: the official 2023 qualification digit for digit, and static 2024/2025 program rules."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.science_birds.rules import checks as rules
from pcg_plugin.problems.science_birds.rules.checks import (
    RUNTIME_RULES,
    check_program,
    check_prompt,
    check_submission,
    disallowed_characters,
    prompt_summary,
    read_prompt,
    word_count,
)
from pcg_plugin.problems.science_birds.submissions import Submission, detect_folder, detect_prompt_file

REPO = Path(__file__).resolve().parents[3]
GOLDEN = json.loads((Path(__file__).parents[2] / "data" / "wordcount_golden.json").read_text(encoding="utf-8"))
HOSTILE = Path(__file__).parents[2] / "hostile"
DISQUALIFIED_2023 = {
    "BirdBirdBird.txt": "prompt-length",
    "BirdsTeam.TXT": "prompt-length",
    "pixelArt.txt": "prompt-characters",
}
ALLOWED_ASCII = "".join(
    sorted(
        set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789~/\\+,-*`'\".!@#$%^&()_=[]{}|<>:;? \n\r\t")
    )
)


# ------------------------------------------------------------------------------------------------------------
# 2023: word count, characters, placeholder


def test_golden_strings_match_the_npm_packages() -> None:
    strings = GOLDEN["strings"]
    assert len(strings) >= 40 and GOLDEN["packages"]["words-count"] == "2.0.2"
    for case in strings:
        text = case["text"]
        assert word_count(text) == case["count"], repr(text)
        assert bool(disallowed_characters(text)) == case["disallowed"], repr(text)
        assert (rules.PLACEHOLDER in text) == case["placeholder"], repr(text)


def test_golden_counts_of_the_18_official_prompts(prompts_2023: Path) -> None:
    folder = prompts_2023
    assert sorted(p.name for p in folder.iterdir()) == sorted(GOLDEN["prompts"])
    for name, case in GOLDEN["prompts"].items():
        summary = prompt_summary(read_prompt(folder / name))
        assert summary["word_count"] == case["count"], name
        assert bool(summary["disallowed_characters"]) == case["disallowed"], name
        assert summary["has_placeholder"] == case["placeholder"], name


def test_2023_outcome_three_disqualified_with_the_failing_rule(prompts_2023: Path) -> None:
    folder = prompts_2023
    first = {p.name: prompt_summary(read_prompt(p))["first_failure"] for p in folder.iterdir()}
    assert {k: v for k, v in first.items() if v} == DISQUALIFIED_2023
    assert sum(v is None for v in first.values()) == 15


def test_2023_disqualified_details(prompts_2023: Path) -> None:
    folder = prompts_2023
    bird = {r.rule: r for r in check_prompt(read_prompt(folder / "BirdBirdBird.txt"), "BirdBirdBird.txt")}
    assert not bird["prompt-length"].passed and "915" in bird["prompt-length"].message
    assert "remove at least 15 words" in bird["prompt-length"].message
    assert bird["prompt-characters"].passed and bird["prompt-placeholder"].passed
    team = {r.rule: r for r in check_prompt(read_prompt(folder / "BirdsTeam.TXT"), "BirdsTeam.TXT")}
    assert [r for r in team if not team[r].passed] == ["prompt-length", "prompt-placeholder"]
    assert "905" in team["prompt-length"].message and "disqualifies" in team["prompt-length"].message
    assert "stopped earlier, at prompt-length" in team["prompt-placeholder"].message
    pixel = {r.rule: r for r in check_prompt(read_prompt(folder / "pixelArt.txt"), "pixelArt.txt")}
    assert [r for r in pixel if not pixel[r].passed] == ["prompt-characters"]
    (finding,) = pixel["prompt-characters"].findings
    assert "U+00B0" in finding.text and "pixelArt.txt:1:193" in pixel["prompt-characters"].message
    line = read_prompt(folder / "pixelArt.txt").split("\n")[finding.line - 1]
    assert line[finding.col - 1] == "\u00b0"


def test_2023_prompts_through_the_collector(prompts_2023: Path) -> None:
    folder = prompts_2023
    for path in folder.iterdir():
        sub = detect_prompt_file(path)
        if sub is None:  # BirdsTeam.TXT: upper-case suffix and no <OBJECT>
            assert path.name == "BirdsTeam.TXT"
            continue
        results = check_submission(sub)
        assert [r.rule for r in results] == list(rules.PROMPT_RULES)
        assert all(r.passed for r in results) == (path.name not in DISQUALIFIED_2023), path.name


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("drop_block('b11', 3)", 4),  # spec worked examples
        ("a\nb\nc d", 4),
        ("100 200,300", 2),
        ("don't stop-now", 3),
        ("- \n -", 2),  # tokens with no letter or digit count 1 each
        ("- -\n-", 2),  # only the FIRST whitespace run becomes a space: "-\n-" stays one token
        ("-\n- -", 3),  # ... here the first run is the newline
        ("\u00d7\u00f7", 1),  # multiplication/division signs sit in the Latin-1 letter range
        ("a\u200bb", 1),  # U+2000-U+206F is deleted, joining the two letters
        ("\u0661\u0662\u0663", 1),  # JavaScript \d is ASCII only
        ("\u6c49\u5b57", 2),  # one word per CJK character
    ],
)
def test_word_count_quirks(text: str, count: int) -> None:
    assert word_count(text) == count


def test_whitespace_disallowed_only_inside_the_remainder() -> None:
    # Official: allowed characters removed, the remainder JavaScript-trimmed: edge spaces are tolerated.
    assert disallowed_characters("a\u00a0b") == []
    assert disallowed_characters("\u00a0\u00e9\u00a0x") == [("\u00e9", 1, 2)]
    assert disallowed_characters("x\u00e9\u00a0\u00e9") == [("\u00e9", 1, 2), ("\u00a0", 1, 3), ("\u00e9", 1, 4)]
    assert disallowed_characters("ok\r\n\u2014\u201c\u201d\u2018\u2019\tfine") == []


def test_prompt_summary_shape() -> None:
    assert prompt_summary("Draw <OBJECT> caf\u00e9 caf\u00e9") == {
        "word_count": 4,
        "disallowed_characters": ["\u00e9"],
        "has_placeholder": True,
        "passed": False,
        "first_failure": "prompt-characters",
    }
    assert prompt_summary("")["first_failure"] == "prompt-placeholder"
    assert prompt_summary("word " * 901 + "<OBJECT>")["first_failure"] == "prompt-length"


def test_length_message_points_at_word_901() -> None:
    text = "<OBJECT>\n" + "w " * 899 + "\nlast extra"
    (length, _, _) = check_prompt(text, "p.txt")
    assert word_count(text) == 902 and not length.passed
    assert "p.txt:3:1" in length.message and "remove at least 2 words" in length.message


@given(st.text())
def test_word_count_never_crashes(text: str) -> None:
    n = word_count(text)
    assert 0 <= n <= len(text)


_MIXED = st.text(
    alphabet=st.sampled_from(
        [*ALLOWED_ASCII, "\u00a0", "\u00e9", "\u3000", "\ufeff", "\u00b0", "\U0001f600", "\x0b", "\u2028"]
    )
)


@given(st.one_of(st.text(), _MIXED))
def test_disallowed_positions_point_at_the_character(text: str) -> None:
    lines = text.split("\n")
    found = disallowed_characters(text)
    for ch, line, col in found:
        assert lines[line - 1][col - 1] == ch
        assert ch not in ALLOWED_ASCII + "\u2014\u201c\u201d\u2018\u2019"
    assert prompt_summary(text)["passed"] == (not found and word_count(text) <= 900 and "<OBJECT>" in text)


@given(st.text(alphabet=ALLOWED_ASCII))
def test_allowed_ascii_has_no_disallowed_characters(text: str) -> None:
    assert disallowed_characters(text) == []


# ------------------------------------------------------------------------------------------------------------
# 2024/2025 programs

HEADER_2024 = "from chatgpt4pcg.competition import TrialContext, TrialLoop, chat_with_chatgpt\n"
HEADER_2025 = "from llms4pcg.competition import TrialContext, TrialLoop, chat_with_llm\n"


def _program(tmp_path: Path, run_body: str, prelude: str = "", header: str = HEADER_2024) -> Path:
    """main.py with one TrialLoop whose run has ``run_body``; returns its path."""
    folder = tmp_path / "team"
    folder.mkdir(exist_ok=True)
    body = textwrap.indent(textwrap.dedent(run_body).strip("\n"), " " * 8)
    source = (
        header + textwrap.dedent(prelude) + "\n\nclass Loop(TrialLoop):\n    @staticmethod\n"
        "    def run(ctx: TrialContext, target_character: str) -> str:\n" + body + "\n"
    )
    entry = folder / "main.py"
    entry.write_text(source, encoding="utf-8")
    return entry


def _by_rule(entry: Path, edition: str = "2024") -> dict[str, rules.RuleResult]:
    return {r.rule: r for r in check_program(entry, edition)}


def _failed(entry: Path, edition: str = "2024") -> set[str]:
    return {rule for rule, r in _by_rule(entry, edition).items() if not r.passed}


@pytest.mark.parametrize("folder", ["zero_shot", "zero_shot_multi_turn", "prompt_2023"])
def test_official_examples_pass_every_rule(folder: str) -> None:
    sub = detect_folder(REPO / "submissions" / folder)
    assert sub is not None
    results = check_submission(sub)
    assert results and all(r.passed for r in results), [r.message for r in results if not r.passed]


def _hostile(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name.split(".")[0]
    folder.mkdir()
    shutil.copy(HOSTILE / name, folder / "main.py")
    return folder / "main.py"


@pytest.mark.parametrize(
    ("name", "rule", "line"),
    [
        ("opens_socket.py.txt", "program-chat-only", 2),
        ("catches_violation.py.txt", "program-chat-only", 1),
        ("forks.py.txt", "program-chat-only", 9),
        ("spawns.py.txt", "program-chat-only", 1),
        ("native_fork.py.txt", "program-chat-only", 1),
        ("patches_counter.py.txt", "program-chat-only", 3),  # imports the harness's internals
        ("patches_counter.py.txt", "program-no-tampering", 11),
        ("syntax_error.py.txt", "program-parses", 3),
        ("huge_response.py.txt", "program-unmodified-response", 7),
        ("returns_bytes.py.txt", "program-unmodified-response", 7),
        ("reads_key.py.txt", "program-unmodified-response", 10),
        ("reads_parent_env.py.txt", "program-unmodified-response", 10),
        ("writes_outside.py.txt", "program-unmodified-response", 12),
    ],
)
def test_hostile_programs_fail_the_right_rule(tmp_path: Path, name: str, rule: str, line: int) -> None:
    result = _by_rule(_hostile(tmp_path, name))[rule]
    assert not result.passed
    assert f"main.py:{line}:" in result.message
    assert result.findings[0].line == line and result.findings[0].path.endswith("main.py")


def test_patches_counter_every_tampering_found(tmp_path: Path) -> None:
    result = _by_rule(_hostile(tmp_path, "patches_counter.py.txt"))["program-no-tampering"]
    assert [f.line for f in result.findings] == [11, 12, 15]


@pytest.mark.parametrize(
    "name", ["sleeps.py.txt", "spins.py.txt", "floods_stdout.py.txt", "catches_guard.py.txt", "allocates.py.txt"]
)
def test_runtime_only_hostiles_pass_statically(tmp_path: Path, name: str) -> None:
    # Time, tokens and memory are run-time rules (RUNTIME_RULES): the sandbox and the guards catch these.
    assert _failed(_hostile(tmp_path, name)) == set()


def test_llms4pcg_program_passes_2025_rules(tmp_path: Path) -> None:
    results = _by_rule(_hostile(tmp_path, "llms4pcg_ok.py.txt"), "2025")
    assert "program-fixed-seeds" in results and all(r.passed for r in results.values())


def test_failures_name_file_line_col(tmp_path: Path) -> None:
    for path in sorted(HOSTILE.glob("*.py.txt")):
        folder = tmp_path / path.name.split(".")[0]
        folder.mkdir()
        shutil.copy(path, folder / "main.py")
        for r in check_program(folder / "main.py", "2024"):
            if r.status == "fail":  # a rule not run has no finding: its message names the rule that stopped it
                f = r.findings[0]
                assert f.line >= 1 and f.col >= 1 and f"{f.path}:{f.line}" in r.message, (path.name, r)


# --- hard-coded assistant messages -------------------------------------------------------------------------


def test_multi_turn_echo_of_the_model_passes(tmp_path: Path) -> None:
    entry = _program(
        tmp_path,
        """
        messages = [{"role": "user", "content": "Build " + target_character}]
        reply = ""
        for turn in ("again", "format"):
            reply = chat_with_chatgpt(ctx, messages)[0]
            messages.append({"role": "assistant", "content": reply})
            messages.append({"role": "user", "content": turn})
        answers = []
        answers.append(chat_with_chatgpt(ctx, messages)[0])
        messages.append(dict(role="assistant", content=answers[-1]))
        messages.append({"role": "assistant", "content": f"{reply}"})
        return chat_with_chatgpt(ctx, messages)[0]
    """,
    )
    assert _failed(entry) == set()


@pytest.mark.parametrize(
    ("prelude", "body"),
    [
        ("", 'm = [{"role": "assistant", "content": "drop_block(\'b11\', 3)"}]'),
        ('EXAMPLE = """```\\ndrop_block(\'b31\', 10)\\n```"""', 'm = [{"role": "assistant", "content": EXAMPLE}]'),
        (
            'SHOTS = (("I", "drop_block(\'b13\', 5)"), ("L", "drop_block(\'b11\', 5)"))',
            (
                "m = []\nfor q, a in SHOTS:\n"
                '    m += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]'
            ),
        ),
        ("", 'm = [dict(role="assistant", content=f"drop_block({1}, 2)")]'),
        ("", 'm = [{"role": "assistant", "content": "drop_block(" + "\'b11\', 3)"}]'),
        ("", 'm = [{"role": "assistant", "content": open("answer.txt").read()}]'),
        ('ROLE = "assistant"', 'm = [{"content": "x", "role": ROLE}]'),
    ],
)
def test_hand_made_assistant_content_fails(tmp_path: Path, prelude: str, body: str) -> None:
    entry = _program(tmp_path, body + "\nreturn chat_with_chatgpt(ctx, m)[0]", prelude)
    result = _by_rule(entry)["program-no-hardcoded-assistant"]
    assert not result.passed and "main.py:" in result.message and "user or system" in result.message


def test_assistant_content_with_a_runtime_part_passes(tmp_path: Path) -> None:
    # Undecidable by construction: the letter makes it differ per trial, so only hand inspection can judge it.
    entry = _program(
        tmp_path,
        """
        m = [{"role": "assistant", "content": f"I will draw {target_character}"}]
        return chat_with_chatgpt(ctx, m)[0]
    """,
    )
    assert _by_rule(entry)["program-no-hardcoded-assistant"].passed


# --- tampering ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prelude", "body"),
    [
        ("", "ctx._TrialContext__prompt_token_count = 0"),
        ("", 'setattr(ctx, "_TrialContext__start_time", 0.0)'),
        ("", "print(ctx._TrialContext__output_token_count)"),
        ("", "ctx.add_output_token_count(-500)"),
        ("", "TrialContext.get_total_token_count = lambda self: 0"),
        ("", "ctx.__dict__['x'] = 1"),
        ("import time", "time.perf_counter = lambda: 0.0"),
        ("import time as t", "t.time = lambda: 0.0"),
        ("", "chat_with_chatgpt = lambda ctx, m, n=1: ['x']"),
        ("import chatgpt4pcg.competition as comp", "comp.chat_with_chatgpt = None"),
        ("import sys", "sys.modules['chatgpt4pcg.competition'] = None"),
    ],
)
def test_tampering_fails(tmp_path: Path, prelude: str, body: str) -> None:
    entry = _program(tmp_path, body + "\nreturn chat_with_chatgpt(ctx, [])[0]", prelude)
    result = _by_rule(entry)["program-no-tampering"]
    assert not result.passed and f"main.py:{result.findings[0].line}:" in result.message


def test_reading_the_counters_is_fine(tmp_path: Path) -> None:
    entry = _program(
        tmp_path,
        """
        answer = chat_with_chatgpt(ctx, [{"role": "user", "content": target_character}])[0]
        if ctx.get_total_token_count() < 20000 and ctx.get_start_time() > 0:
            answer = chat_with_chatgpt(ctx, [{"role": "user", "content": answer}])[0]
        return answer
    """,
        prelude="class Timer:\n    def __init__(self):\n        self.__start_time = 0\n",
    )
    assert _failed(entry) == set()


# --- unmodified response -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "response = chat_with_chatgpt(ctx, [])[0]\nreturn response.strip()",
        "r = chat_with_chatgpt(ctx, [])[0]\nreturn '```\\n' + r + '\\n```'",
        "r = chat_with_chatgpt(ctx, [])[0]\nreturn f'```{r}```'",
        "r = chat_with_chatgpt(ctx, [])[0]\nreturn '%s' % r",
        "r = chat_with_chatgpt(ctx, [])\nreturn '\\n'.join(r)",
        "r = chat_with_chatgpt(ctx, [])[0]\nreturn '{}'.format(r)",
        "answer = chat_with_chatgpt(ctx, [])[0]\nanswer += '\\n```'\nreturn answer",
        "fixed = chat_with_chatgpt(ctx, [])[0].replace('b31', 'b11')\nreturn fixed",
        "chat_with_chatgpt(ctx, [])\nreturn \"```\\ndrop_block('b11', 1)\\n```\"",
        "r = chat_with_chatgpt(ctx, [])[0]\nreturn r if 'drop' in r else 'drop_block(\\'b11\\', 1)'",
    ],
)
def test_modified_responses_fail(tmp_path: Path, body: str) -> None:
    result = _by_rule(_program(tmp_path, body))["program-unmodified-response"]
    assert not result.passed and "unmodified" in result.message
    assert f"main.py:{result.findings[0].line}:" in result.message


@pytest.mark.parametrize(
    "body",
    [
        "return chat_with_chatgpt(ctx, [])[0]",
        "responses = chat_with_chatgpt(ctx, [], n=2)\nreturn responses[len(responses[0]) < len(responses[1])]",
        "reply = ''\nfor _ in range(2):\n    reply = chat_with_chatgpt(ctx, [])[0]\nreturn reply",
        "try:\n    return chat_with_chatgpt(ctx, [])[0]\nexcept ValueError:\n    return ''",
        "return pick(chat_with_chatgpt(ctx, [], n=3))",
        "best = max(chat_with_chatgpt(ctx, [], n=2), key=len)\nreturn best",
    ],
)
def test_returning_a_chat_result_passes(tmp_path: Path, body: str) -> None:
    entry = _program(tmp_path, body, prelude="def pick(xs):\n    return xs[0]\n")
    result = _by_rule(entry)["program-unmodified-response"]
    assert result.passed and "run time" in result.message


# --- chat only ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prelude",
    [
        "import openai",
        "from anthropic import Anthropic",
        "import requests",
        "import urllib.request",
        "from langchain_openai import ChatOpenAI",
        "import google.generativeai as genai",
        "from google import generativeai",
        "import httpx",
        "from os import system",
        "import importlib\nmod = importlib.import_module('so' + 'cket')",
        "sock = __import__('socket')",
        "from chatgpt4pcg.utils import count_tokens",
        "import chatgpt4pcg\nX = chatgpt4pcg.utils",
        "import litellm",
        "import ollama",
        "import os\nos.popen('ls')",
    ],
)
def test_other_ways_to_the_model_fail(tmp_path: Path, prelude: str) -> None:
    result = _by_rule(_program(tmp_path, "return chat_with_chatgpt(ctx, [])[0]", prelude))["program-chat-only"]
    assert not result.passed and "main.py:" in result.message and "chat_with_chatgpt" in result.message


def test_chat_only_allows_the_official_api_and_harmless_modules(tmp_path: Path) -> None:
    prelude = (
        "import os, re, json, math, itertools\nfrom urllib.parse import quote\n"
        "from chatgpt4pcg.models.trial_loop import TrialLoop as Base\n"
        "from chatgpt4pcg import competition\nimport chatgpt4pcg.models.trial_context as tc\n"
    )
    entry = _program(tmp_path, "x = os.path.join('a', 'b')\nreturn competition.chat_with_chatgpt(ctx, [])[0]", prelude)
    assert _failed(entry) == set()


def test_chat_only_judges_what_the_entry_imports_and_warns_about_the_rest(tmp_path: Path) -> None:
    entry = _program(tmp_path, "return chat_with_chatgpt(ctx, [])[0]")
    for skipped in (".venv/lib", "__pycache__", "env/lib/site-packages"):
        (entry.parent / skipped).mkdir(parents=True)
        (entry.parent / skipped / "client.py").write_text("import requests\n")
    assert _by_rule(entry)["program-chat-only"].warnings == ()
    (entry.parent / "helpers").mkdir()
    (entry.parent / "helpers" / "net.py").write_text("import os\n\nimport requests\n")
    result = _by_rule(entry)["program-chat-only"]
    assert result.passed and "Warning, not judged" in result.message and "helpers/net.py:3:1" in result.message
    assert [(Path(f.path).name, f.line) for f in result.warnings] == [("net.py", 3)]

    source = entry.read_text()  # imported inside run: reachable, judged
    entry.write_text(source.replace("        return chat", "        from helpers import net\n        return chat"))
    result = _by_rule(entry)["program-chat-only"]
    assert not result.passed and "helpers/net.py:3:1" in result.message and result.warnings == ()

    entry.write_text(source.replace("        return chat", "        exec(open('x').read())\n        return chat"))
    result = _by_rule(entry)["program-chat-only"]  # exec: the import graph does not bound what runs
    assert not result.passed and "helpers/net.py:3:1" in result.message and "exec(...)" in result.message


def test_2025_must_use_chat_with_llm(tmp_path: Path) -> None:
    entry = _program(
        tmp_path, "return chat_with_chatgpt(ctx, [])[0]", header=HEADER_2024.replace("chatgpt4pcg", "llms4pcg")
    )
    result = _by_rule(entry, "2025")["program-chat-only"]
    assert not result.passed and "chat_with_llm" in result.message


# --- trial loop, parses, size --------------------------------------------------------------------------------


def test_trial_loop_shapes(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    entry = folder / "main.py"
    cases = {
        "x = 1\n": False,
        HEADER_2024 + "class A(TrialLoop):\n    pass\n": False,
        HEADER_2024 + "class A(TrialLoop):\n    @staticmethod\n    def run(c, t): ...\n"
        "class B(TrialLoop):\n    @staticmethod\n    def run(c, t): ...\n": False,
        HEADER_2024 + "class A(TrialLoop):\n    @staticmethod\n    def run(c, t): ...\n"
        "class B(TrialLoop):\n    @staticmethod\n    def run(c, t): ...\nrun_evaluation('team', B)\n": True,
        HEADER_2024 + "class A(TrialLoop):\n    @classmethod\n    def run(cls, c, t): ...\n": False,
        HEADER_2024 + "class A(TrialLoop):\n    @staticmethod\n    async def run(c, t): ...\n": False,
        HEADER_2024 + "class Base(TrialLoop):\n    @staticmethod\n    def run(c, t):\n        return ''\n"
        "class Mine(Base):\n    pass\nrun_evaluation('team', Mine)\n": True,
    }
    for source, ok in cases.items():
        entry.write_text(source)
        result = _by_rule(entry)["program-trial-loop"]
        assert result.passed == ok, (source, result.message)
        assert ok or result.findings


def test_syntax_error_in_a_helper_names_its_file(tmp_path: Path) -> None:
    entry = _program(tmp_path, "return chat_with_chatgpt(ctx, [])[0]")
    (entry.parent / "util.py").write_text("def f(:\n    pass\n")
    result = _by_rule(entry)["program-parses"]  # not imported: a warning
    assert result.passed and "util.py:1:" in result.message and result.warnings and not result.official
    entry.write_text("import util\n" + entry.read_text())
    result = _by_rule(entry)["program-parses"]
    assert not result.passed and "util.py:1:" in result.message and not result.warnings


def test_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = _program(tmp_path, "return chat_with_chatgpt(ctx, [])[0]")
    assert rules.SIZE_LIMIT_BYTES == 10**9 and _by_rule(entry)["program-size"].passed
    (entry.parent / ".data.bin").write_bytes(b"x" * 5000)  # hidden files count too
    monkeypatch.setattr(rules, "SIZE_LIMIT_BYTES", 4000)
    result = _by_rule(entry)["program-size"]
    assert not result.passed and "1 GB" in result.message


# --- fixed seeds (2025) ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prelude", "body", "ok"),
    [
        ("import random", "random.choice('ab')", False),
        ("import random\nrandom.seed(42)", "random.choice('ab')", True),
        ("import random\nSEED = 7\nrandom.seed(SEED)", "random.shuffle([1])", True),
        ("import random\nrandom.seed()", "random.random()", False),
        ("from random import choice", "choice('ab')", False),
        ("import random", "random.Random().random()", False),
        ("import random", "random.Random(3).random()", True),
        ("import numpy as np", "np.random.default_rng().random()", False),
        ("import numpy as np", "np.random.default_rng(0).random()", True),
        ("import numpy as np", "np.random.rand(3)", False),
        ("import numpy as np\nnp.random.seed(0)", "np.random.rand(3)", True),
        ("import torch", "torch.rand(2)", False),
        ("import torch\ntorch.manual_seed(0)", "torch.randn(2)", True),
        ("import random\nrandom.seed(42)", "import numpy\nnumpy.random.choice([1])", False),  # one family seeded only
    ],
)
def test_fixed_seeds_2025(tmp_path: Path, prelude: str, body: str, ok: bool) -> None:
    entry = _program(tmp_path, body + "\nreturn chat_with_llm(ctx, [])[0]", prelude, HEADER_2025)
    result = _by_rule(entry, "2025")["program-fixed-seeds"]
    assert result.passed == ok, result.message
    assert ok or ("main.py:" in result.message and "42" in result.message)


def test_fixed_seeds_is_not_a_2024_rule(tmp_path: Path) -> None:
    entry = _program(tmp_path, "random.choice('ab')\nreturn chat_with_chatgpt(ctx, [])[0]", "import random")
    assert "program-fixed-seeds" not in _by_rule(entry, "2024")
    with pytest.raises(ValueError):
        check_program(entry, "2023")


# --- dispatch and the run-time rules ---------------------------------------------------------------------


def test_check_submission_dispatch(tmp_path: Path) -> None:
    entry = _program(tmp_path, "return chat_with_llm(ctx, [])[0]", header=HEADER_2025)
    sub = detect_folder(entry.parent)
    assert sub is not None and sub.format == "program-2025"
    assert [r.rule for r in check_submission(sub)][-1] == "program-fixed-seeds"
    bogus = Submission("x", entry.parent, "program-1999", entry, None, "sha256:0", "x")
    with pytest.raises(ValueError):
        check_submission(bogus)


def test_runtime_rules_are_listed() -> None:
    ids = [rule for rule, _ in RUNTIME_RULES]
    assert len(ids) == len(set(ids))
    assert {
        "time-limit",
        "token-limit",
        "no-network",
        "api-key-hidden",
        "unmodified-response",
        "fixed-model-parameters",
    } <= set(ids)
    assert all(how.strip() for _, how in RUNTIME_RULES)


# --- real shapes (issue 12) ------------------------------------------------------------------------------


def test_real_shapes_judged_on_what_the_entry_imports(tmp_path: Path) -> None:
    import submission_shapes as shapes

    from pcg_plugin.problems.science_birds.preflight import rule_verdict

    verdicts = {}
    for name, (build, entry, _workdir, expected) in shapes.SHAPES.items():
        folder = build(tmp_path / name)
        sub = detect_folder(folder)
        assert (sub is None) == (entry is None), name
        if sub is not None:
            verdicts[name] = rule_verdict(sub)
        else:
            verdicts[name] = "FAIL " + ", ".join(r.rule for r in rules.check_scripts(folder) if not r.passed)
        assert verdicts[name].startswith(expected.replace("fail", "FAIL")), (name, verdicts[name])
    assert verdicts["vendored"].startswith("pass (1 warning(s)")
    assert verdicts["nested_tot"] == verdicts["nested_few_shot"] == "pass"  # sibling and root imports judged
    assert verdicts["standalone_scripts"] == "FAIL program-trial-loop, program-chat-only"


def test_a_reached_vendored_client_still_fails(tmp_path: Path) -> None:
    import submission_shapes as shapes

    folder = shapes.vendored(tmp_path / "team")
    entry = folder / "got_program.py"
    entry.write_text("from graph_lib.language_models.chatgpt import ChatGPT\n" + entry.read_text())
    result = {r.rule: r for r in check_submission(detect_folder(folder))}["program-chat-only"]  # type: ignore[arg-type]
    assert not result.passed and "graph_lib/language_models/chatgpt.py:2:1: LLM client openai" in result.message
