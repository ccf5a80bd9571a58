"""The CI gate for every problem: ``--pcg-baseline`` (a saved baseline, a run's results.json or its run
folder) fails the session, exit 1 with its table, when a submission's score drops by more than the drop test
allows; ``--pcg-save-baseline FILE`` keeps this run's results.json as the next baseline.

The Science Birds semantics (``problems/science_birds/scoring/baseline.py``): ``plain`` fails a drop beyond
``--pcg-max-drop``; ``bootstrap`` fails it only when the current score is also below the baseline's 95 %
bootstrap interval over trials (``core.stats.intervals``, the problem's own scorer); a submission of the baseline that
is missing now fails; improvements and new submissions are listed, never failed. Runs that are not like for like
(``core.results.like_for_like``: another problem, targets, trial counts, model, backend, base URL, temperature, seed
policy
or a setting the problem adds) are refused, exit 4, naming each difference. A failing gate writes the comparison's
page (``core.results.compare_page``) into the run folder and prints its path. A problem that gates itself
(``own_baseline_gate``, Science Birds with its per-letter scores) is left to its own gate, which writes the page too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.core.contract.options import option_value
from pcg_plugin.core.stats import intervals
from pcg_plugin.errors import ResultsError

# (flag, help): each also an ini key (`pcg_baseline = baselines/main.json`)
OPTIONS = (
    ("--pcg-save-baseline", "write this run's scores (with the settings that make them comparable) to FILE"),
    (
        "--pcg-baseline",
        "compare this run's scores with a baseline: a saved baseline FILE, a run's results.json or a "
        "run folder; a drop beyond --pcg-max-drop fails the run",
    ),
    ("--pcg-max-drop", "largest allowed drop of a score against --pcg-baseline (default 0)"),
    (
        "--pcg-drop-test",
        "plain: any drop beyond the max fails; bootstrap: only one also outside the baseline's "
        "95%% interval over trials (default plain)",
    ),
)
METHODS = ("plain", "bootstrap")
FAILING = ("regressed", "missing")
PAGE = "compare.html"  # the page a failing gate writes into the run folder


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("pcg", "pytest-pcg competition evaluation")
    for flag, text in OPTIONS:
        dest = flag.lstrip("-").replace("-", "_")
        group.addoption(flag, dest=dest, default=None, help=text)
        parser.addini(dest, help=text.replace("%%", "%"), default=None)


def _option(config: pytest.Config, dest: str) -> str | None:
    value = option_value(config, dest)
    return str(value).strip() if value not in (None, "") else None


def parse_drop(text: str) -> float:
    """``--pcg-max-drop`` as a number, 0 or more; a ValueError names the option."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"--pcg-max-drop: {text!r} is not a number") from None
    if not value >= 0:  # NaN too
        raise ValueError(f"--pcg-max-drop: {text!r} must be 0 or more (it is the drop allowed)")
    return value


def settings(config: pytest.Config, parse_drop: Callable[[str], Any] = parse_drop) -> dict[str, Any] | None:
    """The gate's options, checked before any item runs (a typo must not surface after an hour-long run).
    ``parse_drop`` reads ``--pcg-max-drop`` (Science Birds keeps it an exact Decimal); it raises ValueError."""
    save, base = _option(config, "pcg_save_baseline"), _option(config, "pcg_baseline")
    drop, method = _option(config, "pcg_max_drop"), _option(config, "pcg_drop_test") or "plain"
    if save is None and base is None:
        if drop is not None or method != "plain":
            raise pytest.UsageError("--pcg-max-drop/--pcg-drop-test need --pcg-baseline FILE")
        return None
    try:
        max_drop = parse_drop(drop if drop is not None else "0")
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if method not in METHODS:
        raise pytest.UsageError(f"--pcg-drop-test: {method!r} is not one of {', '.join(METHODS)}")
    cwd = Path(config.invocation_params.dir)
    if base is not None and not (cwd / base).exists():
        raise pytest.UsageError(
            f"--pcg-baseline: {cwd / base} does not exist (a saved baseline, a results.json or "
            "a run folder; save one with --pcg-save-baseline)"
        )
    return {
        "save": cwd / save if save else None,
        "baseline": cwd / base if base else None,
        "max_drop": max_drop,
        "method": method,
    }


@dataclass(frozen=True)
class Row:
    submission: str
    baseline: float | None
    current: float | None
    allowed: float | None  # the lowest current score that passes
    status: str

    @property
    def delta(self) -> float | None:
        return None if self.baseline is None or self.current is None else self.current - self.baseline


def compare(
    problem: Any,
    base: Mapping[str, Any],
    current: Mapping[str, Any],
    *,
    max_drop: float,
    method: str,
    reps: int = intervals.RESAMPLES,
    seed: int = 0,
) -> list[Row]:
    """One row per submission of either run (pure: the problem re-scores both documents)."""
    b = problem.scores(base, intervals.observed)
    c = problem.scores(current, intervals.observed)
    lower: dict[str, float] = {}
    if method == "bootstrap":
        lower = {
            n: lo
            for n, (lo, _) in intervals.score_intervals(
                lambda pick: problem.scores(base, pick), reps=reps, seed=seed
            ).items()
        }
    rows = []
    for name in list(b) + [n for n in c if n not in b]:
        bv, cv = b.get(name), c.get(name)
        if bv is None:
            rows.append(Row(name, None, cv, None, "new"))
            continue
        if cv is None:
            rows.append(Row(name, bv, None, None, "missing"))
            continue
        allowed = bv - max_drop
        if name in lower:
            allowed = min(allowed, lower[name])
        eps = 1e-12  # float re-scoring of equal trials must not read as a drop
        if cv < bv - max_drop - eps and cv < allowed - eps:
            status = "regressed"
        elif cv < bv - eps:
            status = "within_max_drop" if cv >= bv - max_drop - eps else "within_noise"
        elif cv > bv + eps:
            status = "improved"
        else:
            status = "unchanged"
        rows.append(Row(name, bv, cv, allowed, status))
    return rows


def table(rows: list[Row], method: str, max_drop: float) -> list[str]:
    def num(v: float | None, sign: bool = False) -> str:
        return "-" if v is None else (f"{v:+.4f}" if sign else f"{v:.4f}")

    cells = [("submission", "baseline", "current", "delta", "allowed", "status")]
    cells += [
        (r.submission, num(r.baseline), num(r.current), num(r.delta, True), num(r.allowed), r.status.replace("_", " "))
        for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(6)]
    test = "noise-aware: bootstrap over trials, 95 %" if method == "bootstrap" else "plain"
    lines = [f"pytest-pcg baseline comparison ({test}, max drop {max_drop:g})"]
    lines += [
        "  ".join(
            c.ljust(w) if i in (0, 5) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in cells
    ]
    failed = [r for r in rows if r.status in FAILING]
    improved = [r for r in rows if r.status == "improved"]
    lines.append(f"{len(failed)} regression(s), {len(improved)} improvement(s) -> " + ("FAILED" if failed else "ok"))
    return lines


def load_document(path: Path) -> dict[str, Any]:
    """A baseline for the gate: a saved baseline (a results.json copy), a results.json or a run folder."""
    from pcg_plugin.core.results.runs import read_document, results_path

    return read_document(results_path(path), "baseline ")


class Gate:
    """Saves and/or compares the run's scores once, on the controller; a regression fails the session. A problem
    with its own comparison (Science Birds) subclasses it: ``pytest_pcg_run_finished``, ``failed`` and ``lines``."""

    def __init__(self, *, save: Path | None, baseline: Path | None, max_drop: Any, method: str) -> None:
        self.save, self.baseline, self.max_drop, self.method = save, baseline, max_drop, method
        self.rows: list[Row] | None = None
        self.error: str | None = None
        self.saved: Path | None = None
        self.page: Path | None = None
        self.page_error: str | None = None
        self.finished = False

    def pytest_pcg_run_finished(self, config: pytest.Config, results: dict[str, Any]) -> None:
        from pcg_plugin.core.contract.problem import problem_of
        from pcg_plugin.core.results import like_for_like
        from pcg_plugin.core.results.runs import problem_name, trial_rows

        self.finished = True
        problem = problem_of(config)
        try:
            if self.baseline is not None:
                base = load_document(self.baseline)
                same = problem_name(base) == problem.name
                why = like_for_like.differences(
                    problem,
                    problem_name(base),
                    base,
                    results,
                    trial_rows(problem, base) if same else [],
                    trial_rows(problem, results),
                )
                if why:
                    raise ResultsError("this run is not like for like with the baseline: " + "; ".join(why))
                self.rows = compare(problem, base, results, max_drop=self.max_drop, method=self.method)
            if self.save is not None:
                self.saved = atomic_write(self.save, json.dumps(results, indent=1, ensure_ascii=False) + "\n")
        except (ResultsError, OSError) as exc:
            self.error = str(exc)
        if self.failed():
            self.write_page(config, results)

    def write_page(self, config: pytest.Config, results: Mapping[str, Any]) -> None:
        """The comparison of the baseline's run (A) with this one (B) as a page in this run's folder, linking to
        both runs' trial pages (the baseline's where it is a run folder that kept them)."""
        from pcg_plugin.core.records import transcript
        from pcg_plugin.core.results import compare_page, runs
        from pcg_plugin.core.results.compare import compare as compare_runs

        run = results.get("run")
        run = run if isinstance(run, Mapping) else {}
        run_dir = config.stash.get(transcript.RUN_DIR_KEY, None) or run.get("run_dir") or run.get("out_dir")
        if not run_dir or self.baseline is None:
            return
        try:
            found = compare_runs(self.baseline_run(), runs.load(Path(run_dir)))
            self.page = compare_page.write(Path(run_dir) / PAGE, [found])
        except (ResultsError, OSError, ValueError) as exc:  # a saved baseline file: no run to link to
            self.page_error = f"no comparison page (gate against the baseline's run folder for one): {exc}"

    def baseline_run(self) -> Any:
        """The baseline as a finished run (``core.results.runs.FinishedRun``) for the comparison page."""
        from pcg_plugin.core.results import runs

        return runs.load(self.baseline or Path())

    def failed(self) -> bool:
        """A submission regressed or went missing."""
        return self.rows is not None and any(r.status in FAILING for r in self.rows)

    def lines(self) -> list[str] | None:
        """The comparison as the terminal shows it (None: nothing was compared)."""
        return None if self.rows is None else table(self.rows, self.method, self.max_drop)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.baseline is not None and not self.finished and self.error is None:
            self.error = "the run produced no scores to compare with the baseline (no evaluation items ran)"
        if self.error is not None:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        elif self.failed() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        compared = self.lines()
        if self.error is None and compared is None and self.saved is None:
            return
        terminalreporter.section("pytest-pcg baseline")
        if self.error is not None:
            terminalreporter.write_line(f"baseline error: {self.error}", red=True)
        if compared is not None:
            failed = self.failed()
            terminalreporter.write_line(f"baseline: {self.baseline}")
            for line in compared:
                terminalreporter.write_line(line, red=failed, green=not failed)
        if self.page is not None:
            terminalreporter.write_line(f"what changed, trial by trial: {self.page}", red=True)
        elif self.page_error is not None:
            terminalreporter.write_line(self.page_error)
        if self.saved is not None:
            terminalreporter.write_line(f"baseline saved: {self.saved}")


def configure(config: pytest.Config, problem: Any) -> None:
    """On the controller: the gate for a problem that has no gate of its own."""
    if hasattr(config, "workerinput") or getattr(problem, "own_baseline_gate", False):
        return
    gate = settings(config)
    if gate is not None:
        config.pluginmanager.register(Gate(**gate), "pcg-core-baseline-gate")
