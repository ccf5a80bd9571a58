"""What every PCG Benchmark variant provides: the benchmark's four functions over one kind of content.

A variant (`zelda-large-v0`, `building-tall-v0`, `elimination-v0`, ...) is one `BenchProblem`: a content kind
(how its content is checked, sampled, asked for, read from a reply and drawn), a control space, and the
benchmark's `info` / `quality` / `controllability` / `diversity`, pure functions pinned to pcg_benchmark
00b96f5. The harness, the `pcg pcgbench` commands, the random baseline and the speed script only ever see this
record, so adding a variant is one line of `registry.py`, never a module or a pyproject line.

How a problem module plugs in (the interface the problem modules are written against):

- The module exposes `make(name: str, **kwargs) -> BenchProblem`; `registry.py` holds one line per variant,
  `"zelda-large-v0": (zelda.make, dict(width=18, height=12, enemies=8))`, the benchmark's own kwargs.
  Importing the module must stay cheap (every variant's name is listed when pytest starts): read data files
  inside `make` or lazily, never at import.
- `content` is a `ContentKind` (below). Grids use `grid_kind.GridKind(rows, cols, legend)`; building uses
  `blocks_kind.BlocksKind`; a new form of content (letters, a floor plan) is one new kind class, shared by all
  the variants of that form.
- `info(content)` gets content that passed `content.check` (plain JSON values: lists, dicts, ints). Whatever
  the pairwise `diversity` needs must be in the info; when that is the content itself, put it under the key
  `"content"`: records and printed info leave that key out (the content is stored beside it) and put it back
  before diversity is computed.
- `goal` is what makes a content feasible and what the control asks, in words, from the benchmark's formulas
  (the `<GOAL>` placeholder); `examples` are feasible contents (the `<EXAMPLES>` placeholder, the test
  double's answers), e.g. the benchmark README's.

Named zero reasons: every message `check` and `parse` return starts with its reason in words, then a colon
("wrong shape: row 3 has 5 cells, expected 14"); `reason_code` turns the words into the code a record carries
(`wrong_shape`), and the kind's `reasons` documents every code it can give.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

Info = dict[str, Any]
Control = Mapping[str, int]
ControlSpace = Mapping[str, tuple[int, int]]  # key -> [low, high), as the benchmark's IntegerSpace draws

# The placeholders every prompt may use whatever the content; each kind adds its own (`ContentKind.placeholders`).
COMMON_PLACEHOLDERS = ("<PROBLEM>", "<CONTROL>", "<GOAL>", "<EXAMPLES>")


def reason_code(message: str) -> str:
    """The named zero reason of a check or parse message: its words before the first colon, snake-cased."""
    return message.split(":", 1)[0].strip().lower().replace(" ", "_").replace("-", "_")


def to_plain(value: Any) -> Any:
    """A content as plain JSON values: numpy scalars to int/float, tuples to lists, dicts and lists walked."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, Mapping):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [to_plain(v) for v in value]
    return value



@dataclass(frozen=True)
class GridSize:
    """A variant's grid: ``width`` x ``height`` tiles, ``cells`` of them (the games' variant records start here)."""

    width: int
    height: int

    @property
    def cells(self) -> int:
        return self.width * self.height


@runtime_checkable
class ContentKind(Protocol):
    """One form of content (a tile grid, block drops, letters, a floor plan) at one variant's size.

    The benchmark side: `check` is strict where the benchmark is lax (a competition cannot score a content the
    benchmark would silently crop or crash on) and returns None or the named reason the content is invalid;
    `sample` draws a uniform content in plain JSON form, in the benchmark's draw order.

    The harness side: `placeholders` (this kind's own prompt placeholders, besides `COMMON_PLACEHOLDERS`) and
    their values; `show` writes a content the way a reply should (what `<EXAMPLES>` shows and `parse` reads back);
    `parse` reads a reply into a content or a named reason; `draw` is the report's picture (inline SVG or HTML,
    self-contained) and `key` its legend; `facts` is what results.json and a program's task say about the content;
    `answer_regex` is the whole reply's regular language for constrained decoding (None: not constrained); the
    room a complete reply needs follows from it (`llm.constrain.answer_budget`).
    """

    kind: str
    placeholders: tuple[str, ...]
    reasons: Mapping[str, str]  # every reason code `check` and `parse` can give -> what it means

    def check(self, content: Any) -> str | None: ...

    def sample(self, rng: np.random.Generator) -> Any: ...

    def placeholder_values(self) -> dict[str, str]: ...

    def show(self, content: Any) -> str: ...

    def parse(self, reply: str) -> tuple[Any, str | None]: ...

    def draw(self, content: Any) -> str: ...

    def key(self) -> list[tuple[str, str]]: ...

    def facts(self) -> dict[str, Any]: ...

    def answer_regex(self) -> str | None: ...


@dataclass(frozen=True)
class BenchProblem:
    """One registered variant: its content kind, control space and the benchmark's per-item and pair functions.

    `info` computes once what the other three need (the benchmark's caching contract); `quality` and
    `controllability` are in [0, 1]; `diversity` is the pairwise value the set greedy consumes. `sample_control`
    replaces the uniform per-key draw where the benchmark has its own control sampler (building normalises its
    block counts).
    """

    name: str
    content: ContentKind
    control_space: ControlSpace
    info: Callable[[Any], Info]
    quality: Callable[[Info], float]
    controllability: Callable[[Info, Control], float]
    diversity: Callable[[Info, Info], float]
    goal: str = ""
    examples: tuple[Any, ...] = ()
    sample_control: Callable[[np.random.Generator], dict[str, int]] | None = None
    # How `<CONTROL>` shows a control when "key = value" would not do (arcade's map, packed in one integer).
    show_control: Callable[[Control], str] | None = None

    @property
    def placeholders(self) -> tuple[str, ...]:
        """Every placeholder a prompt for this variant may use."""
        return COMMON_PLACEHOLDERS + tuple(p for p in self.content.placeholders if p not in COMMON_PLACEHOLDERS)
