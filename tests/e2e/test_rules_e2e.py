"""Participants' rule checks and dry run through pytest: one item per rule, messages that say what to fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from e2e_support import GOOD_BODY, program, write_competition

RULES = ("--pcg-rules", "submissions", "-p", "no:cacheprovider", "-rf")


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """nodeid -> PASSED/FAILED/SKIPPED from ``-rA``-style summary lines and verbose lines."""
    out = {}
    for line in result.stdout.lines:
        for word in ("PASSED", "FAILED", "SKIPPED"):
            if line.startswith(word + " ") or line.endswith(" " + word) or f" {word} " in line:
                nodeid = [tok for tok in line.split() if "::" in tok]
                if nodeid:
                    out[nodeid[0]] = word
    return out


def test_rule_items_per_submission(competition):
    write_competition(
        competition.path,
        {
            "bad_chars": {"prompt.txt": "Draw the letter <OBJECT>, rotated 90\u00b0 please."},
            "cheat": {"entry.py": program("import socket\n        return chat_with_chatgpt(ctx, [])[0].strip()")},
            "unparsed": {"entry.py": program("return chat_with_chatgpt(ctx, [  # unclosed")},
        },
    )
    (competition.path / "submissions" / "NoPlaceholder.TXT").write_text("Draw the letter please.")
    result = competition.runpytest_subprocess(*RULES, "-v")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    seen = outcomes(result)
    assert seen["submissions/team_prompt::prompt-length"] == "PASSED"
    assert seen["submissions/team_prog::program-chat-only"] == "PASSED"
    assert seen["submissions/bad_chars::prompt-characters"] == "FAILED"
    assert seen["submissions/bad_chars::prompt-placeholder"] == "PASSED"
    assert seen["submissions/NoPlaceholder.TXT::prompt-placeholder"] == "FAILED"  # .TXT and no <OBJECT>: still checked
    assert seen["submissions/cheat::program-chat-only"] == "FAILED"
    assert seen["submissions/cheat::program-unmodified-response"] == "FAILED"
    assert seen["submissions/unparsed::program-parses"] == "FAILED"  # the rules it stops are skipped, not passed
    assert seen["submissions/unparsed::program-chat-only"] == "SKIPPED"
    assert seen["submissions/unparsed::program-unmodified-response"] == "SKIPPED"
    assert seen["submissions/unparsed::program-size"] == "PASSED"
    assert not [n for n, v in seen.items() if v == "FAILED" and n.startswith("submissions/team_")]
    result.stdout.fnmatch_lines(
        ["*bad_chars::prompt-characters*prompt.txt:1:37*U+00B0*", "*cheat*entry.py:9:9*socket*"]
    )
    assert not (competition.path / "pcg-runs").exists()  # no run folder, no model, no store


def test_official_2023_prompts_qualify_as_in_2023(pytester: pytest.Pytester, prompts_2023: Path):
    """BirdBirdBird, BirdsTeam and pixelArt were disqualified in 2023; the 15 others qualified."""
    shutil.copytree(prompts_2023, pytester.path / "submissions")
    result = pytester.runpytest_subprocess(*RULES, "-v")
    failed = {n.split("::")[0].split("/")[-1] for n, v in outcomes(result).items() if v == "FAILED"}
    assert failed == {"BirdBirdBird.txt", "BirdsTeam.TXT", "pixelArt.txt"}
    assert len(outcomes(result)) == 18 * 3
    result.stdout.fnmatch_lines(["*BirdBirdBird.txt::prompt-length*915*900*"])


def test_dry_run_against_the_scripted_double(competition):
    write_competition(
        competition.path,
        {
            "crashes": {"entry.py": program('raise RuntimeError("boom in run")')},
            "never_asks": {"entry.py": program("return \"```\\ndrop_block('b11', 5)\\n```\"")},
            "edits_answer": {"entry.py": program(GOOD_BODY + ' + "\\n"')},
        },
    )
    result = competition.runpytest_subprocess(
        "--pcg-dry-run", "--pcg-letters", "T", "submissions", "-p", "no:cacheprovider", "-v", "-rA"
    )
    seen = outcomes(result)
    assert seen == {
        "submissions/team_prog::dry-run": "PASSED",
        "submissions/team_prompt::dry-run": "PASSED",
        "submissions/crashes::dry-run": "FAILED",
        "submissions/never_asks::dry-run": "FAILED",
        "submissions/edits_answer::dry-run": "FAILED",
    }
    result.stdout.fnmatch_lines(
        [
            "*crashes::dry-run*program_error*boom in run*",
            "*edits_answer::dry-run*not one of the model's answers*",
            "*never_asks::dry-run*without calling the chat function*",
            "*letter T: returned one of the model's answers unmodified*",
        ]
    )


def test_unimported_vendored_client_is_a_warning_not_a_failure(pytester: pytest.Pytester):
    write_competition(
        pytester.path,
        {
            "team": {
                "main.py": program(),
                "vendor/__init__.py": "",
                "vendor/llm.py": "import openai\n\nclient = openai.OpenAI()\n",
            }
        },
    )
    result = pytester.runpytest_subprocess(*RULES, "-v")
    assert result.ret == pytest.ExitCode.OK
    assert outcomes(result)["submissions/team::program-chat-only"] == "PASSED"
    result.stdout.fnmatch_lines(
        [
            "*PcgRuleWarning: submissions/team::program-chat-only*never imports*",
            "*vendor/llm.py:1:1: LLM client openai*",
        ]
    )


def test_pcg_rules_in_an_ini_file_runs_the_rule_checks(competition):
    """`pcg_rules = true` in the ini file is the same switch as --pcg-rules (no unknown-key warning)."""
    competition.makeini("[pytest]\npcg_rules = true\n")
    result = competition.runpytest_subprocess("submissions", "-p", "no:cacheprovider", "-v")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*submissions/team_prompt::prompt-length PASSED*"])
    result.stdout.no_fnmatch_line("*Unknown config option*")
    result.stdout.no_fnmatch_line("*::I::1*")  # no evaluation item
