"""Dry run: one letter of a submission against a scripted test double, with the real sandbox and guards.

It tells a participant, without an API key, that the program runs at all, returns a string, calls the model
only through the chat function, stays inside the edition's time and token limits, and hands back one of the
model's answers unmodified. The double answers every call with a ``drop_block`` program drawing the letter
(``pcg_plugin.problems.science_birds.level.glyphs``), so a program that asks many questions gets plausible answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pcg_plugin._util.trial_dirs import owned_temp_dir
from pcg_plugin.errors import OfficialFailure
from pcg_plugin.problems.science_birds.rules.answers import AnswerLog, not_an_answer
from pcg_plugin.problems.science_birds.submissions import Submission

if TYPE_CHECKING:
    from pcg_plugin.llm.session import TrialChat

DOUBLE_MODEL = "dry-run-double"  # the store key's model: never mistaken for a real model's answers


@dataclass(frozen=True)
class DryRun:
    """What one dry run showed; ``message`` says what to fix when ``passed`` is False."""

    letter: str
    passed: bool
    message: str
    calls: int = 0
    tokens: int = 0
    seconds: float = 0.0


def double_answer(letter: str) -> str:
    """The scripted double's answer: a fenced block of drop_block calls that draws the letter."""
    from pcg_plugin.problems.science_birds.level.glyphs import letter_program

    return "```\n" + letter_program(letter) + "\n```"


def dry_run(
    sub: Submission, letter: str, *, edition: str, workdir: Path | None = None, requirements: str = "install"
) -> DryRun:
    """Run ``sub`` for ``letter`` once against the double (2023 prompts: build the message that would be sent).

    The program runs as in an evaluation: from its working folder, with its requirements prepared
    (``requirements``: install | check | off); requirements that cannot be met fail the dry run, naming them.
    """
    if sub.format == "prompt-2023":
        return _prompt_dry_run(sub, letter)
    from pcg_plugin.problems.science_birds.preflight import environment

    env = environment(sub, requirements)
    if env.problems:
        return DryRun(letter, False, "requirements cannot be met: " + "; ".join(env.problems))
    sites = env.site_dirs
    if workdir is None:
        with owned_temp_dir("dry-run") as tmp:
            return _program_dry_run(sub, letter, edition, Path(tmp), sites)
    return _program_dry_run(sub, letter, edition, workdir, sites)


def _prompt_dry_run(sub: Submission, letter: str) -> DryRun:
    from pcg_plugin.llm.session import prompt_messages

    assert sub.prompt is not None
    content = prompt_messages(sub.prompt, letter)[0]["content"]
    if "<OBJECT>" in content or f'"{letter}"' not in content:
        return DryRun(letter, False, f"the prompt does not place the letter: no <OBJECT> in {sub.entry}")
    return DryRun(letter, True, f'one user message of {len(content)} characters with <OBJECT> -> "{letter}"')


def _program_dry_run(sub: Submission, letter: str, edition: str, workdir: Path, sites: tuple[Path, ...]) -> DryRun:
    from pcg_plugin.llm.scripted import ScriptedBackend, approx_usage
    from pcg_plugin.llm.session import TrialChat
    from pcg_plugin.llm.store import ResponseStore, TrialKey
    from pcg_plugin.problems.science_birds.editions import profile_for, program_limits
    from pcg_plugin.sandbox.run import run_program_trial

    profile = profile_for(edition)
    backend = ScriptedBackend(lambda messages, n: [double_answer(letter)] * n, usage=approx_usage, model=DOUBLE_MODEL)
    store = ResponseStore(workdir / "store" / "responses.sqlite3")
    key = TrialKey(edition, DOUBLE_MODEL, sub.name, sub.files_hash, letter, 1)
    chat = TrialChat(key, backend=backend, profile=profile, store=store, mode="all")
    log = AnswerLog(chat.chat)
    started = time.perf_counter()
    try:
        response = run_program_trial(
            sub.entry,
            letter=letter,
            chat=log.chat,
            limits=program_limits(edition),
            workdir=workdir / "trial",
            team=sub.name,
            root=sub.path,
            cwd=sub.run_folder,
            site_dirs=sites,
        )
    except OfficialFailure as failure:
        return _result(letter, chat, started, False, f"{failure.reason}: {failure.message}")
    finally:
        chat.close()
        store.close()
    why = not_an_answer(response, log.answers)
    if why is not None:
        return _result(letter, chat, started, False, why)
    return _result(letter, chat, started, True, "returned one of the model's answers unmodified")


def _result(letter: str, chat: TrialChat, started: float, passed: bool, what: str) -> DryRun:
    usage = chat.usage
    calls = int(usage.get("calls", 0))
    tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
    seconds = time.perf_counter() - started
    message = f"{what} ({calls} chat calls, about {tokens} tokens, {seconds:.1f} s; scripted test double, no model)"
    return DryRun(letter, passed, message, calls, tokens, seconds)
