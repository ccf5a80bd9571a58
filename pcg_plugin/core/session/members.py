"""The problems a run evaluates, each with what it needs of its own: its settings, its run (its folder), and the
``pytest.Config`` it is handed. A run of one problem has one member whose config is pytest's own (nothing
changes for it); in a suite (``core.contract.selection``) each member gets a ``MemberConfig``: pytest's config with a
stash of its own, because every problem keeps its settings and per-process resources in the stash under fixed
keys (``SETTINGS_KEY``, its context), which two problems of one run would otherwise overwrite."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.contract.base import BaseProblem
from pcg_plugin.core.contract.problem import PROBLEM_KEY, SETTINGS_KEY
from pcg_plugin.core.records.transcript import RUN_DIR_KEY
from pcg_plugin.core.results.suite import folder_for


class MemberConfig:
    """pytest's config as one problem of a suite sees it: every attribute is the run's, except ``stash``."""

    def __init__(self, config: pytest.Config) -> None:
        self.__dict__["_config"] = config
        self.__dict__["stash"] = pytest.Stash()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_config"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["_config"], name, value)


@dataclass
class Member:
    """One problem of the run: ``config`` is what its methods are called with, ``run`` its run (``run_dir``: its
    folder: the run folder for a run of one problem, ``folder_for(name)`` inside it in a suite)."""

    problem: BaseProblem
    config: Any
    run: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.problem.name)

    @property
    def settings(self) -> Any:
        return self.config.stash[SETTINGS_KEY]

    @property
    def run_dir(self) -> Path:
        return Path(self.run["run_dir"])

    def keep(self, settings: Any) -> None:
        """The member's settings and folder where its problem and the harness read them (its stash)."""
        self.config.stash[PROBLEM_KEY] = self.problem
        self.config.stash[SETTINGS_KEY] = settings
        self.config.stash[RUN_DIR_KEY] = self.run_dir


@dataclass
class Suite:
    """What a run evaluates: its members in order; ``is_suite``: a suite run folder (one folder per problem)."""

    members: list[Member]
    is_suite: bool = False

    def named(self, name: str) -> Member:
        for m in self.members:
            if m.name == name:
                return m
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.members]


SUITE_KEY = pytest.StashKey[Suite]()


def member_run(run: dict[str, Any], name: str, settings: Any) -> dict[str, Any]:
    """A suite member's run: the suite's id and start, its own folder and settings."""
    return {
        "id": run["id"],
        "run_dir": str(Path(run["run_dir"]) / folder_for(name)),
        "started": run["started"],
        "settings": settings.to_dict(),
    }


def suite_of(config: pytest.Config) -> Suite:
    return config.stash[SUITE_KEY]


def only_member(config: pytest.Config) -> Member:
    """The member of a run of one problem (a collector or item built without one)."""
    suite = config.stash[SUITE_KEY]
    if len(suite.members) != 1 or suite.is_suite:
        raise RuntimeError("pytest-pcg: a suite's collector must be given its member (a bug)")
    return suite.members[0]
