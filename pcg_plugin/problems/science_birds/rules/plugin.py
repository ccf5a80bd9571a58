"""pytest entry point (pytest11 `pcg_rules`): participant rule checks, dry run and baseline gating.

The switches ``--pcg-rules`` / ``--pcg-dry-run`` are Science Birds' own: this plugin registers and reads them and
tells the harness that such a run checks rather than evaluates (hook ``pytest_pcg_evaluating``); the items are
made by ``pcg_plugin.problems.science_birds.rules.items`` (``ScienceBirds.checks_collector``). Baseline gating
listens to ``pytest_pcg_run_finished``, which the controller calls once with the run's results document, and
turns a regression into a failing exit status, the way syrupy fails a run on unused snapshots.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.results.gate import Gate


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pcg", "pytest-pcg competition evaluation")
    switches = (
        ("--pcg-rules", "check each submission against the competition rules (static, no LLM); one item per rule"),
        ("--pcg-dry-run", "run each program once (first of --pcg-letters, else A) against a scripted test double"),
    )
    for flag, text in switches:  # each also an ini key: `pcg_rules = true`
        dest = flag.lstrip("-").replace("-", "_")
        group.addoption(flag, action="store_true", dest=dest, default=False, help=text)
        parser.addini(dest, help=text, type="bool", default=False)


def gate_settings(config: pytest.Config) -> dict[str, Any] | None:
    """The harness's gate options (``core.results.gate.settings``, checked up front), with the drop as an exact
    Decimal."""
    from pcg_plugin.core.results.gate import settings
    from pcg_plugin.problems.science_birds.scoring.baseline import parse_max_drop

    return settings(config, parse_drop=parse_max_drop)


def pytest_pcg_evaluating(config: pytest.Config) -> bool | None:
    """A rule-check or dry run checks the submissions instead of evaluating them (no model is paid)."""
    from pcg_plugin.core.contract.options import flag

    return False if flag(config, "pcg_rules") or flag(config, "pcg_dry_run") else None


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "pcg_rules: a participant rule check or dry run (--pcg-rules, --pcg-dry-run)")
    if hasattr(config, "workerinput"):
        return  # the controller alone sees the run's results
    from pcg_plugin.core.contract.problem import PROBLEM_KEY

    problem = config.stash.get(PROBLEM_KEY, None)
    if problem is None or not getattr(problem, "own_baseline_gate", False):
        return  # the harness gates every other problem (pcg_plugin/core/results/gate.py), with the same options
    gate = gate_settings(config)
    if gate is not None:
        if gate["baseline"] is not None:
            refuse_unlike_baseline(config, gate["baseline"])
        config.pluginmanager.register(BaselineGate(**gate), "pcg-baseline-gate")


def refuse_unlike_baseline(config: pytest.Config, path: Path) -> None:
    """Before any item runs (and is paid for): the baseline must be readable and like for like in every
    setting the run fixes up front; the rest is checked again when the run's results exist."""
    from pcg_plugin.core.contract.problem import SETTINGS_KEY
    from pcg_plugin.problems.science_birds.like_for_like import PRE_RUN
    from pcg_plugin.problems.science_birds.outputs import settings_document
    from pcg_plugin.problems.science_birds.scoring import baseline

    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is None:
        return
    try:
        base = baseline.load_baseline(path)
    except baseline.BaselineError as exc:
        raise pytest.UsageError(f"--pcg-baseline: {exc}") from None
    current = {"settings": baseline.baseline_settings(settings_document(settings, {}))}
    problems = baseline.incompatibilities(base, current, keys=PRE_RUN)
    if problems:
        raise pytest.UsageError(
            "--pcg-baseline: this run is not like for like with the baseline (refused before "
            "any item ran):\n  " + "\n  ".join(problems)
        )


class BaselineGate(Gate):
    """The harness's gate (``core.results.gate.Gate``) with Science Birds' own comparison: the official scores per
    letter
    and model, exact Decimals, the classifier's and physics' digests (``scoring.baseline``)."""

    def __init__(self, *, save: Path | None, baseline: Path | None, max_drop: Decimal, method: str) -> None:
        super().__init__(save=save, baseline=baseline, max_drop=max_drop, method=method)
        self.comparison: Any = None

    def pytest_pcg_run_finished(self, config: pytest.Config, results: dict[str, Any]) -> None:
        from pcg_plugin.errors import ResultsError
        from pcg_plugin.problems.science_birds.results import coerce
        from pcg_plugin.problems.science_birds.scoring import baseline

        self.finished = True
        try:
            doc = coerce(results)  # the typed results document (a foreign schema is refused, with its name)
            if self.baseline is not None:
                base = baseline.load_baseline(self.baseline)
                self.comparison = baseline.compare(
                    base, baseline.baseline_document(doc), max_drop=self.max_drop, method=self.method
                )
            if self.save is not None:
                self.saved = baseline.save_baseline(self.save, doc)
        except (baseline.BaselineError, ResultsError) as exc:
            self.error = str(exc)
        if self.failed():
            self.write_page(config, results)  # a saved baseline file too: read as the run it was cut from

    def baseline_run(self) -> Any:
        """A saved baseline file read as the run it was cut from (``baseline.results_document``), a run folder or
        results.json as it is."""
        from pcg_plugin.core.contract.problem import load as load_problem
        from pcg_plugin.core.results import runs
        from pcg_plugin.problems.science_birds.scoring import baseline

        found = runs.results_path(self.baseline or Path())
        doc = runs.read_document(found, "baseline ")
        if doc.get("schema") != baseline.BASELINE_SCHEMA:
            return super().baseline_run()
        return runs.FinishedRun(found, baseline.results_document(doc), load_problem("science-birds"))

    def failed(self) -> bool:
        return self.comparison is not None and bool(self.comparison.failed)

    def lines(self) -> list[str] | None:
        from pcg_plugin.problems.science_birds.scoring.baseline import format_comparison

        return None if self.comparison is None else list(format_comparison(self.comparison))
