"""pytest collectors and items: a submission -> (one collector per model, with several) -> one collector per
target -> one item per trial. What a trial does is the problem's ``run_trial``."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Self, cast

import pytest

from pcg_plugin._util.names import is_shown, shown, shown_json
from pcg_plugin.core.records import calls, transcript
from pcg_plugin.core.session import interrupt
from pcg_plugin.core.session.members import Member, only_member
from pcg_plugin.errors import CostCapReached, FolderProblem, InfrastructureError, RunInterrupted, StoreWriteFailed

if TYPE_CHECKING:
    from _pytest.nodes import Node

ITEM_PROPERTY = "pcg_item"  # on every report of an item (setup/call/teardown): who it is, even when it errors
CALLS_PROPERTY = "pcg_calls"  # the trial's call totals (calls paid and replayed, tokens, cost): the progress line
WAITS_PROPERTY = "pcg_waits"  # the trial's model calls tried again, by cause: {cause: [tries, seconds waited]}
IN_FLIGHT_PROPERTY = "pcg_in_flight"  # trials its process had in flight when it reported (core.session.inflight)
IN_FLIGHT_LIMIT_PROPERTY = "pcg_in_flight_limit"  # the trials in flight its process allowed then (fixed or sized)
RECORD_PROPERTY = "pcg_trial"  # the one namespaced user_properties key carrying a record
FOLDER_PROPERTY = "pcg_folder_problem"  # on the report of a folder that should be a submission and is none
NOT_EVALUATED = "not-evaluated"  # the item name of such a folder
ERROR_PROPERTY = "pcg_error"  # a trial that ended in an infrastructure error: pytest shows it as ERROR, not FAILED
NOT_RUN_PROPERTY = "pcg_not_run"  # a trial the run did not run (the spending cap): never a zero, listed as not run
COST_CAP = "cost cap"  # the reason of a trial the spending cap stopped (``--pcg-max-cost``)
INTERRUPTED = "interrupted"  # the reason of a trial Ctrl-C cut short (what it was paid for is stored)
PROBLEM_META = "pcg_problem"  # in a suite: the problem of an item, in its pcg_item and pcg_folder_problem JSON
# a runner that runs the trials elsewhere (--pcg-cluster): ``outcome(nodeid)`` gives a trial's record or error
REMOTE_KEY = pytest.StashKey[Any]()
# the run's spending cap in this process (``llm.budget.Budget``, set by the entry; absent: no cap): ``state()``
# gives its ``text()``, ``cap_usd``, ``spent_usd`` and whether it ``stopped`` the run
SPENDING_KEY = pytest.StashKey[Any]()


def is_run_item(nodeid: str) -> bool:
    """Whether a node id is one of a run's items (``sub::target::trial``, ``sub::model::target::trial``,
    ``sub::not-evaluated``), whose report the run folder is written from, rather than a test of a Python
    module (``tests/test_x.py::test_y[1]``). Under xdist the controller sees node ids only."""
    parts = nodeid.split("::")
    if len(parts) < 2 or parts[0].endswith(".py"):
        return False
    return parts[-1] == NOT_EVALUATED or (len(parts) >= 3 and parts[-1].isdigit())


def item_meta(config: pytest.Config, sub: Any, member: Member | None = None) -> dict[str, Any]:
    """What the controller needs to know about a submission (under xdist it never collects one itself); in a
    suite, also the problem it is evaluated on (``PROBLEM_META``, which the controller takes off again)."""
    from pcg_plugin.core.inputs.zips import evaluated_as, source_of
    from pcg_plugin.core.session.members import suite_of

    member = member or only_member(config)
    meta = member.problem.submission_meta(sub)
    if suite_of(config).is_suite:
        meta[PROBLEM_META] = member.name
    zipped = source_of(sub.path)
    path = evaluated_as(zipped) if zipped is not None else sub.path  # a zip: the folder it would unpack to
    try:
        meta["path"] = shown(path.resolve().relative_to(Path(config.rootpath).resolve()).as_posix())
    except ValueError:
        meta["path"] = shown(path)
    return meta


class NamedAsShown(pytest.Collector):
    """A collector for a folder or file whose name may not be UTF-8: its node name and id are the ``shown`` text
    (``submissions/t\\xe9am::A::1``), so pytest's terminal, xdist and every report carry text; ``path`` keeps the
    bytes. A name that is UTF-8 gets pytest's own name and id, unchanged. Listed before ``pytest.Directory`` or
    ``pytest.File``, whose ``from_parent`` it wraps."""

    @classmethod
    def from_parent(cls, parent: Node, *, path: Path | None = None, **kw: Any) -> Self:
        if path is not None and not is_shown(str(path)) and "nodeid" not in kw:
            kw.setdefault("name", shown(path.name))
            try:
                kw["nodeid"] = shown(path.relative_to(parent.config.rootpath).as_posix())
            except ValueError:
                kw["nodeid"] = shown(path.as_posix())
        # a submission's parent is always a collector (its folder's); pytest types the parameter as one from 9.2 on
        # and as any Node before, and the cast reads the same to both
        return super().from_parent(cast(pytest.Collector, parent), path=path, **kw)


class _HasSubmission(pytest.Collector):
    """A collector that carries its submission and the problem it is evaluated on (its ``Member``; a run of one
    problem: that one)."""

    def __init__(self, *, submission: Any, member: Member | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.submission = submission
        self.member = member or only_member(self.config)


class _SubmissionCollector(_HasSubmission):
    """Shared by folder and file submissions: one child per target, in order; with several models, one child per
    model first (``team_x::<model>::A::3``; the problem's ``model_levels``: in cross-play one per assignment)."""

    def collect(self) -> Iterator[pytest.Collector]:
        settings, sub, member = self.member.settings, self.submission, self.member
        levels = member.problem.model_levels(settings, sub)
        if levels:
            for model in levels:
                yield ModelCollector.from_parent(self, name=model, submission=sub, member=member)
            return
        for target in settings.targets:
            yield TargetCollector.from_parent(self, name=target, submission=sub, member=member)


class ModelCollector(_HasSubmission, pytest.Collector):
    """One model of one submission in a several-model run: its targets, in order."""

    def collect(self) -> Iterator[TargetCollector]:
        for target in self.member.settings.targets:
            yield TargetCollector.from_parent(
                self, name=target, submission=self.submission, model=self.name, member=self.member
            )


class SubmissionDir(NamedAsShown, _SubmissionCollector, pytest.Directory):
    """A submission folder; it is a leaf for collection (its own files are never collected as tests)."""


class SubmissionFile(NamedAsShown, _SubmissionCollector, pytest.File):
    """A submission that is one file (a 2023 prompt)."""


class _Broken(pytest.Collector):
    """A folder (or file) that should be a submission but cannot be evaluated (none found, ambiguous, bad
    manifest, unreadable, ...): one failing item naming it, the reason and the fix; the other submissions still
    run. An item rather than a collection error, so pytest does not stop the whole run."""

    def __init__(self, *, problem: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.problem = shown(problem)

    def collect(self) -> Iterator[pytest.Item]:
        yield FolderProblemItem.from_parent(self, name=NOT_EVALUATED, problem=self.problem)


class BrokenSubmission(NamedAsShown, _Broken, pytest.Directory):
    """A folder that is no evaluable submission."""


class BrokenSubmissionFile(NamedAsShown, _Broken, pytest.File):
    """A file among the submissions that looks like one and is none (a 2023 .txt without ``<OBJECT>``)."""


class FolderProblemItem(pytest.Item):
    """The visible error of a folder that is no submission: it fails, and the controller lists it. In a suite,
    ``on`` names the problem the folder is no submission of (it may be one of the others')."""

    def __init__(self, *, problem: str, on: str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.problem, self.on = problem, on
        self.add_marker(pytest.mark.pcg)
        data = {"folder": shown(self.path.name), "problem": problem}
        if on is not None:
            data[PROBLEM_META] = on
        self.user_properties.append((FOLDER_PROPERTY, json.dumps(data)))

    def runtest(self) -> None:
        raise FolderProblem(self.problem)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path(shown(self.path)), None, f"{shown(self.path.name)}: not evaluated{self._on()}"

    def _on(self) -> str:
        return "" if self.on is None else f" on {self.on}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, FolderProblem):
            folder = shown(self.path.name)
            return (
                f"pytest-pcg: folder '{folder}' is not evaluated{self._on()} (no scores, not ranked): {excinfo.value}"
            )
        return super().repr_failure(excinfo, style=style)


class _SuiteSubmission(pytest.Collector):
    """In a suite, a folder (or file) some problem of the suite takes as a submission: one child per problem,
    named by it (``subs/team::pcgbench/zelda-v0::<instance>::1``), in the suite's order. ``found`` holds, for
    each problem that looked at it, the submission, or the text of why it is none of that problem's (its child is
    then ``<problem>::not-evaluated``, failing for that problem only)."""

    def __init__(self, *, found: list[tuple[Member, Any]], **kw: Any) -> None:
        super().__init__(**kw)
        self.found = found

    def collect(self) -> Iterator[pytest.Collector]:
        for member, sub in self.found:
            if isinstance(sub, str):
                yield ProblemNotEvaluated.from_parent(self, name=member.name, problem=sub, on=member.name)
            else:
                yield ProblemCollector.from_parent(self, name=member.name, submission=sub, member=member)


class SuiteSubmissionDir(NamedAsShown, _SuiteSubmission, pytest.Directory):
    """A submission folder of a suite run."""


class SuiteSubmissionFile(NamedAsShown, _SuiteSubmission, pytest.File):
    """A loose-file submission of a suite run."""


class ProblemCollector(_SubmissionCollector, pytest.Collector):
    """One problem of a suite on one submission: its models or targets, as a run of that problem alone has them."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.extra_keyword_matches.add(f"problem_{self.member.name}")


class ProblemNotEvaluated(pytest.Collector):
    """The submission is none of this problem's (in a suite): one failing ``not-evaluated`` item saying why."""

    def __init__(self, *, problem: str, on: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.problem, self.on = shown(problem), on

    def collect(self) -> Iterator[pytest.Item]:
        yield FolderProblemItem.from_parent(self, name=NOT_EVALUATED, problem=self.problem, on=self.on)


class TargetCollector(_HasSubmission, pytest.Collector):
    """One target of one submission (of one model, in a several-model run): its trials 1..N."""

    def __init__(self, *, model: str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.model = model

    def collect(self) -> Iterator[TrialItem]:
        for trial in range(1, self.member.settings.trials + 1):
            yield TrialItem.from_parent(
                self,
                name=str(trial),
                submission=self.submission,
                target=self.name,
                trial=trial,
                model=self.model,
                member=self.member,
            )


class TrialItem(pytest.Item):
    """One trial of one submission for one target: the problem's ``run_trial``, its record on the report."""

    def __init__(
        self,
        *,
        submission: Any,
        target: str,
        trial: int,
        model: str | None = None,
        member: Member | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.submission, self.target, self.trial, self.model = submission, target, trial, model
        self.member = member or only_member(self.config)
        label = self.problem.target_label
        self.add_marker(pytest.mark.pcg)
        self.add_marker(getattr(pytest.mark, submission.format.replace("-", "_")))
        # -k matches substrings, so a bare "B" hits "submissions"; these exact words select cleanly.
        self.extra_keyword_matches.update({f"{label}_{target}", f"trial_{trial}"})
        meta = item_meta(self.config, submission, self.member)
        meta.update({label: target, "trial": trial})
        if model is not None:  # a several-model run only: one-model items and their reports stay as they were
            self.extra_keyword_matches.update(self.problem.level_keywords(self.member.settings, submission, model))
            meta.update(model=model)
        self.user_properties.append((ITEM_PROPERTY, json.dumps(meta, separators=(",", ":"), sort_keys=True)))

    @property
    def problem(self) -> Any:
        """The problem this trial is of (in a suite, one of several)."""
        return self.member.problem

    @property
    def problem_config(self) -> Any:
        """What the problem's methods are handed as the config: pytest's, or in a suite the member's view of it."""
        return self.member.config

    def setup(self) -> None:
        interrupt.arm(self.config)
        remote = self.config.stash.get(REMOTE_KEY, None)
        if remote is not None:  # the trial ran (or runs) on a thread started ahead or a cluster's actor
            self._outcome = remote.outcome(self.nodeid)
            if self._outcome.failed_in == "setup":
                raise self._outcome.exception()
            return
        self.problem.setup_trial(self.problem_config, self.submission)

    def runtest(self) -> None:
        problem = self.problem
        outcome = getattr(self, "_outcome", None)
        if outcome is not None:
            self._report_outcome(problem, outcome)
            return
        calls.start()
        record, error = None, None
        try:
            record = problem.run_trial(
                self.problem_config, self.submission, self.target, self.trial, self.nodeid, self.model
            )
        except StoreWriteFailed as exc:
            error = f"{type(exc).__name__}: {exc}"
            self._stop_run(exc)
            self._is_error(exc)
            raise
        except CostCapReached as exc:
            error = f"{type(exc).__name__}: {exc}"
            self._not_run(exc)
        except KeyboardInterrupt:  # Ctrl-C in this trial: reported as not finished, then the run stops
            error = "the run was interrupted (Ctrl-C) during this trial"
            interrupt.stop_after_this_item(self.config)
            self._not_finished(RunInterrupted(f"{self.nodeid}: {error}"))
        except BaseException as exc:
            error = f"{type(exc).__name__}: {exc}"
            self._is_error(exc)
            raise
        finally:
            log = calls.take_log()
            self._keep_calls(problem, record, log.calls, error, log.waits)
        self.user_properties.append((RECORD_PROPERTY, shown_json(record.to_json())))
        self.add_report_section("call", "pcg", problem.describe(record))

    def _report_outcome(self, problem: Any, outcome: Any) -> None:
        """A trial that ran elsewhere, reported as if it had run here: the warnings it gave, its calls (a thread of
        this process kept them: ``core.session.inflight``; a cluster's actor does not), then its record or its error."""
        for warning in getattr(outcome, "warnings", ()):
            warnings.warn(warning, stacklevel=1)
        error = outcome.exception() if outcome.failed_in is not None else None
        text = outcome.record if isinstance(outcome.record, str) else None  # a cluster's actor sends the JSON
        record = problem.record_from_json(text) if text is not None else outcome.record
        runner = self.config.stash.get(REMOTE_KEY, None)
        in_flight, limit = getattr(runner, "in_flight", None), getattr(runner, "limit", None)
        if callable(in_flight):
            self.user_properties.append((IN_FLIGHT_PROPERTY, str(in_flight())))
        if callable(limit):
            self.user_properties.append((IN_FLIGHT_LIMIT_PROPERTY, str(limit())))
        made = getattr(outcome, "calls", None)
        made = list(made) if made is not None else None
        if made is not None:
            failed = None if error is None else f"{type(error).__name__}: {error}"
            self._keep_calls(problem, record, made, failed, list(getattr(outcome, "waits", ())))
        if error is not None:
            if isinstance(error, StoreWriteFailed):
                self._stop_run(error)
            if isinstance(error, CostCapReached):
                self._not_run(error)
            if isinstance(error, RunInterrupted):
                self._not_finished(error)
            self._is_error(error)
            raise error
        self.user_properties.append((RECORD_PROPERTY, shown_json(text if text is not None else record.to_json())))
        self.add_report_section("call", "pcg", problem.describe(record))

    def _is_error(self, exc: BaseException) -> None:
        """An infrastructure error is the item's error, not a failure of the submission: the report says so, and
        pytest shows it as ERROR (``plugin.pytest_report_teststatus``), as the trial is reason ``error``."""
        if isinstance(exc, InfrastructureError):
            self.user_properties.append((ERROR_PROPERTY, json.dumps({"error": type(exc).__name__})))

    def _stop_run(self, exc: StoreWriteFailed) -> None:
        """Replies could be paid and lost: no further item runs (xdist: no worker)."""
        self.session.shouldstop = f"pytest-pcg stopped the run: {exc}"

    def _not_run(self, exc: CostCapReached) -> NoReturn:
        """The spending cap refused this trial a call: no further item runs (xdist: no worker), and this trial is
        skipped as not run, never a failure or a zero (the controller lists it; a rerun pays only what is missing)."""
        self.user_properties.append((NOT_RUN_PROPERTY, json.dumps({"reason": COST_CAP, "message": str(exc)})))
        held = self.config.stash.get(SPENDING_KEY, None)
        self.session.shouldstop = f"pytest-pcg {held.state().text() if held is not None else exc}"
        pytest.skip(f"not run ({COST_CAP}): {exc}")

    def _not_finished(self, exc: RunInterrupted) -> NoReturn:
        """Ctrl-C cut this trial short: skipped as not finished, never a failure or a zero (the controller lists
        it; what it was paid for is stored, and a rerun pays only what is missing)."""
        self.user_properties.append((NOT_RUN_PROPERTY, json.dumps({"reason": INTERRUPTED, "message": str(exc)})))
        pytest.skip(f"not finished ({INTERRUPTED}): the answers it had are stored; a rerun finishes it")

    def _keep_calls(
        self, problem: Any, record: Any, made: list[calls.Call], error: str | None, waits: Sequence[calls.Wait] = ()
    ) -> None:
        """The trial's calls: their totals on the report (the progress line) with the calls tried again, by cause
        (the run's summary), its transcript beside the report (``pcg show``, the report's trial page), an errored
        trial's too. A transcript that cannot be written fails the item, unless the trial already failed (its own
        error is the one to see)."""
        self.user_properties.append((CALLS_PROPERTY, json.dumps(calls.Totals.of(made).to_dict())))
        if waits:
            self.user_properties.append((WAITS_PROPERTY, json.dumps(calls.wait_counts(list(waits)))))
        run_dir = self.problem_config.stash.get(transcript.RUN_DIR_KEY, None)
        if run_dir is None:
            return
        try:
            meta = {"name": self.submission.name, "target": self.target, "trial": self.trial, "model": self.model}
            doc = transcript.document(
                self.nodeid,
                meta,
                made,
                error=error,
                summary=problem.describe(record) if record is not None else "",
                reason=getattr(record, "reason", None) if record is not None else None,
                score=problem.trial_score(record) if record is not None else None,
                states=problem.trial_states(record) if record is not None else (),
            )
            transcript.write(run_dir, doc)
        except Exception:
            if error is None:
                raise

    def reportinfo(self) -> tuple[Path, int | None, str]:
        on = f" model {self.model}" if self.model is not None else ""
        label = self.problem.target_label
        where = Path(shown(self.submission.entry))  # the report's location is text
        return where, None, f"{self.submission.name}{on} {label} {self.target} trial {self.trial}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, InfrastructureError):
            return f"infrastructure error in {self.nodeid}: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)  # a bug: keep the traceback


def property_text(properties: Iterable[tuple[str, object]], key: str) -> str | None:
    """The text a report carries under one of our keys (each holds JSON text), if any."""
    return next((value for name, value in properties if name == key and isinstance(value, str)), None)


def record_json(properties: Iterable[tuple[str, object]]) -> str | None:
    """The record a report carries, as JSON, if any."""
    return property_text(properties, RECORD_PROPERTY)
