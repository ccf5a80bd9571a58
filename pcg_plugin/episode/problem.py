"""What every episode problem (clembench's picture game, GameEval's games) shares on the Problem protocol.

A submission is a folder with a manifest (a model in self-play, a prompt for a role, or a program for a role); a
program's `requirements.txt` is installed once in pre-flight, before any model call, and a trial whose
requirements cannot be met fails before asking anything; each process keeps one worker Context (backends, the
response store, the rate limiter, installed requirements). A problem names its submission module and its
worker ``Context``; the game's own parts (targets, one episode, the table at the end) stay in its package, and
the problem's methods that only hand over to them are written here once (``item_module``, ``report_module``,
``rows_module``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pcg_plugin.core.contract.base import BaseProblem, Finished, WorkerStats
from pcg_plugin.episode import crossplay
from pcg_plugin.episode.context import CONTEXT_KEY, EpisodeContext, context
from pcg_plugin.errors import EnvironmentProblem, SubmissionError
from pcg_plugin.sandbox import environments


class EpisodeProblem(BaseProblem):
    """The shared half of an episode problem. ``submission_module`` has ``MANIFEST``, ``not_a_submission(path)``
    and what `detect` calls; ``context_class`` is the per-process context (``episode.context``) under the
    game's name; ``settings_class`` and ``record_class`` are read back from JSON with ``from_dict``/``from_json``.
    The game's modules do the rest, each function taking ``game_args`` first (GameEval: the game): ``item_module``
    one trial's ``describe`` and ``trial_states``, ``report_module`` the end of the run (``finish_run``,
    ``summary_lines``), ``rows_module`` the run read back (``trial_rows``, ``scores``)."""

    submission_module: ModuleType
    context_class: type[EpisodeContext]
    settings_class: Any
    record_class: Any
    item_module: ModuleType
    report_module: ModuleType
    rows_module: ModuleType
    game_args: tuple[Any, ...] = ()

    play_roles: tuple[str, ...] = ()  # the roles models are assigned to, in the order a level names them (a--b)

    def pinned(self, sub: Any) -> dict[str, str]:
        """The roles a submission's manifest gives their own model (GameEval's ``[models]`` table)."""
        return {}

    def levels(self, settings: Any, sub: Any) -> dict[str, dict[str, str]]:
        """The submission's item levels with their role -> model assignments (``episode.crossplay``): one per model
        of a several-model run, one per assignment in cross-play; the pinned roles keep their model."""
        cross_play = bool(getattr(settings, "cross_play", False))
        if not (settings.multi_model or cross_play):
            return {}
        roles = self.play_roles
        return crossplay.levels(
            roles, settings.models, self.pinned(sub), cross_play=cross_play, distinct=len(roles) > 2
        )

    def model_levels(self, settings: Any, sub: Any) -> tuple[str, ...]:
        return tuple(self.levels(settings, sub))

    def level_keywords(self, settings: Any, sub: Any, level: str) -> tuple[str, ...]:
        cross_play = bool(getattr(settings, "cross_play", False))
        return crossplay.keywords(level, self.levels(settings, sub).get(level) if cross_play else None)

    def assignment(self, settings: Any, sub: Any, level: str | None) -> dict[str, str] | None:
        """The role -> model map of an item's level (None: a run of one model, whose roles are as the manifest
        and ``--pcg-model`` say)."""
        return None if level is None else self.levels(settings, sub)[level]

    typical_calls = 10.0  # calls a game makes, for the estimate where the response store has none of this game

    def store_edition(self, settings: Any) -> str:
        """The response store's edition of this game's self-play episodes (the estimate's recorded calls)."""
        return ""

    def cost_line(self, settings: Any, nodeids: Sequence[str], run: Mapping[str, Any]) -> str | None:
        """Before a several-model run: the games of every level (each model, or each cross-play assignment) and
        the calls they make, from the calls per game the store recorded for this game, else the game's typical
        count (``crossplay.estimate``)."""
        if not (settings.multi_model or getattr(settings, "cross_play", False)):
            return None
        games: dict[str, int] = {}
        for nodeid in nodeids:
            parts = nodeid.split("::")
            if len(parts) >= 4 and parts[-1].isdigit():
                games[parts[-3]] = games.get(parts[-3], 0) + 1
        if not games:
            return None
        roles = {
            level: level.split(crossplay.SEPARATOR) if getattr(settings, "cross_play", False) else [level]
            for level in games
        }
        per_game, source = self.typical_calls, "the game's typical count"
        if settings.store is not None and Path(settings.store).exists() and self.store_edition(settings):
            from pcg_plugin.llm.store import ResponseStore

            mine = self.store_edition(settings)
            by_game: dict[tuple[Any, ...], int] = {}  # a game's calls are its models' chats together
            for t in ResponseStore(settings.store).trials():
                if t.key.edition == mine or t.key.edition.startswith(mine + "|"):  # self-play, or a pair's
                    k = t.key
                    game = (k.edition, k.submission, k.submission_hash, k.letter, k.trial)
                    by_game[game] = by_game.get(game, 0) + len(t.calls)
            made = list(by_game.values())
            if made:
                per_game, source = sum(made) / len(made), f"the mean of {len(made)} recorded"
        return crossplay.estimate(games, roles, per_game, source)

    def settings_from_dict(self, data: Mapping[str, Any]) -> Any:
        return self.settings_class.from_dict(data)

    def record_from_json(self, text: str) -> Any:
        return self.record_class.from_json(text)

    def header(self, what: str, settings: Any, run: Mapping[str, Any]) -> list[str]:
        """The run's header: ``what`` is played, by which backend and model; then the notes and each program's
        requirements (the controller prints the run folder, when the run has items)."""
        backend = settings.backend or ("auto (offline default)" if settings.offline_default else "auto")
        return [
            f"pcg: problem {what}; backend {backend}, model {settings.model or 'default'}",
            *self.requirement_lines(settings, run),
        ]

    def detect(self, path: Path) -> Any:
        """The submission in ``path`` (None when it holds no manifest); a broken manifest raises SubmissionError."""
        return self.submission_module.detect(path)

    def requirement_lines(self, settings: Any, run: Mapping[str, Any]) -> list[str]:
        """The run's notes and each program's requirements, for the header."""
        envs = run.get("environments", {})
        return [f"pcg: {note}" for note in settings.notes] + [
            f"pcg: {name} requirements: {env['summary']}" for name, env in sorted(envs.items())
        ]

    def detect_folder(self, path: Path, roots: Sequence[Path], *, evaluating: bool) -> Any:
        sub = self.detect(path)
        if sub is not None:
            return sub
        manifest = self.submission_module.MANIFEST
        if any(_same(path, r) for r in roots) and not any(
            p.is_dir() and (p / manifest).is_file() for p in _children(path)
        ):
            raise SubmissionError(self.submission_module.not_a_submission(path))
        return None

    def preflight(self, config: pytest.Config, settings: Any, roots: Sequence[Path]) -> dict[str, Any]:
        """Before any model call: each program's requirements.txt installed into its cached environment (as
        Science Birds does; ``pcg_plugin.sandbox.environments``) and its imports checked, once for all workers."""
        envs: dict[str, dict[str, Any]] = {}
        for sub in self.program_submissions(roots):
            env = environments.prepare(sub.path, sub.entry, mode="install")
            envs[sub.name] = {
                "site_dir": str(env.site_dir) if env.site_dir else None,
                "problems": env.problems,
                "summary": env.summary(sub.path),
            }
        return {"environments": envs}

    def program_submissions(self, roots: Sequence[Path]) -> list[Any]:
        """The program submissions under the run's folders (a broken manifest is its folder's error item)."""
        manifest = self.submission_module.MANIFEST
        found: dict[Path, Any] = {}
        for root in roots:
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))  # as pytest skips them
                if manifest not in files:
                    continue
                dirs.clear()  # a submission's own subfolders are its files, not more submissions
                try:
                    sub = self.detect(Path(folder))
                except SubmissionError:
                    continue
                if sub is not None and sub.program is not None:
                    found.setdefault(sub.path.resolve(), sub)
        return list(found.values())

    def start_process(
        self, config: pytest.Config, settings: Any, run: Mapping[str, Any], workers: int, service: str | None
    ) -> None:
        config.stash[CONTEXT_KEY] = self.context_class(
            settings, Path(run["run_dir"]), workers=workers, environments=run.get("environments", {})
        )

    def setup_trial(self, config: pytest.Config, sub: Any) -> None:
        """A program whose requirements cannot be met errors here, before any model call."""
        try:
            context(config).site_dirs(sub)
        except EnvironmentProblem as exc:
            pytest.fail(
                f"requirements of {sub.name} ({sub.path}) cannot be met, so its episodes were not played "
                f"(no model call): {exc}",
                pytrace=False,
            )

    def process_facts(self, config: pytest.Config) -> dict[str, Any]:
        ctx = config.stash.get(CONTEXT_KEY, None)
        return ctx.facts() if ctx else {}

    def describe(self, record: Any) -> str:
        return self.item_module.describe(record)

    def trial_states(self, record: Any) -> list[dict[str, Any]]:
        return self.item_module.trial_states(record)

    def finish_run(
        self, config: pytest.Config, run: Mapping[str, Any], collected: Any, worker_stats: WorkerStats
    ) -> Finished:
        """The game's results document and report (each worker's facts are already in the records)."""
        return self.report_module.finish_run(*self.game_args, run, collected, self)

    def summary_lines(
        self, results: Mapping[str, Any] | None, run_dir: str | Path, report: Path | None, error: str | None
    ) -> list[str]:
        return self.report_module.summary_lines(*self.game_args, results, run_dir, report, error)

    # -- the run read back (core.results.runs) -------------------------------------------------------------------------

    def trial_rows(self, results: Mapping[str, Any]) -> list[dict[str, Any]]:
        return self.rows_module.trial_rows(*self.game_args, results)

    def scores(self, results: Mapping[str, Any], pick: Any) -> dict[str, float]:
        return self.rows_module.scores(*self.game_args, results, pick)


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _children(path: Path) -> list[Path]:
    try:
        return list(path.iterdir())
    except OSError:
        return []
