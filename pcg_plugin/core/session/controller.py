"""Controller side of a run: records heard from reports (the one aggregation path for -n 0/2/auto), the xdist
bridge that hands workers the run, and the end of the run (the problem scores and writes it)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.contract.problem import SETTINGS_KEY, problem_of
from pcg_plugin.core.records import calls, trials
from pcg_plugin.core.results import runs
from pcg_plugin.core.session import interrupt
from pcg_plugin.core.session.inflight import SIZED_BY
from pcg_plugin.core.session.items import (
    COST_CAP,
    FOLDER_PROPERTY,
    INTERRUPTED,
    ITEM_PROPERTY,
    NOT_EVALUATED,
    NOT_RUN_PROPERTY,
    PROBLEM_META,
    SPENDING_KEY,
    is_run_item,
    property_text,
    record_json,
)
from pcg_plugin.core.session.members import Suite
from pcg_plugin.core.session.progress import Progress, end_partial_line
from pcg_plugin.core.session.run_facts import (
    collapse_repeated_warnings,
    in_flight_doc,
    in_flight_line,
    retries_doc,
    retries_line,
    with_fact_lines,
    with_facts,
)
from pcg_plugin.core.session.suite_run import Part, finish_suite, summary, trials_per_problem

RUN_KEY = "pcg_run"  # workerinput key: the controller's run id, run folder and settings
SERVICE_KEY = "pcg_service"  # workerinput key: what the problem's start_services returned (e.g. a classifier)
STATS_KEY = "pcg_worker"  # workeroutput key: per-worker facts (load times, cache hits)
STORED_KEY = "pcg_stored"  # workeroutput key: the answers a worker stored in this run (``calls.stored``)
CLUSTER_ACTOR_KEY = "pcg_cluster_actor"  # workerinput key: this "worker" is a cluster's trial actor (cluster.worker)


@dataclass
class Collected:
    """What the controller heard from reports: one record per passed item, item metadata, item errors."""

    records: dict[str, Any] = field(default_factory=dict)  # nodeid -> the problem's record
    items: dict[str, dict[str, Any]] = field(default_factory=dict)  # nodeid -> pcg_item metadata
    errors: dict[str, str] = field(default_factory=dict)  # nodeid -> short message
    folder_problems: dict[str, str] = field(default_factory=dict)  # nodeid -> why the folder is not evaluated
    not_run: dict[str, str] = field(default_factory=dict)  # nodeid -> why the run did not run it (the cost cap)

    def add_record(self, record: Any) -> None:
        self.records[record.nodeid] = record

    def add_item(self, nodeid: str, meta: Mapping[str, Any]) -> None:
        self.items.setdefault(nodeid, dict(meta))

    def add_error(self, nodeid: str, message: str) -> None:
        self.errors.setdefault(nodeid, message)

    def add_folder_problem(self, nodeid: str, message: str) -> None:
        self.folder_problems.setdefault(nodeid, message)

    def add_not_run(self, nodeid: str, reason: str) -> None:
        """A trial the run did not run: out of the items a problem scores (never an error, never a zero)."""
        self.items.pop(nodeid, None)
        self.errors.pop(nodeid, None)
        self.not_run.setdefault(nodeid, reason)

    def set_aside(self, submissions: set[str]) -> dict[str, int]:
        """Take the items of ``submissions`` (node id prefixes) out of what the problem scores: a submission with a
        trial not run is scored by no partial count (its missing trials would be zeros). Returns how many of each
        one's trials ran (their answers stay stored: a rerun replays them free)."""
        ran: dict[str, int] = {}
        for nodeid in list(self.items):
            name = nodeid.split("::")[0]
            if name in submissions:
                ran[name] = ran.get(name, 0) + 1
                self.items.pop(nodeid)
                self.records.pop(nodeid, None)
                self.errors.pop(nodeid, None)
        return {name: ran.get(name, 0) for name in sorted(submissions)}

    @property
    def empty(self) -> bool:
        return not (self.records or self.items or self.folder_problems or self.not_run)

    def models(self, order: Sequence[str] = ()) -> list[str]:
        """The models that ran (several-model runs only; empty otherwise), in ``order`` then by name."""
        seen = {m["model"] for m in self.items.values() if m.get("model") is not None}
        seen |= {r.model for r in self.records.values() if r.model is not None}
        return [m for m in order if m in seen] + sorted(seen - set(order))

    def for_model(self, model: str) -> Collected:
        """What one model's items reported, as if that model had run alone."""
        items = {n: m for n, m in self.items.items() if m.get("model") == model}
        return Collected(
            records={n: r for n, r in self.records.items() if r.model == model},
            items=items,
            errors={n: e for n, e in self.errors.items() if n in items},
        )


class XdistBridge:
    """Hooks that exist only when pytest-xdist is active (registered only then, the syrupy pattern)."""

    def __init__(self, run: dict[str, Any], controller: Controller, service: str | None = None) -> None:
        self.run, self.controller, self.service = run, controller, service

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[RUN_KEY] = json.dumps(self.run)
        if self.service is not None:
            node.workerinput[SERVICE_KEY] = self.service

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.controller.preflight(ids)


class Controller:
    """Collects records from reports and finishes the run through the problem (in a suite, each problem's
    records through its own problem, into its own folder, then the suite's top results.json and card)."""

    def __init__(
        self,
        config: pytest.Config,
        run: dict[str, Any],
        suite: Suite | None = None,
        suite_cost: Callable[[Suite, list[tuple[str, int]]], str | None] | None = None,
    ) -> None:
        self.config, self.run = config, run
        self.suite_cost = suite_cost  # a suite's pre-flight cost line (the entry's: llm/ is above the harness)
        self.suite = suite if suite is not None and suite.is_suite else None
        self.parts = {m.name: Part(m, Collected()) for m in self.suite.members} if self.suite else {}
        self.collected = Collected()
        self.worker_stats: dict[str, dict[str, Any]] = {}
        self.stored_by_worker: dict[str, int] = {}  # answers each xdist worker stored in this run
        self.results: dict[str, Any] | None = None
        self.report_path: Path | None = None
        self.finish_error: str | None = None
        self._preflight_done = False
        self.progress = Progress(config)
        self.viewer_error: str | None = None
        self.notices: list[str] = []  # what the harness says of the whole run (an insecure cluster): summary and report
        self.planned: list[str] = []  # the run's items as collected (those a stopped run did not reach: not run)
        self.interrupted = False  # Ctrl-C stopped the run before every trial had reported (``interrupt``)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """The problem's pre-flight lines, after the header and before collection, at every verbosity."""
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        if self.suite is not None:
            lines = [line for m in self.suite.members for line in m.problem.session_lines(m.run)]
        else:
            lines = problem_of(self.config).session_lines(self.run)
        for line in lines:
            reporter.write_line(line)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.preflight([item.nodeid for item in session.items])

    def preflight(self, nodeids: list[str]) -> None:
        """Once collection is known (printed once; under xdist per the first worker): the run folder, when the
        session will write one (it has run items and runs them: never for the project's own tests or --co),
        and before a run that pays a model, what it will cost."""
        if self._preflight_done:
            return
        self._preflight_done = True
        self.planned = [n for n in nodeids if is_run_item(n) and not n.endswith("::" + NOT_EVALUATED)]
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        if not self.config.option.collectonly and any(is_run_item(n) for n in nodeids):
            interrupt.arm(self.config)  # under xdist the controller runs no item: armed here
            end_partial_line(reporter)  # under xdist its "ready: 1/2 workers" is still being rewritten
            reporter.write_line(f"pcg: run folder {self.run['run_dir']}")
        if self.suite is not None:
            per = trials_per_problem(self.suite, nodeids)
            line = self.suite_cost(self.suite, per) if self.suite_cost is not None and any(n for _, n in per) else None
        else:
            line = problem_of(self.config).cost_line(self.config.stash[SETTINGS_KEY], nodeids, self.run)
        if line:
            reporter.write_line(line, yellow=True)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        item = property_text(report.user_properties, ITEM_PROPERTY)
        if item is None:
            self._folder_problem(report)
            return
        meta = json.loads(item)
        collected, problem = self.collected, None
        if PROBLEM_META in meta:  # a suite's item: its problem's records
            part = self.parts[meta.pop(PROBLEM_META)]
            collected, problem = part.collected, part.member.problem
        not_run = property_text(report.user_properties, NOT_RUN_PROPERTY)
        if not_run is not None or report.nodeid in collected.not_run:
            collected.add_not_run(report.nodeid, json.loads(not_run)["reason"] if not_run else COST_CAP)
            return
        collected.add_item(report.nodeid, meta)
        text = record_json(report.user_properties)
        if text is not None:
            collected.add_record((problem or problem_of(self.config)).record_from_json(text))
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            message: str
            if crash is not None:
                message = crash.message
            else:  # a failure worded by its item (``repr_failure``'s text): its last line
                lines = str(report.longrepr).strip().splitlines()
                message = lines[-1] if lines else ""
            collected.add_error(report.nodeid, f"{report.when}: {message}")

    def _folder_problem(self, report: pytest.TestReport) -> None:
        text = property_text(report.user_properties, FOLDER_PROPERTY)
        if text is None or report.when != "call":
            return
        data = json.loads(text)
        if self.suite is None:
            self.collected.add_folder_problem(report.nodeid, data["problem"])
            return
        on = data.get(PROBLEM_META)  # none: a zip refused before any problem saw it, so none of them evaluates it
        for name, part in self.parts.items():
            if on is None or on == name:
                part.collected.add_folder_problem(report.nodeid, data["problem"])

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        name = (getattr(node, "gateway", None) and node.gateway.id) or "worker"
        output = getattr(node, "workeroutput", {}) or {}
        stats = json.loads(output.get(STATS_KEY, "{}"))
        self.stored_by_worker[str(name)] = int(output.get(STORED_KEY, 0) or 0)
        if error:
            stats["error"] = str(error)
        self.worker_stats[str(name)] = stats

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and self.planned:  # a run that evaluates: its model calls' warnings, once
            collapse_repeated_warnings(reporter, Path(self.config.rootpath))
        if self.suite is not None:
            parts = list(self.parts.values())
            capped = self._cost_cap([(p.collected, self._planned_of(p.member.name)) for p in parts])
            for p in parts:
                self._not_finished(p.collected, self._planned_of(p.member.name))
            interrupted = self.interrupted
            self.results = finish_suite(parts, self.run, self.worker_stats, self.progress.by_item, session)
            for p in parts:
                if p.results is not None:
                    p.results = with_facts(p.member.run_dir, p.results, self._facts(p.collected, capped, interrupted))
            if self.results is not None:
                merged = Collected(not_run={n: r for p in parts for n, r in p.collected.not_run.items()})
                self.results = with_facts(
                    Path(self.run["run_dir"]), self.results, self._facts(merged, capped, interrupted)
                )
            if interrupted:
                self.notices.append(self._interrupted_notice())
            return
        capped = self._cost_cap([(self.collected, self.planned)])
        self._not_finished(self.collected, self.planned)
        interrupted = self.interrupted
        if self.collected.empty:
            return
        problem = problem_of(self.config)
        try:
            self.results, self.report_path = problem.finish_run(
                self.config, self.run, self.collected, self.worker_stats
            )
        except Exception as exc:  # noqa: BLE001 - a scoring failure must not hide the test outcomes
            self.finish_error = f"{type(exc).__name__}: {exc}"
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
            return
        if self.results is None:
            return
        run_dir = Path(self.run["run_dir"])
        self.results = with_facts(run_dir, self.results, self._facts(self.collected, capped, interrupted))
        rows = runs.trial_rows(problem, self.results)
        if rows:
            trials.write(run_dir, rows)
        self._add_viewer(problem)
        if interrupted:
            self.notices.append(self._interrupted_notice())
        self._add_notices()
        self.config.hook.pytest_pcg_run_finished(config=self.config, results=self.results)

    def _facts(self, collected: Collected, capped: dict[str, Any] | None, interrupted: bool) -> dict[str, Any]:
        """What the harness adds to a results.json: the spending cap's figures, the trials not run (node id ->
        reason), the interruption, the model calls tried again."""
        facts: dict[str, Any] = {}
        if capped is not None:
            facts["cost_cap"] = dict(capped)
        if capped is not None or interrupted:
            facts["not_run"] = dict(sorted(collected.not_run.items()))
        if interrupted:
            facts["interrupted"] = self._interrupted_facts()
        if self.progress.waits:
            facts["retries"] = retries_doc(self.progress.waits)
        sized_by = self.config.stash.get(SIZED_BY, None)
        if sized_by is not None and self.progress.flights:
            flights = {name: f.doc() for name, f in self.progress.flights.items()}
            facts["in_flight"] = in_flight_doc(sized_by, flights)
        return facts

    def _not_finished(self, collected: Collected, planned: Sequence[str]) -> None:
        """After Ctrl-C, every planned trial that did not report is not run (``interrupted``), and the problem
        scores the trials that finished. A run whose every trial had reported when Ctrl-C came (the workers were
        shutting down) is complete, not interrupted."""
        if not interrupt.pressed(self.config):
            return
        reported = set(collected.items) | set(collected.not_run)
        for nodeid in planned:
            if nodeid not in reported:
                collected.add_not_run(nodeid, INTERRUPTED)
        if INTERRUPTED in collected.not_run.values():
            self.interrupted = True

    def _all_collected(self) -> list[Collected]:
        return [p.collected for p in self.parts.values()] if self.suite is not None else [self.collected]

    def _interrupted_facts(self) -> dict[str, Any]:
        """results.json's ``interrupted``: the trials that finished and those that did not, the answers this run
        paid for (stored: a rerun replays them free), and the command that finishes the run."""
        everything = self._all_collected()
        finished = sum(len(c.items) for c in everything)
        not_finished = sum(1 for c in everything for r in c.not_run.values() if r == INTERRUPTED)
        return {
            "by": "Ctrl-C",
            "trials_finished": finished,
            "trials_not_finished": not_finished,
            "answers_stored": calls.stored() + sum(self.stored_by_worker.values()),
            "rerun": interrupt.rerun_command(self.config, Path(self.run["run_dir"])),
        }

    def _interrupted_notice(self) -> str:
        facts = self._interrupted_facts()
        done, left = facts["trials_finished"], facts["trials_not_finished"]
        return (
            f"INTERRUPTED (Ctrl-C): {done} of {done + left} trials finished and are scored here, {left} did not "
            "(results.json: interrupted, not_run); a trial that did not finish is missing, and a missing trial "
            "counts as the scorer counts it (Science Birds: 0), so the scores are partial. "
            f"Finish the run with: {facts['rerun']}"
        )

    def closing_lines(self) -> list[str]:
        """After Ctrl-C, the terminal's last lines: what the run kept and the command that finishes it."""
        if not self.interrupted:
            return []
        facts = self._interrupted_facts()
        done, left = facts["trials_finished"], facts["trials_not_finished"]
        settings = self.config.stash.get(SETTINGS_KEY, None)
        store = getattr(settings, "store", None)
        record = getattr(settings, "record", None)
        answers = facts["answers_stored"]
        run_dir = self.run["run_dir"]
        if self.results is not None:
            kept = (
                f"{done} of {done + left} trials finished, scored in {run_dir} (results.json and the report, "
                "marked interrupted)"
            )
        elif self.finish_error is not None:
            kept = f"{done} of {done + left} trials finished; scoring them failed ({self.finish_error})"
        else:
            kept = f"no trial of {left} finished (nothing to score)"
        stored = f"the {answers} answer(s) this run was paid for are stored" + (f" in {store}" if store else "")
        if record == "none":
            stored = "no answer was paid for (--pcg-record none)"
        pays = {
            "all": "it pays again for every answer (--pcg-record all): drop that option to replay the stored ones",
            "none": "it pays nothing (--pcg-record none)",
        }.get(str(record), f"it pays only for what is missing: the {answers} stored answer(s) are replayed free")
        return [
            f"pcg: interrupted (Ctrl-C): kept {kept}; {stored}",
            f"pcg: to finish the run ({pays}):",
            f"    {facts['rerun']}",
        ]

    def _planned_of(self, problem: str) -> list[str]:
        """The planned items of one problem of a suite (``sub::problem::...::trial``)."""
        return [n for n in self.planned if n.split("::")[1:2] == [problem]]

    def _cost_cap(self, scored: Sequence[tuple[Collected, Sequence[str]]]) -> dict[str, Any] | None:
        """Under ``--pcg-max-cost``: the ledger's last word (None: no cap). When the cap stopped the run (the item it
        stopped ended the session: exit code 2), every item it did not reach is not run, a submission with a trial
        not run is not scored, and the run says so in its summary and report. ``scored``: each problem's collected
        reports with its planned items (a suite: one pair per problem)."""
        held = self.config.stash.get(SPENDING_KEY, None)
        if held is None:
            return None
        state = held.state()
        unscored: dict[str, str] = {}
        not_run = 0
        if state.stopped:
            for collected, planned in scored:
                reported = set(collected.items) | set(collected.not_run)
                for nodeid in planned:
                    if nodeid not in reported:
                        collected.add_not_run(nodeid, COST_CAP)
                aside = collected.set_aside({n.split("::")[0] for n in collected.not_run})
                unscored.update(
                    {
                        name: f"{COST_CAP}: not scored, {ran} of its trials reported (what was paid is stored: a "
                        "rerun replays it free)"
                        for name, ran in aside.items()
                    }
                )
                not_run += len(collected.not_run)
            self.notices.append(
                f"{state.text()}; {not_run} trials not run and {len(unscored)} submissions "
                "not scored (results.json: not_run, cost_cap.not_scored); rerun with a higher --pcg-max-cost to "
                "run them (stored answers are replayed free)"
            )
        return {
            "cap_usd": state.cap_usd,
            "spent_usd": state.spent_usd,
            "reached": state.stopped,
            "not_scored": unscored if state.stopped else {},
        }

    def _add_viewer(self, problem: Any) -> None:
        """Charts, the trials table and the links to each trial's transcript, in every problem's report."""
        from pcg_plugin.core.views import viewer

        settings = self.config.stash[SETTINGS_KEY]
        try:
            viewer.add_to_report(
                self.report_path,
                Path(self.run["run_dir"]),
                self.collected,
                problem,
                self.progress.by_item,
                list(settings.targets),
            )
        except Exception as exc:  # noqa: BLE001 - the results are written; the report lacks only its viewer
            self.viewer_error = f"{type(exc).__name__}: {exc}"

    def _fact_lines(self) -> list[str]:
        """The harness's plain facts of the run, in the terminal summary and the report: the retries, the trials
        each process kept in flight."""
        results = self.results or {}
        lines = [retries_line(results.get("retries")), in_flight_line(results.get("in_flight"))]
        return [line for line in lines if line]

    def _say_facts(self, terminalreporter: Any) -> None:
        for line in self._fact_lines():
            terminalreporter.write_line(f"pcg: {line}", yellow=True)

    def _add_notices(self) -> None:
        from pcg_plugin._util.atomic import atomic_write
        from pcg_plugin.core.contract.banner import with_notices

        facts = self._fact_lines()
        if (self.notices or facts) and self.report_path is not None and Path(self.report_path).is_file():
            page = Path(self.report_path).read_text(encoding="utf-8")
            atomic_write(Path(self.report_path), with_fact_lines(with_notices(page, self.notices), facts))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for notice in self.notices:
            terminalreporter.write_line(f"pcg: {notice}", red=True, bold=True)
        if self.suite is not None:
            verbose = self.config.getoption("verbose", 0) > 0
            summary(
                self.results, list(self.parts.values()), Path(self.run["run_dir"]), terminalreporter, verbose=verbose
            )
            self._say_facts(terminalreporter)
            return
        if self.results is None and self.finish_error is None:
            return
        terminalreporter.section("pytest-pcg leaderboard")
        lines = problem_of(self.config).summary_lines(
            self.results, self.run["run_dir"], self.report_path, self.finish_error
        )
        for line in lines:
            terminalreporter.write_line(line)
        self._say_facts(terminalreporter)
        if self.viewer_error:
            terminalreporter.write_line(
                f"the report has no charts, trial table or trial links: {self.viewer_error}", red=True
            )
