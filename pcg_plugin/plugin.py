"""pytest entry point (pytest11 `pcg`): hooks only; logic lives in the pure modules."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin import collect, settings as settings_mod
from pcg_plugin.settings import SETTINGS_KEY, Settings

RUN_KEY = "pcg_run"  # workerinput key: the controller's run id, run folder and settings
SERVICE_KEY = "pcg_classify_service"  # workerinput key: the controller's classification service (ServiceInfo JSON)
SERVICE_HANDLE = pytest.StashKey[Any]()
STATS_KEY = "pcg_worker"  # workeroutput key: per-worker facts (load times, cache hits)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pcg_plugin import hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    settings_mod.add_options(parser)


def _evaluating(config: pytest.Config) -> bool:
    """Rule checks and dry runs (pcg_rules plugin) collect their own items instead of evaluations."""
    return not (settings_mod.flag(config, "pcg_rules") or settings_mod.flag(config, "pcg_dry_run"))


def pytest_configure(config: pytest.Config) -> None:
    from pcg_plugin.worker import CONTEXT_KEY, WorkerContext

    for line in ("pcg: a pytest-pcg evaluation item (submission x letter x trial)",
                 "program_2024: a 2024 TrialLoop program trial", "program_2025: a 2025 TrialLoop program trial",
                 "prompt_2023: a 2023 prompt-file trial",
                 "pcg_rules: a participant rule check or dry run (--pcg-rules, --pcg-dry-run)"):  # fmt: skip
        config.addinivalue_line("markers", line)
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and RUN_KEY in workerinput:
        run = json.loads(workerinput[RUN_KEY])
        settings = Settings.from_dict(run["settings"])
        run_dir = Path(run["run_dir"])
        workers = int(workerinput.get("workercount", 1))
        service = workerinput.get(SERVICE_KEY)
    else:
        from pcg_plugin.outputs import new_run_id

        settings = settings_mod.from_config(config)
        run_id = new_run_id()
        run_dir = settings.out or Path(config.rootpath) / settings_mod.DEFAULT_OUT / run_id
        run = {"id": run_id, "run_dir": str(run_dir), "started": _now(), "settings": settings.to_dict()}
        if _evaluating(config):
            run["folders"], run["environments"] = _preflight(config, settings)
        workers, service = 1, _start_classify_service(config, settings, run_dir)
        config.pluginmanager.register(Controller(config, run), "pcg-controller")
        if config.pluginmanager.hasplugin("xdist"):
            controller = config.pluginmanager.get_plugin("pcg-controller")
            config.pluginmanager.register(XdistBridge(run, controller, service), "pcg-xdist-bridge")
    config.stash[SETTINGS_KEY] = settings
    config.stash[CONTEXT_KEY] = WorkerContext(settings, run_dir, workers=workers, classify_service=service,
                                              environments=run.get("environments", {}))  # fmt: skip


def _start_classify_service(config: pytest.Config, settings: Settings, run_dir: Path) -> str | None:
    """Controller: the run's one classification service when the mode resolves to ``service`` (a GPU, or
    ``--pcg-classify-mode service``); workers get it through workerinput, ``pytest_unconfigure`` stops it."""
    if not _evaluating(config) or config.option.collectonly:
        return None
    from pcg_plugin import classify as cs

    if cs.resolve_mode(settings.classify_mode, settings.device) != "service":  # type: ignore[arg-type]
        return None
    handle = cs.start_service(model=settings.classifier, device=settings.device, run_dir=run_dir, export_env=False)
    config.stash[SERVICE_HANDLE] = handle
    return handle.info.to_env()


def pytest_unconfigure(config: pytest.Config) -> None:
    handle = config.stash.get(SERVICE_HANDLE, None)
    if handle is not None:
        handle.stop()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _preflight(config: pytest.Config, settings: Settings) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Controller, before collection and any model call: every folder given as a pre-flight row, and each
    program's requirements prepared (installed into its cached environment, or checked) for the workers."""
    from pcg_plugin import environments, preflight

    rows, envs = [], {}
    for path in preflight.targets(_roots(config)):
        sub, problem = preflight.detect(path)
        display = preflight.display_name(path, Path(config.invocation_params.dir))
        verdict = preflight.rule_verdict(sub) if sub is not None else ""
        requirements, problems = "", []
        if sub is not None and sub.format != "prompt-2023":
            env = environments.prepare(sub.path, sub.entry, sub.import_paths, mode=settings.requirements)
            envs[sub.name] = {"site_dir": str(env.site_dir) if env.site_dir else None, "problems": env.problems}
            requirements, problems = env.summary(sub.path), env.problems
        rows.append(preflight.row_for(path, sub, problem, display=display, rules=verdict, requirements=requirements,
                                      problems=problems).to_dict())  # fmt: skip
    return rows, envs


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    from pcg_plugin.report_terminal import header_lines

    settings = config.stash.get(SETTINGS_KEY, None)
    controller = config.pluginmanager.get_plugin("pcg-controller")
    if settings is None or controller is None or not _evaluating(config):
        return None
    lines = header_lines(settings, controller.run["run_dir"])
    if any(r["format"].startswith("program") for r in controller.run.get("folders", [])):
        lines.append(f"pcg: requirements {settings.requirements}; the official packages chatgpt4pcg/llms4pcg are "
                     "served by the harness's stand-ins, never installed")  # fmt: skip
    return lines


def _roots(config: pytest.Config) -> list[Path]:
    root = Path(config.invocation_params.dir)
    return [root / a.split("::")[0] for a in config.args]


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A folder that must hold a submission (``collect.folder_role``) becomes one, or a visible error item;
    containers and foreign folders are left to pytest, except that a manifest anywhere makes a submission."""
    from pcg_plugin.item import BrokenSubmission

    evaluating, role = _evaluating(parent.config), None
    try:
        role = collect.folder_role(path, _roots(parent.config), require_placeholder=evaluating)
        sub = collect.detect_folder(path, manifest_only=role != "submission", require_placeholder=evaluating)
        if sub is None and role == "submission":
            raise collect.SubmissionError(collect.not_a_submission(path))
    except collect.SubmissionError as exc:
        return BrokenSubmission.from_parent(parent, path=path, problem=str(exc))
    except OSError as exc:
        if role == "submission":  # a team folder we cannot read is reported, never dropped
            return BrokenSubmission.from_parent(parent, path=path, problem=f"{path}: cannot be read ({exc})")
        return None  # a sibling folder that vanished or cannot be read is nobody's submission
    if sub is None:
        return None
    return _collector_class(parent.config, folder=True).from_parent(parent, path=path, submission=sub)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if not collect.is_prompt_name(file_path):
        return None
    try:
        if not collect.prompt_file_allowed(file_path, _roots(parent.config)):
            return None
        sub = collect.detect_prompt_file(file_path, require_placeholder=_evaluating(parent.config))
    except OSError:
        return None
    if sub is None:
        from pcg_plugin.item import BrokenPromptFile

        problem = collect.not_a_prompt(file_path)
        return BrokenPromptFile.from_parent(parent, path=file_path, problem=problem)
    return _collector_class(parent.config, folder=False).from_parent(parent, path=file_path, submission=sub)


def _collector_class(config: pytest.Config, *, folder: bool) -> Any:
    """Evaluation items (submission x letter x trial), or rule/dry-run items under --pcg-rules/--pcg-dry-run."""
    if _evaluating(config):
        from pcg_plugin.item import PromptFile, SubmissionDir

        return SubmissionDir if folder else PromptFile
    from pcg_plugin.rules_items import RulesDir, RulesFile

    return RulesDir if folder else RulesFile


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    """A trial that scored 0 for an official reason passes, shown as ``0``/``ZERO`` rather than ``.``."""
    if report.when != "call" or not report.passed:
        return None
    from pcg_plugin.records import from_properties

    record = from_properties(report.user_properties)
    if record is not None and record.reason is not None:
        return "zero", "0", ("ZERO", {"yellow": True})
    return None


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        from pcg_plugin.worker import CONTEXT_KEY

        ctx = session.config.stash.get(CONTEXT_KEY, None)
        workeroutput[STATS_KEY] = json.dumps({"stats": ctx.stats, "facts": ctx.facts()} if ctx else {})


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
    """Collects records from reports (the one aggregation path for -n 0/2/auto) and finishes the run."""

    def __init__(self, config: pytest.Config, run: dict[str, Any]) -> None:
        from pcg_plugin.aggregate import Collected

        self.config, self.run = config, run
        self.collected = Collected()
        self.worker_stats: dict[str, dict[str, Any]] = {}
        self.results: dict[str, Any] | None = None
        self.report_path: Path | None = None
        self.finish_error: str | None = None
        self._preflight_done = False

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """The pre-flight table, after the header and before collection, at every verbosity (``-q`` too)."""
        from pcg_plugin.preflight import FolderRow, table

        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or not self.run.get("folders"):
            return  # nothing of ours here (the project's own tests, a plain pytest run): say nothing
        for line in table([FolderRow(**row) for row in self.run["folders"]]):
            reporter.write_line(line)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.preflight([item.nodeid for item in session.items])

    def preflight(self, nodeids: list[str]) -> None:
        """Before a run that pays a model: what it will cost (printed once; under xdist per the first worker)."""
        if self._preflight_done:
            return
        self._preflight_done = True
        from pcg_plugin.report_terminal import preflight_line

        line = preflight_line(self.config.stash[SETTINGS_KEY], nodeids)
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if line and reporter is not None:
            reporter.write_line(line, yellow=True)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        from pcg_plugin.item import ITEM_PROPERTY
        from pcg_plugin.records import from_properties

        meta = next((json.loads(v) for k, v in report.user_properties if k == ITEM_PROPERTY), None)
        if meta is None:
            self._folder_problem(report)
            return
        self.collected.add_item(report.nodeid, meta)
        record = from_properties(report.user_properties)
        if record is not None:
            self.collected.add_record(record)
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1:]
            self.collected.add_error(report.nodeid, f"{report.when}: {message}")

    def _folder_problem(self, report: pytest.TestReport) -> None:
        from pcg_plugin.item import FOLDER_PROPERTY

        problem = next((json.loads(v) for k, v in report.user_properties if k == FOLDER_PROPERTY), None)
        if problem is not None and report.when == "call":
            self.collected.add_folder_problem(report.nodeid, problem["problem"])

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        name = getattr(node, "gateway", None) and node.gateway.id or "worker"
        output = getattr(node, "workeroutput", {}) or {}
        stats = json.loads(output.get(STATS_KEY, "{}"))
        if error:
            stats["error"] = str(error)
        self.worker_stats[str(name)] = stats

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.collected.empty:
            return
        from pcg_plugin.outputs import finish_run

        try:
            self.results, self.report_path = finish_run(self.config, self.run, self.collected, self.worker_stats)
        except Exception as exc:  # noqa: BLE001 - a scoring failure must not hide the test outcomes
            self.finish_error = f"{type(exc).__name__}: {exc}"
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
            return
        self.config.hook.pytest_pcg_run_finished(config=self.config, results=self.results)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from pcg_plugin.report_terminal import summary_lines

        if self.results is None and self.finish_error is None:
            return
        terminalreporter.section("pytest-pcg leaderboard")
        for line in summary_lines(self.results, self.run["run_dir"], self.report_path, self.finish_error):
            terminalreporter.write_line(line)
