"""pytest entry point (pytest11 `pcg`): hooks only. The problem a run evaluates (``--pcg-problem``) does the
work; the harness in ``pcg_plugin.core`` gives it items, per-process resources, the controller and xdist."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.contract import problem as problems
from pcg_plugin.core.contract.options import option_value
from pcg_plugin.core.contract.problem import PROBLEM_KEY, SETTINGS_KEY, problem_of
from pcg_plugin.core.records.rundir import DEFAULT_OUT, new_run_id
from pcg_plugin.core.records.transcript import RUN_DIR_KEY
from pcg_plugin.core.session.controller import (
    CLUSTER_ACTOR_KEY,
    RUN_KEY,
    SERVICE_KEY,
    STATS_KEY,
    STORED_KEY,
    Controller,
    XdistBridge,
)
from pcg_plugin.core.session.members import SUITE_KEY, Member, Suite
from pcg_plugin.core.session.progress import XdistTotal
from pcg_plugin.errors import SubmissionError


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pcg_plugin import hooks

    pluginmanager.add_hookspecs(hooks)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    """The rootdir chosen again now that every option is known: an option's value is never a test path."""
    from pcg_plugin.core.contract.options import settle_rootdir

    settle_rootdir(early_config, args)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--pcg-problem`` and the options of every installed problem (parsed before a problem is chosen)."""
    group = parser.getgroup("pcg", "pytest-pcg competition evaluation")
    entries = problems.registered()
    text = (
        f"the problem to evaluate (default {problems.DEFAULT_PROBLEM}), or a suite of them in one run: a comma list "
        "and shell-style patterns ('pcgbench/*', 'gameeval/*', all), each problem in its own folder of the run "
        f"folder (installed: {', '.join(entries)})"
    )
    group.addoption("--pcg-problem", dest="pcg_problem", default=None, help=text)
    parser.addini("pcg_problem", help=text, default=None)
    from pcg_plugin.core.inputs import zips

    group.addoption(
        "--pcg-zip-max-mb",
        dest="pcg_zip_max_mb",
        type=float,
        default=None,
        help=f"a submission .zip that unpacks to more than this many MB is refused (default {zips.MAX_TOTAL_MB})",
    )
    group.addoption(
        "--pcg-zip-max-files",
        dest="pcg_zip_max_files",
        type=int,
        default=None,
        help=f"a submission .zip holding more files than this is refused (default {zips.MAX_FILES})",
    )
    from pcg_plugin.sandbox import start as sandbox_start

    group.addoption(
        "--pcg-sandbox-start",
        dest="pcg_sandbox_start",
        choices=sandbox_start.START_METHODS,
        default="fork",
        help="how a participant program's trial starts: 'fork' from one started sandbox process per "
        "worker (default), or 'exec' a new interpreter per trial (about 50 ms more each); the same "
        "limits, folders and results either way",
    )
    from pcg_plugin.core.results import gate

    gate.add_options(parser)
    from pcg_plugin import cluster

    cluster.add_options(group)
    from pcg_plugin.core.session import inflight

    inflight.add_option(group)
    parser.addini(inflight.DEST, "trials each process keeps in flight (as --pcg-in-flight)")
    problems.add_options(parser, entries.values())


def _evaluating(config: pytest.Config) -> bool:
    """Whether the run evaluates: a plugin may say it checks instead (hook ``pytest_pcg_evaluating``: Science
    Birds' ``--pcg-rules``/``--pcg-dry-run``), and then the problem's checks collect their own items."""
    return config.hook.pytest_pcg_evaluating(config=config) is not False


def pytest_configure(config: pytest.Config) -> None:
    from pcg_plugin.sandbox.start import use_start_method

    use_start_method(config.getoption("pcg_sandbox_start", None) or "fork")  # in every process: workers too
    from pcg_plugin.core.session import interrupt

    interrupt.register(config)  # Ctrl-C, in every process: armed once the run's items are known
    spec = config.getoption("pcg_cluster", None)
    if spec and getattr(config, "workerinput", None) is None:
        from pcg_plugin import cluster

        address = cluster.check_usable(config, spec)  # before any service starts: -n beside it is exit 4
    names, is_suite = _chosen(config)
    if is_suite:
        _configure_suite(config, names, spec)
        return
    problem = problems.load(names[0], config)
    config.stash[PROBLEM_KEY] = problem
    for line in ("pcg: a pytest-pcg evaluation item (submission x target x trial)", *problem.markers()):
        config.addinivalue_line("markers", line)
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and RUN_KEY in workerinput:
        run = json.loads(workerinput[RUN_KEY])
        settings = problem.settings_from_dict(run["settings"])
        workers = int(workerinput.get("workercount", 1))
        service = workerinput.get(SERVICE_KEY)
    else:
        settings = problem.configure(config)
        run_id = new_run_id()
        run_dir = settings.out or Path(config.rootpath) / DEFAULT_OUT / run_id
        run = {"id": run_id, "run_dir": str(run_dir), "started": _now(), "settings": settings.to_dict()}
        _check_folders(config, settings, run_dir)
        from pcg_plugin._util.trial_dirs import clean_stale

        run["stale_trial_dirs"] = len(clean_stale())  # left by a run killed mid-trial (kill -9): theirs, not ours
        service = None
        if _evaluating(config):
            run.update(problem.preflight(config, settings, _roots(config)))
            if not config.option.collectonly:
                service = problem.start_services(config, settings, run_dir)
        workers = 1
        from pcg_plugin.core.results import gate

        gate.configure(config, problem)
        controller = Controller(config, run)
        _register_controller(config, controller, run, service, spec)
        if spec:
            from pcg_plugin.cluster.driver import ClusterDriver

            config.pluginmanager.register(ClusterDriver(config, address, spec, service), "pcg-cluster")
            if address.notice:
                controller.notices.append(address.notice)
    config.stash[SETTINGS_KEY] = settings
    config.stash[RUN_DIR_KEY] = Path(run["run_dir"])
    config.stash[SUITE_KEY] = Suite([Member(problem, config, run)])
    _open_spending(config, settings, run)
    problem.start_process(config, settings, run, workers, service)
    _in_flight(config, spec, workers)


def _open_spending(config: pytest.Config, settings: Any, run: dict[str, Any]) -> None:
    """``--pcg-max-cost``'s ledger in every process, opened through an LLM problem's settings
    (``llm.options.RunSettings.open_spending``: the entry imports no llm); none for other settings."""
    from pcg_plugin.core.session.items import SPENDING_KEY

    opener = getattr(settings, "open_spending", None)
    config.stash[SPENDING_KEY] = opener(config, run) if opener else None


def _chosen(config: pytest.Config) -> tuple[tuple[str, ...], bool]:
    """The problems ``--pcg-problem`` names (``core.contract.selection``) and whether they are a suite; an unknown name
    is a
    usage error naming the closest installed ones."""
    from pcg_plugin.core.contract import selection

    spec = str(option_value(config, "pcg_problem") or problems.DEFAULT_PROBLEM)
    if not selection.is_suite(spec):
        return (selection.parts(spec)[0] if selection.parts(spec) else problems.DEFAULT_PROBLEM,), False
    entries = problems.registered()

    def supplied(name: str) -> bool:  # a conftest's own problem (hook pytest_pcg_problem)
        return config.hook.pytest_pcg_problem(config=config, name=name) is not None

    try:
        return selection.select(spec, sorted(entries), accept=supplied), True
    except selection.UnknownProblem as exc:
        raise pytest.UsageError(f"--pcg-problem: {exc}") from None


def _suite_cost(suite: Suite, per_problem: list[tuple[str, int]]) -> str | None:
    """The pre-flight estimate over every problem of a suite, on the model options the problems share: an LLM
    problem's settings make it (``llm.options.RunSettings.suite_cost_line``); other settings have none."""
    line = getattr(suite.members[0].settings, "suite_cost_line", None)
    return line(per_problem) if line is not None else None


def _register_controller(
    config: pytest.Config, controller: Controller, run: dict[str, Any], service: str | None, spec: str | None
) -> None:
    """The controller, its progress line and, under xdist, the bridge that hands every worker the run."""
    config.pluginmanager.register(controller, "pcg-controller")
    evaluating = _evaluating(config)  # a run that checks (--pcg-rules, --pcg-dry-run) pays nothing: no progress
    if evaluating:
        config.pluginmanager.register(controller.progress, "pcg-progress")
    if config.pluginmanager.hasplugin("xdist"):
        from pcg_plugin.core.session.interrupt import Drain

        config.pluginmanager.register(XdistBridge(run, controller, service), "pcg-xdist-bridge")
        config.pluginmanager.register(Drain(config), "pcg-ctrl-c-xdist")
        if evaluating:
            config.pluginmanager.register(XdistTotal(controller.progress), "pcg-progress-xdist")


def _configure_suite(config: pytest.Config, names: tuple[str, ...], cluster_spec: str | None) -> None:
    """A suite: every problem loaded and configured with a config view of its own (``core.session.members``), its run
    folder ``folder_for(name)`` inside the run folder; on xdist workers, rebuilt from the controller's run."""
    from pcg_plugin.core.session.members import MemberConfig, member_run

    if cluster_spec:
        raise pytest.UsageError("--pcg-cluster evaluates one problem per run: give --pcg-problem one name")
    if not _evaluating(config):
        raise pytest.UsageError(
            "--pcg-rules and --pcg-dry-run check one problem's submissions: give --pcg-problem one name"
        )
    workerinput = getattr(config, "workerinput", None)
    config.addinivalue_line("markers", "pcg: a pytest-pcg evaluation item (submission x problem x target x trial)")
    loaded = {name: problems.load(name, config) for name in names}
    for marker in dict.fromkeys(m for p in loaded.values() for m in p.markers()):
        config.addinivalue_line("markers", marker)
    members = [Member(loaded[name], MemberConfig(config)) for name in names]
    suite = Suite(members, is_suite=True)
    services: dict[str, str] = {}
    if workerinput is not None and RUN_KEY in workerinput:
        run = json.loads(workerinput[RUN_KEY])
        by_name = {entry["problem"]: entry["run"] for entry in run["members"]}
        for m in members:
            m.run = by_name[m.name]
            m.keep(m.problem.settings_from_dict(m.run["settings"]))
        workers = int(workerinput.get("workercount", 1))
        services = json.loads(workerinput.get(SERVICE_KEY) or "{}")
    else:
        configured = []
        for m in members:
            try:
                configured.append(m.problem.configure(m.config))
            except pytest.UsageError as exc:
                raise pytest.UsageError(f"{m.name}: {exc}") from None
        run_id = new_run_id()
        first = configured[0]
        run_dir = first.out or Path(config.rootpath) / DEFAULT_OUT / run_id
        run = {"id": run_id, "run_dir": str(run_dir), "started": _now(), "selection": names}
        for m, settings in zip(members, configured, strict=True):
            m.run = member_run(run, m.name, settings)
            m.keep(settings)
        for settings in {str(getattr(s, "store", None)): s for s in configured}.values():
            _check_folders(config, settings, run_dir)
        from pcg_plugin._util.trial_dirs import clean_stale

        run["stale_trial_dirs"] = len(clean_stale())
        from pcg_plugin.core.results import gate

        if gate.settings(config) is not None:
            raise pytest.UsageError(
                "--pcg-baseline and --pcg-save-baseline gate one problem's run: give --pcg-problem one name "
                "(a suite's problems compare one by one with pcg compare)"
            )
        for m in members:
            m.run.update(m.problem.preflight(m.config, m.settings, _roots(config)))
            if not config.option.collectonly:
                service = m.problem.start_services(m.config, m.settings, m.run_dir)
                if service is not None:
                    services[m.name] = service
        run["members"] = [{"problem": m.name, "run": m.run} for m in members]
        workers = 1
        controller = Controller(config, run, suite, _suite_cost)
        _register_controller(config, controller, run, json.dumps(services) if services else None, None)
    config.stash[RUN_DIR_KEY] = Path(run["run_dir"])
    config.stash[SUITE_KEY] = suite
    _open_spending(config, members[0].settings, run)  # one ledger over every problem (they share the model options)
    for m in members:
        m.problem.start_process(m.config, m.settings, m.run, workers, services.get(m.name))
    _in_flight(config, None, workers)


def _in_flight(config: pytest.Config, cluster_spec: str | None, workers: int) -> None:
    """Trials in flight (``core.session.inflight``): started ahead in a process that runs items (``-n 0``, an xdist
    worker), each worker kept that many items ahead by xdist's controller. With no ``--pcg-in-flight`` and a model
    server to wait on, each process sizes its own number (``inflight.sizing``). A bad ``--pcg-in-flight`` is a
    usage error."""
    from pcg_plugin.core.session import inflight

    # an LLM problem's settings know whether the model is a server (llm.options.RunSettings); else one at a time
    default = getattr(config.stash[SUITE_KEY].members[0].settings, "in_flight_default", 1)
    given = inflight.given(config)
    sized = given is None and default > 1
    depth = given if given is not None else default
    workerinput = getattr(config, "workerinput", None)
    if depth <= 1 or config.option.collectonly or (workerinput or {}).get(CLUSTER_ACTOR_KEY):
        return  # a cluster's actor keeps its own trials in flight (cluster.worker)
    from pcg_plugin._util.devices import threads_per_worker

    if workerinput is None:
        from pcg_plugin.cluster import xdist_requested

        if cluster_spec:
            return  # the driver runs no trial
        config.stash[inflight.SIZED_BY] = "harness" if sized else f"--pcg-in-flight {depth}"
        if xdist_requested(config):
            count = config.getoption("numprocesses", None)
            processes = count if isinstance(count, int) and count > 0 else 1
            inflight.say_if_workers_outnumber_cpus(config, processes)
            if config.pluginmanager.hasplugin("xdist"):
                from pcg_plugin.core.session.inflight.xdist import KeepAhead

                # sized: each worker kept as far ahead as its own number says, the first guess until it has said
                config.pluginmanager.register(KeepAhead(depth, sized), "pcg-in-flight-xdist")
            return
    from pcg_plugin.core.session.inflight.ahead import InFlight

    slots = threads_per_worker(workers)
    sizer = None
    if sized:
        from pcg_plugin.core.session.inflight import sizing

        caps = sizing.caps_from_environment(workers)
        sizer, depth = sizing.Sizer(slots, caps), sizing.ceiling(slots, caps, sizing.Measured())
    config.pluginmanager.register(InFlight(config, depth, slots, sizer), "pcg-in-flight")


def _check_folders(config: pytest.Config, settings: Any, run_dir: Path) -> None:
    """The run folder, the response store (written unless ``--pcg-record none``) and the cache can be written:
    a usage error naming each that cannot, before collection and any model call."""
    from pcg_plugin._util.cache_dir import ENV_CACHE_DIR, default_cache_dir
    from pcg_plugin.core.session.writable import check_writable

    folders = [
        ("--pcg-out" if settings.out else f"the run folder (--pcg-out, default <rootdir>/{DEFAULT_OUT}/...)", run_dir),
        (f"the cache ({ENV_CACHE_DIR})", default_cache_dir()),
    ]
    store = getattr(settings, "store", None)  # a problem without a response store has none
    if store is not None and getattr(settings, "record", "once") != "none":
        folders.insert(1, ("--pcg-store", Path(store)))
    problems = check_writable(folders)
    if problems:
        raise pytest.UsageError(
            "; ".join(problems) + ": nothing was run and no model was called; name folders that can be written"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    suite = config.stash.get(SUITE_KEY, None)
    if suite is not None and suite.is_suite:
        for m in suite.members:
            m.problem.stop_services(m.config)
        return
    problem = config.stash.get(PROBLEM_KEY, None)
    if problem is not None:
        problem.stop_services(config)
    from pcg_plugin.core.session.items import SPENDING_KEY

    spending = config.stash.get(SPENDING_KEY, None)
    if spending is not None:  # the ledger closed; the controller's file removed
        spending.finish()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    suite = config.stash.get(SUITE_KEY, None)
    controller = config.pluginmanager.get_plugin("pcg-controller")
    if suite is None or controller is None or not _evaluating(config):
        return None
    if suite.is_suite:
        lines = [f"pcg: a suite of {len(suite.members)} problems, each in its own folder of the run folder"]
        lines += [line for m in suite.members for line in m.problem.header_lines(m.config, m.settings, m.run)]
    else:
        lines = problem_of(config).header_lines(config, suite.members[0].settings, controller.run)
    stale = controller.run.get("stale_trial_dirs")
    if stale:
        lines.append(
            f"pcg: removed {stale} trial folder(s) in {tempfile.gettempdir()} left by runs that ended "
            "without cleaning up (their processes are gone)"
        )
    return lines


def _roots(config: pytest.Config) -> list[Path]:
    root = Path(config.invocation_params.dir)
    return [root / a.split("::")[0] for a in config.args]


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A folder the problem calls a submission becomes one, or a visible error item when it should be one and
    cannot be evaluated; other folders are left to pytest."""
    return _collect(path, parent, folder=True)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    from pcg_plugin.core.inputs import zips

    if zips.is_submission_zip(file_path, _roots(parent.config)):
        return _collect_zip(file_path, parent)
    return _collect(file_path, parent, folder=False)


def _collect(path: Path, parent: pytest.Collector, *, folder: bool) -> pytest.Collector | None:
    """The problem's submission at ``path`` (a folder, or a loose file) as its collector; a SubmissionError as
    the visible error item; None: not a submission."""
    from pcg_plugin.core.session.items import BrokenSubmission, BrokenSubmissionFile

    config = parent.config
    if config.stash[SUITE_KEY].is_suite:
        return _collect_suite(path, parent, folder=folder, roots=_roots(config))
    problem = problem_of(config)
    detect = problem.detect_folder if folder else problem.detect_file
    try:
        sub = detect(path, _roots(config), evaluating=_evaluating(config))
    except SubmissionError as exc:
        broken = BrokenSubmission if folder else BrokenSubmissionFile
        return broken.from_parent(parent, path=path, problem=str(exc))
    if sub is None:
        return None
    collector = _collector_class(config, folder=folder)
    return collector.from_parent(parent, path=path, submission=sub) if collector is not None else None


def _collect_suite(
    path: Path, parent: pytest.Collector, *, folder: bool, roots: list[Path], shown_as: Path | None = None
) -> pytest.Collector | None:
    """In a suite: what each problem makes of ``path`` (its submission, or why it is none of that problem's); None
    when no problem of the suite takes it. A folder no problem takes as a submission, that some leave alone (a
    container of other problems' submissions: a command-line folder of GameEval entries, for the picture game) is
    left to pytest, which looks inside; one every problem refuses is not evaluated on each. ``shown_as``: the path
    the items are named by (a zip's folder)."""
    from pcg_plugin.core.session.items import SuiteSubmissionDir, SuiteSubmissionFile

    found: list[tuple[Member, Any]] = []
    left = False
    for m in parent.config.stash[SUITE_KEY].members:
        detect = m.problem.detect_folder if folder else m.problem.detect_file
        try:
            sub = detect(path, roots, evaluating=True)
        except SubmissionError as exc:
            sub = str(exc)
        if sub is None:
            left = True
        else:
            found.append((m, sub))
    if not found or (left and all(isinstance(sub, str) for _, sub in found)):
        return None
    collector = SuiteSubmissionDir if folder else SuiteSubmissionFile
    return collector.from_parent(parent, path=shown_as or path, found=found)


def _collect_zip(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A submission that arrived as a zip: unpacked once into the cache and detected there like a folder; its
    items are named as the folder it would be (``submissions/team.zip`` -> ``submissions/team::A::1``). A zip
    that is refused, or holds no submission, is ``<file>::not-evaluated``."""
    from pcg_plugin.core.inputs import zips
    from pcg_plugin.core.session.items import BrokenSubmissionFile

    config = parent.config
    suite = config.stash[SUITE_KEY].is_suite
    try:
        folder = zips.unpacked(file_path, zips.ZipLimits.from_config(config))
        if suite:
            found = _collect_suite(
                folder, parent, folder=True, roots=[folder.parent], shown_as=zips.evaluated_as(file_path)
            )
            if found is None:
                raise SubmissionError(f"{file_path}: unpacked to {folder}, which holds no submission")
            return found
        sub = problem_of(config).detect_folder(folder, [folder.parent], evaluating=_evaluating(config))
        if sub is None:
            raise SubmissionError(f"{file_path}: unpacked to {folder}, which holds no submission")
    except SubmissionError as exc:
        message = str(exc)
        message = message if message.startswith(str(file_path)) else f"{file_path}: {message}"
        return BrokenSubmissionFile.from_parent(parent, path=file_path, problem=message)
    collector = _collector_class(config, folder=True)
    return collector.from_parent(parent, path=zips.evaluated_as(file_path), submission=sub) if collector else None


def _collector_class(config: pytest.Config, *, folder: bool) -> type[pytest.Collector] | None:
    """Evaluation items (submission x target x trial), or the problem's checks under --pcg-rules/--pcg-dry-run."""
    if _evaluating(config):
        from pcg_plugin.core.session.items import SubmissionDir, SubmissionFile

        return SubmissionDir if folder else SubmissionFile
    return problem_of(config).checks_collector(folder)


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    """A trial that scored 0 for an official reason passes, shown as ``0``/``ZERO`` rather than ``.``; one that
    ended in an infrastructure error is an error (``E``/``ERROR``, counted with pytest's errors), not a failure
    of the submission."""
    from pcg_plugin.core.session.items import ERROR_PROPERTY, property_text, record_json

    if report.when == "call" and report.failed and property_text(report.user_properties, ERROR_PROPERTY):
        return "error", "E", "ERROR"
    if report.when != "call" or not report.passed:
        return None

    text = record_json(report.user_properties)
    if text is not None and json.loads(text).get("reason") is not None:
        return "zero", "0", ("ZERO", {"yellow": True})
    return None


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(config: pytest.Config, report: Any) -> Any:
    """A report crosses to the xdist controller as text: a path or message in it whose name is not UTF-8 is
    ``shown`` escaped (execnet takes only UTF-8), so one such folder never stops the workers."""
    from pcg_plugin._util.names import shown_all

    data = yield
    return shown_all(data) if data is not None else None


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        from pcg_plugin.core.records import calls

        workeroutput[STORED_KEY] = calls.stored()
        suite = session.config.stash.get(SUITE_KEY, None)
        if suite is not None and suite.is_suite:
            from pcg_plugin.core.session.suite_run import MEMBERS_STATS

            facts = {m.name: m.problem.process_facts(m.config) for m in suite.members}
            workeroutput[STATS_KEY] = json.dumps({MEMBERS_STATS: facts})
            return
        problem = session.config.stash.get(PROBLEM_KEY, None)
        workeroutput[STATS_KEY] = json.dumps(problem.process_facts(session.config) if problem else {})
