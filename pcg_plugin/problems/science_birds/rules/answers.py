"""The final response must be one of the model's answers, unmodified.

The rules of 2024 and 2025 ("Don't modify responses before they are written (the final output must be a direct
response)"; py-pkg: the value ``run`` returns "must be an unmodified LLM response") disqualify a program that
edits, joins or invents its final response. The official runner itself writes whatever ``run`` returns; the
dry run and, by default, a real run check it here (``--pcg-unmodified-response``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

CHECK_MODES = ("zero", "off")  # zero: a trial whose response is not a model answer scores 0; off: the runner's way

Chat = Callable[[list[dict], int], list[str]]


class AnswerLog:
    """Every answer the model gave in one trial (each choice of each call), as the program received them."""

    def __init__(self, chat: Chat) -> None:
        self._chat = chat
        self.answers: list[str] = []

    def chat(self, messages: list[dict], n: int) -> list[str]:
        out = self._chat(messages, n)
        self.answers.extend(out)
        return out


def not_an_answer(response: str, answers: Sequence[str]) -> str | None:
    """Why ``response`` is not one of ``answers`` (what to fix), or None when it is one of them, unmodified."""
    if not answers:
        return "run() returned without calling the chat function: the final response must be the model's answer"
    if response in answers:
        return None
    return (
        "the returned string is not one of the model's answers: return the response unmodified "
        f"(got {len(response)} characters starting {response[:60]!r})"
    )
