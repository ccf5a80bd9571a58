"""elimination: a row of n letters from which short and long common words, and nothing longer, can be spelt.

Content (the benchmark's JSON form): n ints in [0, 26), 0 = 'a'. Control: {"sequence": [2, 7)}.

Semantics pinned to pcg_benchmark 00b96f5 `probs/elimination/problem.py`, quirks kept on purpose:
- the dictionary drops each line's last character before stripping (`l[:-1]`), so the unterminated last line
  "ZZZ" becomes "zz" and is skipped; words shorter than 3 or holding "-" or "." are skipped;
- a common word's rank is its line index over *all* count.txt lines (skipped lines included);
- every letter subset (at most n − 2 letters, kept in order) that spells a word is recorded, so the same word
  reached through different subsets counts each time;
- diversity is 1 − difflib's SequenceMatcher ratio of the two letter strings.
The two word files ship in `data/elimination/` and are read once per process, on first use.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from pcg_plugin.errors import BenchmarkFails
from pcg_plugin.problems.pcgbench.bench.parse import NO_BLOCK, last_fenced_block
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward

ALPHABET = 26
DATA = Path(__file__).parent / "data"
NOT_COMMON = 2.0  # the rank a word outside count.txt gets
SHORT, LONG = (3, 4), (5, 6)  # word lengths the quality wants; 7 and up are not allowed


@cache
def dictionary() -> frozenset[str]:
    """The benchmark's word set (178,589 words)."""
    words = set()
    with open(DATA / "dictionary.txt", encoding="ascii") as f:
        for line in f.readlines():
            word = line[:-1].strip().lower()
            if len(word) >= 3 and "-" not in word and "." not in word:
                words.add(word)
    return frozenset(words)


@cache
def common_ranks() -> dict[str, float]:
    """Common word -> its line index / number of lines in count.txt (60,177 words)."""
    words = dictionary()
    with open(DATA / "count.txt", encoding="ascii") as f:
        lines = f.readlines()
    ranks = {}
    for i, line in enumerate(lines):
        word = line.split("\t")[0].strip().lower()
        if len(word) >= 3 and word in words:
            ranks[word] = i * 1.0 / len(lines)
    return ranks


@cache
def sorted_words() -> tuple[str, ...]:
    return tuple(sorted(dictionary()))


def starts_a_word(prefix: str) -> bool:
    """Whether some dictionary word starts with `prefix` (the search below stops where none does)."""
    words = sorted_words()
    i = bisect_left(words, prefix)
    return i < len(words) and words[i].startswith(prefix)


def spelt_words(letters: str) -> list[tuple[str, int]]:
    """(word, longest run of adjacent chosen letters) for every subset of ≤ n − 2 letters that spells a word.

    In the benchmark's order: subsets as n-bit masks 0..2ⁿ−1, the first letter the most significant bit. The
    benchmark tries all 2ⁿ masks; here only subsets that spell a prefix of some word are grown (the same list).
    """
    n, words = len(letters), dictionary()
    found: list[tuple[int, str, int]] = []

    def grow(start: int, word: str, chosen: tuple[int, ...]) -> None:
        if word in words and len(chosen) <= n - 2:
            mask = sum(1 << (n - 1 - i) for i in chosen)
            run = best = 0
            for i in range(n):
                run = run + 1 if i in chosen else 0
                best = max(best, run)
            found.append((mask, word, best))
        for i in range(start, n):
            if starts_a_word(word + letters[i]):
                grow(i + 1, word + letters[i], (*chosen, i))

    grow(0, "", ())
    return [(word, run) for _, word, run in sorted(found)]


MAX_LETTERS = 20  # the benchmark tries all 2^n subsets of the letters: 2^20 takes seconds, 2^30 hours
REASONS = {
    "no_block": "the reply has no fenced block (```...```)",
    "not_letters": "the last fenced block is neither one word of letters a-z nor a JSON list of letter codes",
    "wrong_shape": "the row has fewer letters than the variant's",
    "too_long": f"the row has more than {MAX_LETTERS} letters (the benchmark tries all 2^n letter subsets)",
    "wrong_alphabet": "a letter code is not an integer 0..25",
    "benchmark_fails": "the extra letters spell a word longer than the variant's letter count, on which the "
    "benchmark raises IndexError",
}
TILE = 24  # pixels per letter in the report


@dataclass(frozen=True)
class LettersKind:
    """The content of one elimination variant: n letter codes 0..25.

    A reply writes the letters as one word in its last fenced block (`stranger`; case, spaces and commas are
    ignored) or as a JSON list of codes. Prompt placeholder: `<LENGTH>` (n). The report draws the letter tiles.
    """

    letters: int
    kind: str = "letters"
    placeholders: tuple[str, ...] = ("<LENGTH>",)
    reasons: dict[str, str] = field(default_factory=lambda: dict(REASONS), hash=False, compare=False)

    def check(self, content: Any) -> str | None:
        """None, or why `content` is not n letter codes: a list of at least n ints in [0, 26) (the benchmark's
        space takes more letters, and its evaluation reads them all)."""
        if not isinstance(content, list | tuple):
            return "not letters: expected a list of letter codes"
        if len(content) < self.letters:
            return f"wrong shape: {len(content)} letters, expected {self.letters}"
        if len(content) > MAX_LETTERS:
            return (
                f"too long: {len(content)} letters; the benchmark's space takes extra letters, but it tries "
                f"all 2^n subsets of them, so this harness scores at most {MAX_LETTERS}"
            )
        for i, v in enumerate(content):
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 0 <= v < ALPHABET:
                return f"wrong alphabet: letter {i} is {v!r}, expected an integer 0..{ALPHABET - 1}"
        return None

    def sample(self, rng: np.random.Generator) -> list[int]:
        return [int(rng.integers(0, ALPHABET)) for _ in range(self.letters)]

    def placeholder_values(self) -> dict[str, str]:
        return {"<LENGTH>": str(self.letters)}

    def show(self, content: Sequence[int]) -> str:
        return f"```\n{letters_text(content)}\n```"

    def parse(self, reply: str) -> tuple[list[int] | None, str | None]:
        """The letter codes of the last fenced block, or (None, "no block: …" / "not letters: …")."""
        body = last_fenced_block(reply)
        if body is None:
            return None, NO_BLOCK
        body = body.strip()
        if body.startswith("["):
            try:
                value = json.loads(body)
            except (ValueError, RecursionError):
                return None, "not letters: the block starts with [ but is not JSON"
            if not isinstance(value, list):
                return None, "not letters: the block is not a JSON list"
            return value, None
        word = "".join(c for c in body if c not in " ,\t\n")
        if not word:
            return None, "not letters: the fenced block is empty"
        if not all("a" <= c <= "z" for c in word.lower()):
            return None, f"not letters: the block is not one word of letters a-z: {body[:40]!r}"
        return [ord(c) - ord("a") for c in word.lower()], None

    def draw(self, content: Sequence[int], tile: int = TILE) -> str:
        """The row as letter tiles (an SVG)."""
        cells = "".join(
            f'<rect x="{i * tile + 1}" y="1" width="{tile - 2}" height="{tile - 2}" rx="3" fill="#f2e3c6" '
            f'stroke="#8a6d3b"/><text x="{i * tile + tile // 2}" y="{tile * 7 // 10}" text-anchor="middle" '
            f'font-family="monospace" font-size="{tile * 6 // 10}" font-weight="bold">{c.upper()}</text>'
            for i, c in enumerate(letters_text(content))
        )
        width = tile * len(content)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{tile}" '
            f'viewBox="0 0 {width} {tile}">{cells}</svg>'
        )

    def key(self) -> list[tuple[str, str]]:
        return [("letter tile", "#f2e3c6")]

    def facts(self) -> dict[str, Any]:
        return {"kind": self.kind, "length": self.letters, "alphabet": "a..z = codes 0..25"}

    def answer_regex(self) -> str:
        """Free text without backticks, then a fenced block of exactly n lowercase letters."""
        return rf"[^`]*```\n[a-z]{{{self.letters}}}\n```"


def letters_text(content: Sequence[int]) -> str:
    """The letter codes as the lowercase string the benchmark spells words from."""
    return "".join(chr(ord("a") + int(c)) for c in content)


@dataclass(frozen=True)
class Elimination:
    """One elimination variant's constants and the benchmark's four functions over its letter rows."""

    letters: int
    short_percentage: float
    long_percentage: float
    offset: float = 0.1
    diversity_threshold: float = 0.6

    def info(self, content: Sequence[int]) -> Info:
        """Every spelt word, bucketed by length as [word, run, is_common, rank] (rank 2.0 if not common)."""
        text = letters_text(content)
        ranks = common_ranks()
        found = spelt_words(text)
        inf: Info = {"total": len(found), "word": text}
        buckets: list[list[list[Any]]] = [[] for _ in range(self.letters - 2)]
        for word, run in found:
            if len(word) - 3 >= len(buckets):
                raise BenchmarkFails(
                    f"the letters spell {word!r}, {len(word)} letters, more than the variant's "
                    f"{self.letters} (the benchmark keeps words of 3 to {self.letters} letters "
                    "and raises IndexError)"
                )
            common = word in ranks
            buckets[len(word) - 3].append([word, run, int(common), ranks[word] if common else NOT_COMMON])
        for i, bucket in enumerate(buckets):
            inf[f"words_{i + 3}"] = bucket
        return inf

    def _words(self, inf: Info, lengths: Sequence[int]) -> list[list[Any]]:
        return [w for n in lengths for w in inf[f"words_{n}"]]

    def quality(self, inf: Info) -> float:
        """(common + constraints + added)/3; `added` (the ranks in the variant's bands) only when both are 1."""
        total = inf["total"]
        common = range_reward(sum(w[2] for w in self._words(inf, range(3, self.letters))), 0, total)
        short, long = self._words(inf, SHORT), self._words(inf, LONG)
        too_long = sum(len(inf[f"words_{n}"]) > 0 for n in range(7, self.letters))
        constraints = (
            range_reward(len(short), 0, 1, total)
            + range_reward(len(long), 0, 1, total)
            + range_reward(too_long, 0, 0, 0, total)
        ) / 3.0
        added = 0.0
        if common >= 1 and constraints >= 1:
            for words, centre in ((short, self.short_percentage), (long, self.long_percentage)):
                for w in words:
                    added += range_reward(w[3], 0, max(0, centre - self.offset), min(1, centre + self.offset), 1)
            added /= len(short) + len(long)
        return (common + constraints + added) / 3.0

    def diversity(self, a: Info, b: Info) -> float:
        """1 − difflib ratio of the two letter strings, 1 from 0.6 on."""
        ratio = SequenceMatcher(None, a["word"], b["word"]).ratio()
        return range_reward(1 - ratio, 0, self.diversity_threshold, 1.0)

    def goal(self) -> str:
        """What makes a letter row feasible and what the control asks, in words (from the formulas above)."""
        n, off = self.letters, self.offset
        short = f"{max(0, self.short_percentage - off):.1f} to {min(1, self.short_percentage + off):.1f}"
        long = f"{max(0, self.long_percentage - off):.1f} to {min(1, self.long_percentage + off):.1f}"
        text = (
            f"Elimination: the player spells words by keeping some of the {n} letters in their order and "
            f"crossing out the rest (at least two letters are always crossed out, so words have 3 to {n - 2} "
            f"letters). A good row lets the player spell at least one 3- or 4-letter word and at least one "
            f"5- or 6-letter word, and no word of 7 or more letters; every word that can be spelt must be a "
            f"common English word, and its place in the benchmark's frequency list (0 = most frequent, 1 = "
            f"least) must lie in {short} for 3-4 letter words and in {long} for 5-6 letter words. The control "
            f"`sequence` asks that no word spelt by letters standing side by side be longer than that."
        )
        if n - 2 < LONG[0]:
            text += (
                f" With {n} letters no 5-letter word can be spelt, so this variant's rows can never be fully "
                f"feasible (a benchmark quirk): the best quality is 5/9."
            )
        return text

    def controllability(self, inf: Info, control: Control) -> float:
        """Among words spelt by adjacent letters, none may be longer than `sequence` (1.0 when there are none)."""
        adjacent = [n for n in range(3, self.letters) for w in inf[f"words_{n}"] if w[1] == n]
        if not adjacent:
            return 1.0
        return range_reward(sum(n > control["sequence"] for n in adjacent), 0, 0, 0, len(adjacent))


# Feasible example rows (quality 1.0), found by hill-climbing; -easy-v0 can never be feasible, so it has none.
# tests/pcgbench/games/test_pcgbench_elimination.py checks the qualities.
EXAMPLE_WORDS = {
    "elimination-v0": ("vizimrxr", "uppqxped", "ttullero"),
    "elimination-easy-v0": (),
    "elimination-hard-v0": ("yzrohslhij", "ezmtmdxjer", "aeeemmezrv"),
}


def examples(name: str) -> tuple[list[int], ...]:
    return tuple([ord(c) - ord("a") for c in word] for word in EXAMPLE_WORDS.get(name, ()))


def make(
    name: str,
    letters: int,
    short_percentage: float,
    long_percentage: float,
    offset: float = 0.1,
    diversity: float = 0.6,
) -> BenchProblem:
    """A variant from the benchmark's kwargs."""
    game = Elimination(letters, short_percentage, long_percentage, offset, diversity)
    return BenchProblem(
        name=name,
        content=LettersKind(letters),
        control_space={"sequence": (2, 7)},
        info=game.info,
        quality=game.quality,
        controllability=game.controllability,
        diversity=game.diversity,
        goal=game.goal(),
        examples=examples(name),
    )
