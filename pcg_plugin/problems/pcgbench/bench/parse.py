"""Reading a content out of an LLM reply: the last fenced block; for grids, a JSON list of lists or rows of codes.

Only the syntax is judged here (it returns a content or a named reason, `bench_problem.reason_code`); shape and
alphabet are the kind's `check`, so one message names each kind of failure. Every number read from text is
bounded (`long_number`): a reply of one 5,000-digit integer is a named zero, not Python's ValueError (it reads
at most 4,300 digits), on every replay too.
"""

from __future__ import annotations

import json
import re

Grid = list[list[int]]

_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)
_SEPARATORS = re.compile(r"[\s,]+")
MAX_DIGITS = 100  # no code, id or position of any variant comes near; Python refuses to read more than 4,300


def long_number(tokens: list[str]) -> int | None:
    """The digit count of the first token longer than MAX_DIGITS, or None when every one can be read."""
    return next((len(t) for t in tokens if len(t.lstrip("-")) > MAX_DIGITS), None)


def last_fenced_block(text: str) -> str | None:
    """The body of the last ``` fenced block (an info string like ```json is allowed), or None."""
    blocks = _FENCE.findall(text)
    return blocks[-1] if blocks else None


def _json_grid(body: str) -> Grid | None:
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if (
        isinstance(value, list)
        and value
        and all(isinstance(row, list) for row in value)
        and all(isinstance(v, int) and not isinstance(v, bool) for row in value for v in row)
    ):
        return value
    return None


def _digit_rows(body: str, one_digit_codes: bool) -> tuple[Grid | None, str | None]:
    rows: Grid = []
    for number, line in enumerate(body.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        tokens = [t for t in _SEPARATORS.split(line) if t]
        if len(tokens) == 1 and one_digit_codes:  # a run of single-digit tiles, e.g. "01120"
            tokens = list(tokens[0])
        if not all(t.isascii() and t.isdigit() for t in tokens):
            return None, f"not a grid: line {number} of the block is not codes: {line[:40]!r}"
        digits = long_number(tokens)
        if digits is not None:
            return None, f"not a grid: line {number} of the block holds a number of {digits} digits"
        rows.append([int(t) for t in tokens])
    return (rows, None) if rows else (None, "not a grid: the fenced block is empty")


NO_BLOCK = "no block: the reply has no fenced block (```...```)"


def parse_grid(text: str, one_digit_codes: bool = True) -> tuple[Grid | None, str | None]:
    """(grid, None) from the last fenced block, or (None, reason): "no block: …" or "not a grid: …".

    With `one_digit_codes` a row written without separators ("01120") is one code per digit; without it (a
    legend of more than ten tiles) codes must be separated by spaces or commas."""
    body = last_fenced_block(text)
    if body is None:
        return None, NO_BLOCK
    if body.lstrip().startswith("["):
        grid = _json_grid(body)
        return (
            (grid, None)
            if grid is not None
            else (None, "not a grid: the block is not a JSON list of lists of integers")
        )
    return _digit_rows(body, one_digit_codes)
