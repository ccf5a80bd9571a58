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
Control = Any  # a control in the benchmark's own JSON: {"path": 57}, talakat's {"bullets": [...]}, arcade's 0/1 rows
Drawn = dict[str, int]  # a control as the harness draws it: one integer per key of the `ControlSpace`
ControlSpace = Mapping[str, tuple[int, int]]  # key -> [low, high), as the benchmark's IntegerSpace draws

# The placeholders every prompt may use whatever the content; each kind adds its own (`ContentKind.placeholders`).
COMMON_PLACEHOLDERS = ("<PROBLEM>", "<CONTROL>", "<GOAL>", "<EXAMPLES>")
# Every kind's own placeholders, over all variants: a prompt using one its variant does not fill is refused by name
# (a grid prompt's <LEGEND> on talakat would reach the model as the literal text).
KIND_PLACEHOLDERS = (
    "<WIDTH>",
    "<HEIGHT>",
    "<LEGEND>",
    "<LENGTH>",
    "<BLOCKS>",
    "<TYPES>",
    "<CELLS>",
    "<DOORS>",
    "<TILES>",
    "<ROWS>",
    "<ROW_LENGTH>",
    "<LAYOUT>",
    "<SLICES>",
)


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

    # Read-only members: a kind may hold them as frozen dataclass fields or as class attributes.
    @property
    def kind(self) -> str: ...

    @property
    def placeholders(self) -> tuple[str, ...]: ...

    @property
    def reasons(self) -> Mapping[str, str]:
        """Every reason code `check` and `parse` can give -> what it means."""
        ...

    def check(self, content: Any) -> str | None: ...

    def sample(self, rng: np.random.Generator) -> Any: ...

    def placeholder_values(self) -> dict[str, str]: ...

    def show(self, content: Any) -> str: ...

    def parse(self, reply: str) -> tuple[Any, str | None]: ...

    def draw(self, content: Any) -> str: ...

    def key(self) -> list[tuple[str, str]]: ...

    def facts(self) -> dict[str, Any]: ...

    def answer_regex(self) -> str | None: ...


def check_keyed_control(control: Any, space: ControlSpace) -> str | None:
    """None when `control` is an object holding every key of `space` with an integer value; else the named reason.

    Extra keys are ignored, as the benchmark's dictionary space ignores them; values outside the sampling range
    are allowed (the benchmark's formulas accept any integer target).
    """
    if not isinstance(control, Mapping):
        return "control is not an object"
    missing = sorted(set(space) - set(control))
    if missing:
        return f"control lacks the key(s) {missing} (it needs {sorted(space)})"
    bad = [k for k in space if isinstance(control[k], bool) or not isinstance(control[k], int | np.integer)]
    return f"control values must be integers: {bad}" if bad else None


@dataclass(frozen=True)
class BenchProblem:
    """One registered variant: its content kind, control space and the benchmark's per-item and pair functions.

    `info` computes once what the other three need (the benchmark's caching contract); `quality` and
    `controllability` are in [0, 1]; `diversity` is the pairwise value the set greedy consumes.

    Controls are the benchmark's own JSON everywhere a user gives or reads one (`Control`: `pcg pcgbench eval`,
    results.json, the report, a program's task, `controllability`). The harness draws its instances as one
    integer per key of `control_space` (`Drawn`: what instance ids name and `--pcg-grid-instances` counts);
    `to_native` turns a drawn control into the benchmark's form where the two differ (talakat's `bullets_0` ...
    keys into {"bullets": [...]}, arcade's layout packed in one integer into its 0/1 rows), `native_ranges` is
    that form with [low, high) at every integer, and `check_control` judges a given control (default: an object
    with the space's keys and integer values). `sample_control` replaces the uniform per-key draw where the
    benchmark has its own sampler (building normalises its block counts).
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
    sample_control: Callable[[np.random.Generator], Drawn] | None = None
    # How `<CONTROL>` shows a control when "key = value" would not do (arcade's map as rows of 0/1).
    show_control: Callable[[Control], str] | None = None
    to_native: Callable[[Drawn], Control] | None = None
    native_ranges: Any = None
    check_control: Callable[[Any], str | None] | None = None

    @property
    def placeholders(self) -> tuple[str, ...]:
        """Every placeholder a prompt for this variant may use."""
        return COMMON_PLACEHOLDERS + tuple(p for p in self.content.placeholders if p not in COMMON_PLACEHOLDERS)

    def native_control(self, drawn: Drawn) -> Control:
        """A drawn control in the benchmark's own JSON."""
        return dict(drawn) if self.to_native is None else self.to_native(drawn)

    def control_ranges(self) -> Any:
        """The benchmark's control form with [low, high) in place of every integer (results.json's `control_space`)."""
        if self.native_ranges is not None:
            return self.native_ranges
        return {k: [lo, hi] for k, (lo, hi) in self.control_space.items()}

    def control_problem(self, control: Any) -> str | None:
        """None when the benchmark can score `control`; else the named reason."""
        if self.check_control is not None:
            return self.check_control(control)
        return check_keyed_control(control, self.control_space)
