"""The Problem protocol and its registry: what the harness asks of a problem, and how a run finds one.

A run evaluates one problem (``--pcg-problem NAME`` or the ini key ``pcg_problem``; default
``science-birds``). The harness looks it up through the firstresult hook ``pytest_pcg_problem(config, name)``
(so a conftest can supply one) and then the ``pytest_pcg.problems`` entry-point group (how an installed
package registers one). Adding a problem is one package plus one entry point; nothing in ``core`` changes.

A family of problems (every PCG Benchmark variant) is one entry point whose name ends in ``/*``
(``"pcgbench/*" = "pcg_plugin.problems.pcgbench.problem:family"``): it names a callable returning
``{variant: factory}``, and each variant is the problem ``<prefix>/<variant>`` (``pcgbench/zelda-large-v0``), listed
and loaded like any other. A new variant of the family then needs no entry point of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import pytest

ENTRY_POINT_GROUP = "pytest_pcg.problems"
DEFAULT_PROBLEM = "science-birds"
PROBLEM_KEY = pytest.StashKey["Problem"]()
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
    """A problem the harness evaluates. ``core.base.BaseProblem`` gives the optional parts a default."""

    name: str
    target_label: str  # what a target is called in item keywords, reports and item metadata ("letter")

    # options and settings
    def add_options(self, parser: pytest.Parser) -> None: ...
    def configure(self, config: pytest.Config) -> SettingsLike: ...
    def settings_from_dict(self, data: Mapping[str, Any]) -> SettingsLike: ...
    def markers(self) -> Sequence[str]: ...

    # controller, before collection
    def preflight(self, config: pytest.Config, settings: Any, roots: Sequence[Path]) -> dict[str, Any]: ...
    def start_services(self, config: pytest.Config, settings: Any, run_dir: Path) -> str | None: ...
    def stop_services(self, config: pytest.Config) -> None: ...
    def header_lines(self, config: pytest.Config, settings: Any, run: Mapping[str, Any]) -> list[str]: ...
    def session_lines(self, run: Mapping[str, Any]) -> list[str]: ...
    def cost_line(self, settings: Any, nodeids: Sequence[str], run: Mapping[str, Any]) -> str | None: ...

    # collection: a folder or file -> a submission (None: not one; errors.SubmissionError: one we cannot evaluate)
    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> SubmissionLike | None: ...
    def detect_file(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> SubmissionLike | None: ...
    def submission_meta(self, submission: Any) -> dict[str, Any]: ...
    def checks_collector(self, folder: bool) -> Any: ...

    # every process: resources, one trial
    def start_process(self, config: pytest.Config, settings: Any, run: Mapping[str, Any], workers: int,
                      service: str | None) -> None: ...  # fmt: skip
    def process_facts(self, config: pytest.Config) -> dict[str, Any]: ...
    def setup_trial(self, config: pytest.Config, submission: Any) -> None: ...
    def run_trial(self, config: pytest.Config, submission: Any, target: str, trial: int, nodeid: str,
                  model: str | None) -> RecordLike: ...  # fmt: skip
    def describe(self, record: Any) -> str: ...
    def record_from_json(self, text: str) -> RecordLike: ...

    # controller, after the run
    def finish_run(self, config: pytest.Config, run: Mapping[str, Any], collected: Any,
                   worker_stats: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, Any], Path | None]: ...  # fmt: skip
    def summary_lines(self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None,
                      error: str | None) -> list[str]: ...  # fmt: skip


FAMILY_SUFFIX = "/*"


def registered() -> dict[str, Callable[[], Any]]:
    """name -> loader of every installed problem (a single problem's entry point is loaded only when chosen; a
    family's is loaded to list its variants, so it must import cheaply)."""
    out: dict[str, Callable[[], Any]] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name.endswith(FAMILY_SUFFIX):
            prefix = ep.name[: -len(FAMILY_SUFFIX)]
            for variant, factory in ep.load()().items():
                out[f"{prefix}/{variant}"] = factory
        else:
            out[ep.name] = ep.load
    return out


def _instance(obj: Any) -> Any:
    """An entry point may name a Problem instance, its class, or a factory taking no argument."""
    if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "run_trial")):
        return obj()
    return obj


def load(name: str, config: pytest.Config | None = None) -> Problem:
    """The problem called ``name``: a conftest's ``pytest_pcg_problem`` first, then the entry points."""
    if config is not None:
        found = config.hook.pytest_pcg_problem(config=config, name=name)
        if found is not None:
            return found  # type: ignore[no-any-return]
    eps = registered()
    if name not in eps:
        known = ", ".join(sorted(eps)) or "none installed"
        raise pytest.UsageError(f"--pcg-problem: no problem {name!r} (known: {known}; a conftest can supply one "
                                "with the pytest_pcg_problem hook)")  # fmt: skip
    return _instance(eps[name]())  # type: ignore[no-any-return]


def installed() -> list[Problem]:
    """Every installed problem (their options are registered before the command line is parsed)."""
    eps = registered()
    return [_instance(eps[n]()) for n in sorted(eps)]


def problem_of(config: pytest.Config) -> Problem:
    return config.stash[PROBLEM_KEY]
