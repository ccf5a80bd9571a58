"""A tracery grammar expanded by a sequence of integers instead of a random generator (Talakat's scripts).

pcg_benchmark 00b96f5 grows each Talakat spawner from its grammar with a fork of pytracery in which every tag
takes the next value of the content row (rotating: the value goes back to the end of the row) and picks rule
`value % len(rules)`. Tags expand depth first, left to right, a tag's value taken before its rule is expanded.
A backslash escapes the next character; the finished text drops single backslashes (a doubled one stays as
one), as the fork does once at the root. Tracery's actions (`[key:rule]`) and modifiers (`#sym.mod#`) are not
used by the benchmark's grammar and are refused here rather than half-implemented.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from pcg_plugin.errors import GrammarLoop  # re-exported

MAX_DEPTH = 400  # nested tags; a finite Talakat row nests fewer than 110 (see `GrammarLoop`)

Section = tuple[bool, str]  # (is a tag, text or symbol)


@lru_cache(maxsize=1024)
def parse_rule(rule: str) -> tuple[Section, ...]:
    """The rule's plain-text and tag sections in order; empty text is dropped, escapes are kept for the end."""
    sections: list[Section] = []
    text: list[str] = []
    in_tag = escaped = False
    for c in rule:
        if escaped:
            text.append(c)
            escaped = False
        elif c == "\\":
            text.append(c)
            escaped = True
        elif c == "#":
            if in_tag or text:
                sections.append((in_tag, "".join(text)))
            text, in_tag = [], not in_tag
        elif c in "[]":
            raise ValueError(f"tracery actions are not supported: {rule!r}")
        else:
            text.append(c)
    if in_tag:
        raise ValueError(f"unclosed tag in {rule!r}")
    if text:
        sections.append((False, "".join(text)))
    for is_tag, symbol in sections:
        if is_tag and "." in symbol:
            raise ValueError(f"tracery modifiers are not supported: {rule!r}")
    return tuple(sections)


class SequenceGrammar:
    """Rules by symbol; `rules` may grow between expansions (Talakat appends each spawner's name)."""

    def __init__(self, rules: Mapping[str, Sequence[str]]) -> None:
        self.rules = {key: list(values) for key, values in rules.items()}

    def flatten(self, rule: str, sequence: Sequence[int]) -> str:
        """The text `rule` expands to when tag k takes value sequence[k % len(sequence)]."""
        position = [0]

        def next_value() -> int:
            value = sequence[position[0] % len(sequence)]
            position[0] += 1
            return value

        def expand(rule_text: str, depth: int) -> str:
            if depth > MAX_DEPTH:
                raise GrammarLoop(f"tags nest deeper than {MAX_DEPTH}: the sequence never ends a recursive rule")
            out = []
            for is_tag, part in parse_rule(rule_text):
                if not is_tag:
                    out.append(part)
                    continue
                value = next_value()
                options = self.rules.get(part)
                if options is None:
                    out.append(f"(({part}))")  # the fork's text for an unknown symbol
                    continue
                out.append(expand(options[value % len(options)], depth + 1))
            return "".join(out)

        return clear_escapes(expand(rule, 0))


def clear_escapes(text: str) -> str:
    """Drops single backslashes and keeps one of each doubled pair, as the fork's root does."""
    return re.sub(r"\\(\\?)", r"\1", text)
