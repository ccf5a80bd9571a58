"""pytest collectors and items for participants: one item per rule check, and one dry-run item per submission.

``pytest --pcg-rules submissions/team_x`` gives ``submissions/team_x::prompt-length`` and so on;
``--pcg-dry-run`` adds ``submissions/team_x::dry-run``. Nothing here calls a model or loads a classifier.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin._util.names import shown
from pcg_plugin.core.contract.options import flag
from pcg_plugin.core.contract.problem import SETTINGS_KEY
from pcg_plugin.core.session.items import NamedAsShown
from pcg_plugin.errors import RuleBroken
from pcg_plugin.problems.science_birds.submissions import Submission


class PcgRuleWarning(pytest.PytestWarning):
    """Something that would break a rule in a file the program never imports: shown, not judged."""


def dry_run_letter(config: pytest.Config) -> str:
    """The first of ``--pcg-letters`` when given, else A."""
    settings = config.stash[SETTINGS_KEY]
    return settings.letters[0] if settings.letters_explicit else "A"


class _Checks(pytest.Collector):
    """Collector behaviour shared by a submission folder and a loose prompt file (a pytest.Collector, so its
    items' parent is one; the classes below put it before pytest.Directory / pytest.File: the same MRO)."""

    submission: Submission

    def __init__(self, *, submission: Submission, **kw: Any) -> None:
        super().__init__(**kw)
        self.submission = submission

    def collect(self) -> Iterator[pytest.Item]:
        if flag(self.config, "pcg_rules"):
            from pcg_plugin.problems.science_birds.rules.checks import check_submission

            for result in check_submission(self.submission):
                yield RuleItem.from_parent(self, name=result.rule, submission=self.submission, result=result)
        if flag(self.config, "pcg_dry_run"):
            yield DryRunItem.from_parent(self, name="dry-run", submission=self.submission)


class RulesDir(NamedAsShown, _Checks, pytest.Directory):
    """A submission folder under ``--pcg-rules`` / ``--pcg-dry-run``."""


class RulesFile(NamedAsShown, _Checks, pytest.File):
    """A loose 2023 prompt file under ``--pcg-rules`` / ``--pcg-dry-run``."""


class _ParticipantItem(pytest.Item):
    def __init__(self, *, submission: Submission, **kw: Any) -> None:
        super().__init__(**kw)
        self.submission = submission
        self.add_marker(pytest.mark.pcg_rules)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, RuleBroken):
            return f"{self.nodeid}: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)  # a bug in a check: keep the traceback


class RuleItem(_ParticipantItem):
    """One rule, checked statically at collection; the item reports the verdict and what to fix."""

    def __init__(self, *, result: Any, **kw: Any) -> None:
        super().__init__(**kw)
        self.result = result
        self.extra_keyword_matches.add(f"rule_{result.rule}")

    def runtest(self) -> None:
        r = self.result
        if not r.ran:
            pytest.skip(f"{r.rule}: {r.message}")  # neither passed nor broken: another rule says why
        if r.passed:
            self.add_report_section("call", "pcg", r.message)  # -rA shows what was checked
            if r.warnings:
                where = "".join(f"\n  {f.path}:{f.line}:{f.col}: {f.text}" for f in r.warnings)
                first = r.warnings[0]  # located at the file it is about (pytest's Node.warn needs a line)
                warnings.warn_explicit(
                    PcgRuleWarning(shown(f"{self.nodeid}: {r.message}{where}")),
                    category=None,
                    filename=shown(first.path),
                    lineno=first.line,
                )
        else:
            where = "".join(f"\n  {f.path}:{f.line}:{f.col}: {f.text}" for f in r.findings)
            kind = "official rule" if r.official else "pytest-pcg check (not an official rule)"
            raise RuleBroken(f"{r.title} [{kind}]: {r.message}{where}")

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.result.findings[0].line - 1 if self.result.findings else None
        return Path(shown(self.submission.entry)), line, f"{self.submission.name}: {self.result.rule}"


class DryRunItem(_ParticipantItem):
    """Runs the program once for one letter in the sandbox against the scripted double."""

    def runtest(self) -> None:
        from pcg_plugin.problems.science_birds.rules.dry_run import dry_run

        edition = "2025" if self.submission.format == "program-2025" else self.config.stash[SETTINGS_KEY].edition
        result = dry_run(
            self.submission,
            dry_run_letter(self.config),
            edition=edition,
            requirements=self.config.stash[SETTINGS_KEY].requirements,
        )
        self.add_report_section("call", "pcg", f"letter {result.letter}: {result.message}")
        if not result.passed:
            raise RuleBroken(f"dry run, letter {result.letter}: {result.message}")

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path(shown(self.submission.entry)), None, f"{self.submission.name}: dry run"
