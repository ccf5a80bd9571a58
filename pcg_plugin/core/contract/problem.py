"""The Problem contract and its registry: what the harness asks of a problem, and how a run finds one.

A run evaluates one problem (``--pcg-problem NAME`` or the ini key ``pcg_problem``; default
``science-birds``), or a suite of them (a comma list, shell-style patterns, ``all``: ``core.contract.selection``; each
problem then has its own ``core.session.members.Member``). The harness looks each up through the firstresult hook
``pytest_pcg_problem(config, name)`` (so a conftest can supply one) and then the ``pytest_pcg.problems``
entry-point group (how an installed package registers one). Adding a problem is one package plus one entry
point; nothing in ``core`` changes.

An entry point names an ``Entry``: the problem's name and options, cheap to import (every installed problem's
options are on the command line before a run chooses one), and where its implementation lives
(``"package.problem:Class"``), imported once, when a run chooses it. A family of problems (every PCG Benchmark
variant, every GameEval game) is one entry point whose name ends in ``/*`` and names a ``Family``: the variants'
names (read without importing any game) and one implementation made per variant; each variant is the problem
``<prefix>/<variant>`` (``pcgbench/zelda-large-v0``), listed and loaded like any other.

What a problem defines is ``Problem`` (eight methods); the optional hooks, with their defaults, are
``core.contract.base.BaseProblem``, which every problem subclasses. The harness calls those hooks on every problem, so a
loaded problem is a ``BaseProblem`` to it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import pytest

from pcg_plugin.core.contract.base import BaseProblem, Finished, WorkerStats

ENTRY_POINT_GROUP = "pytest_pcg.problems"
DEFAULT_PROBLEM = "science-birds"
PROBLEM_KEY = pytest.StashKey[BaseProblem]()
SETTINGS_KEY = pytest.StashKey[Any]()  # the problem's own frozen settings, identical on every process


@runtime_checkable
class SubmissionLike(Protocol):
    """What the harness reads of a problem's submission (the rest is the problem's)."""

    name: str
    path: Path
    entry: Path
    format: str


@runtime_checkable
class RecordLike(Protocol):
    """One trial's outcome as the harness carries it across xdist: JSON whose ``reason`` is None or the
    official reason the trial scored zero; ``nodeid`` and ``model`` (None unless several models ran)."""

    nodeid: str
    model: str | None
    reason: str | None

    def to_json(self) -> str: ...


@runtime_checkable
class SettingsLike(Protocol):
    """What the harness reads of a problem's settings."""

    out: Path | None
    trials: int

    @property
    def targets(self) -> tuple[str, ...]: ...

    @property
    def models(self) -> tuple[str, ...]: ...

    @property
    def multi_model(self) -> bool: ...

    def to_dict(self) -> dict[str, Any]: ...


@runtime_checkable
class Problem(Protocol):
    """What every problem defines: what to collect, how to run one trial, how to score the run, how to describe
    it. Everything else is an optional hook with a default on ``core.contract.base.BaseProblem``."""

    name: str
    target_label: str  # what a target is called in item keywords, reports and item metadata ("letter")

    # what to collect: the run's settings (on the controller, and rebuilt from JSON on every worker), a submission
    # (None: not one; errors.SubmissionError: one we cannot evaluate)
    def configure(self, config: pytest.Config) -> SettingsLike: ...
    def settings_from_dict(self, data: Mapping[str, Any]) -> SettingsLike: ...
    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> SubmissionLike | None: ...

    # one trial, and its record as it crosses xdist
    def run_trial(
        self, config: pytest.Config, submission: Any, target: str, trial: int, nodeid: str, model: str | None
    ) -> RecordLike: ...
    def record_from_json(self, text: str) -> RecordLike: ...

    # the run: scored, written, summed up
    def finish_run(
        self, config: pytest.Config, run: Mapping[str, Any], collected: Any, worker_stats: WorkerStats
    ) -> Finished: ...
    def describe(self, record: Any) -> str: ...
    def summary_lines(
        self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
    ) -> list[str]: ...


def _import(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class Entry:
    """An installed problem as its entry point names it. ``name`` and ``options`` (``"module:add_options"``,
    registering the problem's ``--pcg-*`` options) are read at every pytest start; ``implementation``
    (``"module:factory"``, called with ``args``) is imported when a run chooses the problem, and only then."""

    name: str
    implementation: str
    options: str | None = None
    args: tuple[Any, ...] = ()

    def add_options(self, parser: pytest.Parser) -> None:
        if self.options is not None:
            _import(self.options)(parser)

    def load(self) -> BaseProblem:
        return _import(self.implementation)(*self.args)


@dataclass(frozen=True)
class Family:
    """A ``<prefix>/*`` entry point: one implementation for many variants, named by ``variants`` (a
    ``"module:attr"``: their names, or a function returning them; it must import no game); each variant's
    factory is called with its name."""

    implementation: str
    variants: str
    options: str | None = None

    def entries(self, prefix: str) -> dict[str, Entry]:
        names = _import(self.variants)
        return {
            f"{prefix}/{v}": Entry(f"{prefix}/{v}", self.implementation, self.options, (v,))
            for v in (names() if callable(names) else names)
        }


FAMILY_SUFFIX = "/*"


def registered() -> dict[str, Entry]:
    """name -> entry of every installed problem (nothing but their names and options is imported)."""
    out: dict[str, Entry] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        obj = ep.load()
        if ep.name.endswith(FAMILY_SUFFIX):
            out.update(obj.entries(ep.name[: -len(FAMILY_SUFFIX)]))
        elif isinstance(obj, Entry):
            out[ep.name] = obj
        else:
            raise TypeError(
                f"entry point {ep.name} = {ep.value!r} ({ENTRY_POINT_GROUP}) names {type(obj).__name__}, "
                "not a pcg_plugin.core.contract.problem.Entry (or a Family, for a name ending in /*)"
            )
    return out


def add_options(parser: pytest.Parser, entries: Iterable[Entry]) -> None:
    """Every installed problem's options (parsed before a problem is chosen); a family's once."""
    for entry in {e.options: e for e in entries}.values():
        entry.add_options(parser)


def load(name: str, config: pytest.Config | None = None) -> BaseProblem:
    """The problem called ``name``: a conftest's ``pytest_pcg_problem`` first, then the entry points."""
    if config is not None:
        found = config.hook.pytest_pcg_problem(config=config, name=name)
        if found is not None:
            return found
    entries = registered()
    if name not in entries:
        from pcg_plugin.core.contract.selection import closest, unknown

        error = unknown(name, closest(name, sorted(entries)), len(entries))
        raise pytest.UsageError(
            f"--pcg-problem: {error} (a conftest can supply a problem with the pytest_pcg_problem hook)"
        )
    return entries[name].load()


def problem_of(config: pytest.Config) -> BaseProblem:
    return config.stash[PROBLEM_KEY]
