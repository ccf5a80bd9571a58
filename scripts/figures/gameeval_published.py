"""Scripted Ask-Guess episodes shaped like a row of GameEval's published README table, to show that
``pcg gameeval aggregate`` computes the same columns (Round, ST, EE, RLE, AME, CE).

The README publishes percentages only (no raw results). Each row is consistent with 10,000 games; this script
writes 100 words x 100 trials of scripted replies whose outcomes have exactly the row's counts, spread evenly
over the words, and whose success rounds average to the row's Round. Replaying them and aggregating with
``--n 100`` must print the row back:

    python scripts/figures/gameeval_published.py easy/GPT4 > s.jsonl
    pcg gameeval replay askguess s.jsonl --json --no-calls > r.jsonl
    pcg gameeval aggregate askguess r.jsonl --n 100 --json

Rows: easy/TD003 easy/ChatGPT easy/GPT4 hard/TD003 hard/ChatGPT hard/GPT4.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator

from pcg_plugin.problems.gameeval.prompts import askguess_labels

# spec/other-problems.md §3.2: the README's table (Round, ST, EE, RLE, AME, CE in %)
PUBLISHED: dict[str, tuple[float, float, float, float, float, float]] = {
    "easy/TD003": (4.39, 82.71, 9.47, 1.84, 5.97, 0.01),
    "easy/ChatGPT": (6.01, 53.39, 8.13, 14.63, 23.21, 0.64),
    "easy/GPT4": (1.57, 97.69, 0.80, 1.01, 0.47, 0.03),
    "hard/TD003": (15.13, 42.36, 19.18, 37.19, 0.36, 0.91),
    "hard/ChatGPT": (13.78, 40.50, 3.88, 49.89, 4.57, 1.16),
    "hard/GPT4": (4.01, 92.77, 2.95, 0.84, 2.75, 0.69),
}
OUTCOMES = ("SuccessfulTrial", "EndingError", "RoundLimitError", "AnswerMentionedError", "ChatError")
TRIALS = 100
NEUTRAL_Q = "Is it alive?"  # holds no label as a substring (checked below)


def replies(mode: str, word: str, outcome: str, recorded: int) -> list[str | None]:
    """The replies of one episode ending in ``outcome`` (a success recorded at round ``recorded``)."""
    spaced = word.replace("_", " ")
    head: list[str | None] = ["It is something you know."] if mode == "easy" else []
    if outcome == "ChatError":
        return [None]
    if outcome == "EndingError":
        return [*head, NEUTRAL_Q, "gameover"]
    if outcome == "AnswerMentionedError":
        return [*head, NEUTRAL_Q, f"yes, it is a {spaced} indeed"]
    if outcome == "RoundLimitError":
        return head + [NEUTRAL_Q, "no"] * (30 if mode == "easy" else 31)
    qa_rounds = recorded if mode == "easy" else recorded + 1
    return head + [NEUTRAL_Q, "no"] * (qa_rounds - 1) + [f"Is it a {spaced}?", "gameover"]


def success_rounds(successes: list[int], target: float) -> list[list[int]]:
    """Per word, its successes' rounds (floor or ceil of ``target``) so that the mean over words of the per-word
    mean rounds is ``target`` to within 0.001."""
    low = math.floor(target)
    ups = [round(s * (target - low)) for s in successes]

    def mean() -> float:
        return sum(low + u / s for u, s in zip(ups, successes, strict=True)) / len(successes)

    i = 0
    while abs(mean() - target) > 0.001:
        step = 1 if mean() < target else -1
        if 0 <= ups[i] + step <= successes[i]:
            ups[i] += step
        i = (i + 1) % len(successes)
    return [[low + 1] * u + [low] * (s - u) for u, s in zip(ups, successes, strict=True)]


def script(row: str) -> Iterator[dict]:
    mode = row.split("/")[0]
    round_, *pcts = PUBLISHED[row]
    words = askguess_labels()
    assert not any(w.replace("_", " ") in NEUTRAL_Q.lower() for w in words)
    slots = [o for o, p in zip(OUTCOMES, pcts, strict=True) for _ in range(round(p * TRIALS))]
    assert len(slots) == len(words) * TRIALS, f"{row}: the percentages do not make {len(words) * TRIALS} games"
    per_word: list[list[str]] = [slots[w :: len(words)] for w in range(len(words))]  # an even share per word
    rounds = success_rounds([ws.count("SuccessfulTrial") for ws in per_word], round_)
    for w, word in enumerate(words):
        it = iter(rounds[w])
        for trial, outcome in enumerate(per_word[w]):
            recorded = next(it) if outcome == "SuccessfulTrial" else -1
            yield {
                "id": f"{row}/{word}/{trial}",
                "game": "askguess",
                "trial": trial,
                "mode": mode,
                "word": word,
                "replies": replies(mode, word, outcome, recorded),
            }


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in PUBLISHED:
        print(
            f"usage: python scripts/figures/gameeval_published.py ROW   (ROW: {' '.join(PUBLISHED)})", file=sys.stderr
        )
        return 2
    for line in script(argv[0]):
        print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
