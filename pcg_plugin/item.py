"""pytest collectors and items: a submission folder -> one collector per letter -> one item per trial."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin import outputs
from pcg_plugin.collect import Submission
from pcg_plugin.errors import EnvironmentProblem, FolderProblem, InfrastructureError, OfficialFailure, Reason
from pcg_plugin.letters import letter_index
from pcg_plugin.records import PROPERTY, TrialRecord, top_letter, trial_seed
from pcg_plugin.settings import SETTINGS_KEY
from pcg_plugin.worker import WorkerContext, worker_context

ITEM_PROPERTY = "pcg_item"  # on every report of an item (setup/call/teardown): who it is, even when it errors


def submission_meta(sub: Submission, rootdir: Path) -> dict[str, Any]:
    """What the controller needs to know about a submission (under xdist it never collects one itself)."""
    try:
        path = sub.path.resolve().relative_to(rootdir.resolve()).as_posix()
    except ValueError:
        path = str(sub.path)
    return {"name": sub.name, "format": sub.format, "team": sub.team, "path": path,
            "prompt_length": sub.prompt_length, "files_hash": sub.files_hash}  # fmt: skip


class _HasSubmission:
    """A collector that carries its Submission."""

    def __init__(self, *, submission: Submission, **kw: Any) -> None:
        super().__init__(**kw)
        self.submission = submission


class _SubmissionCollector(_HasSubmission):
    """Shared by the folder and the loose-prompt-file collectors: one child per letter, in order; with several
    models (2025), one child per model first (``team_x::<model>::A::3``)."""

    def collect(self) -> Iterator[pytest.Collector]:
        settings = self.config.stash[SETTINGS_KEY]  # type: ignore[attr-defined]
        if settings.multi_model:
            for model in settings.models:
                yield ModelCollector.from_parent(self, name=model, submission=self.submission)  # type: ignore[arg-type]
            return
        for letter in settings.letters:
            yield LetterCollector.from_parent(self, name=letter, submission=self.submission)  # type: ignore[arg-type]


class ModelCollector(_HasSubmission, pytest.Collector):
    """One model of one submission in a several-model run: its letters, in order."""

    def collect(self) -> Iterator[LetterCollector]:
        for letter in self.config.stash[SETTINGS_KEY].letters:
            yield LetterCollector.from_parent(self, name=letter, submission=self.submission, model=self.name)


class SubmissionDir(_SubmissionCollector, pytest.Directory):
    """A submission folder; it is a leaf for collection (its own files are never collected as tests)."""


FOLDER_PROPERTY = "pcg_folder_problem"  # on the report of a folder that should be a submission and is none


class _Broken:
    """A folder (or loose .txt) that should be a submission but cannot be evaluated (none found, ambiguous, bad
    manifest, unreadable, no placeholder): one failing item naming it, the reason and the fix; the other
    submissions still run. An item rather than a collection error, so pytest does not stop the whole run."""

    def __init__(self, *, problem: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.problem = problem

    def collect(self) -> Iterator[pytest.Item]:
        yield FolderProblemItem.from_parent(self, name="not-evaluated", problem=self.problem)  # type: ignore[arg-type]


class BrokenSubmission(_Broken, pytest.Directory):
    """A folder that is no evaluable submission."""


class BrokenPromptFile(_Broken, pytest.File):
    """A loose .txt among the submissions that is no 2023 prompt (no ``<OBJECT>``)."""


class FolderProblemItem(pytest.Item):
    """The visible error of a folder that is no submission: it fails, and the controller lists it."""

    def __init__(self, *, problem: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.problem = problem
        self.add_marker(pytest.mark.pcg)
        self.user_properties.append((FOLDER_PROPERTY, json.dumps({"folder": self.path.name, "problem": problem})))

    def runtest(self) -> None:
        raise FolderProblem(self.problem)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.path.name}: not evaluated"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, FolderProblem):
            return f"pytest-pcg: folder {self.path.name!r} is not evaluated (no scores, not ranked): {excinfo.value}"
        return super().repr_failure(excinfo, style=style)


class PromptFile(_SubmissionCollector, pytest.File):
    """A loose 2023 prompt file."""


class LetterCollector(_HasSubmission, pytest.Collector):
    """One letter of one submission (of one model, in a several-model run): its trials 1..N."""

    def __init__(self, *, model: str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.model = model

    def collect(self) -> Iterator[TrialItem]:
        for trial in range(1, self.config.stash[SETTINGS_KEY].trials + 1):
            yield TrialItem.from_parent(self, name=str(trial), submission=self.submission, letter=self.name,
                                        trial=trial, model=self.model)  # fmt: skip


class TrialItem(pytest.Item):
    """One trial: generate (or replay), extract, convert, simulate, render, classify, record."""

    def __init__(self, *, submission: Submission, letter: str, trial: int, model: str | None = None,
                 **kw: Any) -> None:  # fmt: skip
        super().__init__(**kw)
        self.submission, self.letter, self.trial, self.model = submission, letter, trial, model
        self.add_marker(pytest.mark.pcg)
        self.add_marker(getattr(pytest.mark, submission.format.replace("-", "_")))
        # -k matches substrings, so a bare "B" hits "submissions"; these exact words select cleanly.
        self.extra_keyword_matches.update({f"letter_{letter}", f"trial_{trial}"})
        meta = submission_meta(submission, Path(self.config.rootpath))
        meta.update(letter=letter, trial=trial)
        if model is not None:  # a several-model run only: one-model items and their reports stay as they were
            self.extra_keyword_matches.add(f"model_{model}")
            meta.update(model=model)
        self.user_properties.append((ITEM_PROPERTY, json.dumps(meta, separators=(",", ":"), sort_keys=True)))

    def setup(self) -> None:
        """A submission whose requirements cannot be met errors here, before any model call."""
        if self.submission.format == "prompt-2023":
            return
        try:
            worker_context(self.config).site_dirs(self.submission)
            return
        except EnvironmentProblem as exc:
            problem = str(exc)
        pytest.fail(f"requirements of {self.submission.name} cannot be met, so its trials were not run (no model "
                    f"call): {problem}", pytrace=False)  # fmt: skip

    def runtest(self) -> None:
        ctx = worker_context(self.config)
        # the model only where there is a model level: a one-model item calls run_trial exactly as before
        extra = {"model": self.model} if self.model is not None else {}
        record = run_trial(self.submission, self.letter, self.trial, self.nodeid, ctx, **extra)
        self.user_properties.append((PROPERTY, record.to_json()))
        self.add_report_section("call", "pcg", describe(record))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        on = f" model {self.model}" if self.model is not None else ""
        return self.submission.entry, None, f"{self.submission.name}{on} letter {self.letter} trial {self.trial}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, InfrastructureError):
            return f"infrastructure error in {self.nodeid}: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)  # a bug: keep the traceback


def describe(record: TrialRecord) -> str:
    """One human line per trial (report section; -rA shows it)."""
    if record.reason:
        return f"score 0: {record.reason}: {record.message or ''}".strip()
    return (f"sta={record.sta} sim={record.sim} top={record.top} blocks={record.total_blocks} "
            f"moving={record.moving_blocks}")  # fmt: skip


def run_trial(
    sub: Submission, letter: str, trial: int, nodeid: str, ctx: WorkerContext, model: str | None = None
) -> TrialRecord:
    """The whole per-trial pipeline; official failures become a record with a reason, anything else raises.
    ``model`` is the item's model in a several-model run (None: the run's one model)."""
    paths = outputs.trial_paths(sub.name, letter, trial, model)
    record = TrialRecord(nodeid=nodeid, submission=sub.name, letter=letter, trial=trial, format=sub.format,
                         seed=trial_seed(sub.name, letter, trial), model=model)  # fmt: skip
    timings: dict[str, float] = {}
    kept: dict[str, str] = {}
    stage = "generate"
    try:
        t = time.perf_counter()
        response, usage = generate(sub, letter, trial, record.seed, ctx, model)
        timings["generate"] = time.perf_counter() - t
        record = replace(record, usage=usage)
        outputs.write_text(ctx.run_dir, paths["raw"], response)
        kept["raw"] = paths["raw"]

        from pcg_plugin import pipeline

        stage, t = "build", time.perf_counter()
        build = pipeline.build_level(response, prefix=ctx.function_prefix)
        timings["build"] = time.perf_counter() - t
        outputs.write_text(ctx.run_dir, paths["code"], build.extracted)
        kept["code"] = paths["code"]
        outputs.write_text(ctx.run_dir, paths["level"], build.xml)
        kept["level"] = paths["level"]

        stage, t = "simulate", time.perf_counter()
        ev = pipeline.evaluate_level(build.level, settings=ctx.physics)
        stage_times = dict(ev.timings or {})
        timings["simulate"] = stage_times.get("physics", time.perf_counter() - t)
        if "render" in stage_times:
            timings["render"] = stage_times["render"]
        record = replace(record, sta=float(ev.stability), total_blocks=int(ev.total_blocks),
                         moving_blocks=int(ev.moving_blocks))  # fmt: skip
        if ev.image is None:
            raise OfficialFailure("the level has no blocks, so no image is rendered (sim = 0)", reason=Reason.NO_BLOCKS)
        outputs.write_image(ctx.run_dir, paths["image"], ev.image)
        kept["image"] = paths["image"]

        stage, classifier = "classify", ctx.classifier()  # loaded once per process, outside the stage timing
        t = time.perf_counter()
        result = classifier.classify([ev.image])[0]
        timings["classify"] = time.perf_counter() - t
        probs = tuple(float(p) for p in result.probs)
        if len(probs) != 26:
            raise InfrastructureError(f"classifier returned {len(probs)} probabilities, expected 26")
        embedding = tuple(float(v) for v in result.embedding) if ctx.wants_embedding else None
        record = replace(record, probs=probs, embedding=embedding, sim=probs[letter_index(letter)],
                         top=top_letter(probs))  # fmt: skip
    except OfficialFailure as failure:
        record = replace(record, reason=failure.reason, message=f"{stage}: {failure.message}")
    return replace(record, timings=timings, paths=kept)


def generate(
    sub: Submission, letter: str, trial: int, seed: int, ctx: WorkerContext, model: str | None = None
) -> tuple[str, dict[str, Any]]:
    """The final response of one trial (stored first, replayed when the store has it) and its token usage.

    ``seed`` is recorded with the trial; sampling seeds of local models derive from the same identity (the
    response store's trial key), and the API seed is the edition's (42 in 2024, none in 2023/2025).
    """
    chat = ctx.trial_chat(sub, letter, trial, seed, model)
    try:
        if sub.format == "prompt-2023":
            from pcg_plugin.llm.session import prompt_messages

            assert sub.prompt is not None
            choices = chat.chat(prompt_messages(sub.prompt, letter), 1)
            response = choices[0] if choices else ""
        else:
            from pcg_plugin.sandbox import run_program_trial

            with tempfile.TemporaryDirectory(prefix="pcg-trial-") as work:
                response = run_program_trial(sub.entry, letter=letter, chat=chat.chat, edition=ctx.settings.edition,
                                             workdir=Path(work), team=sub.name, trial=trial, root=sub.path,
                                             cwd=sub.run_folder, site_dirs=ctx.site_dirs(sub),
                                             model=ctx.key_model(model) if sub.format == "program-2025" else None)  # fmt: skip
    except BaseException:
        chat.close()  # release an unfinished trial (guard failures were already recorded as failed by the chat)
        raise
    chat.finish(response)
    return response, ctx.usage_of(chat, model)
