"""One Science Birds trial: generate (or replay), extract, convert, simulate, render, classify, record."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from pcg_plugin._util.trial_dirs import owned_temp_dir
from pcg_plugin.core.records.rundir import trial_folder
from pcg_plugin.errors import InfrastructureError, OfficialFailure, Reason
from pcg_plugin.problems.science_birds import outputs
from pcg_plugin.problems.science_birds.letters import letter_index
from pcg_plugin.problems.science_birds.records import TrialRecord, top_letter, trial_seed
from pcg_plugin.problems.science_birds.rules.answers import AnswerLog, not_an_answer
from pcg_plugin.problems.science_birds.submissions import Submission
from pcg_plugin.problems.science_birds.worker import WorkerContext


def describe(record: TrialRecord) -> str:
    """One human line per trial (report section; -rA shows it)."""
    if record.reason:
        return f"score 0: {record.reason}: {record.message or ''}".strip()
    return (
        f"sta={_digits(record.sta)} sim={_digits(record.sim)} top={record.top} blocks={record.total_blocks} "
        f"moving={record.moving_blocks}"
    )


def _digits(value: float | None) -> str:
    """Four significant digits (never a 0 for a value that is not: ``.4g``); ``None`` as ``-``."""
    return "-" if value is None else f"{value:.4g}"


def trial_score(record: TrialRecord) -> float:
    """The trial's unweighted score, stability times similarity (the letter's weight multiplies it in the
    official scorer; a missing value is 0, as there)."""
    return float(record.sta or 0.0) * float(record.sim or 0.0)


def trial_states(record: TrialRecord) -> list[dict[str, Any]]:
    """After the last call: the level built (the image that was classified, shown; the stability animation; the
    files), or why none was."""
    links = [
        [label, record.paths[key]]
        for key, label in (
            ("raw", "response"),
            ("code", "code"),
            ("level", "level XML"),
            ("animation", "stability animation"),
        )
        if record.paths.get(key)
    ]
    lines = []
    if record.sta is not None:
        lines.append(
            f"stability {record.sta:.4g}: {record.moving_blocks} of {record.total_blocks} blocks moved "
            "in the 10 s test (red in the animation)"
        )
    if record.sim is not None:
        lines.append(f"similarity to {record.letter}: {record.sim:.4g}; the classifier's top letter: {record.top}")
    # why it scored 0 is the trial's summary (``describe``), said once on its page
    states: list[dict[str, Any]] = [{"title": f"the level for {record.letter}", "lines": lines, "links": links}]
    if record.paths.get("image"):
        states[0]["image"] = record.paths["image"]
    if record.paths.get("animation"):
        states.append(
            {"title": "the stability test replayed (from the run that scored it)", "image": record.paths["animation"]}
        )
    return states


def run_trial(
    sub: Submission, letter: str, trial: int, nodeid: str, ctx: WorkerContext, model: str | None = None
) -> TrialRecord:
    """The whole per-trial pipeline; official failures become a record with a reason, anything else raises.
    ``model`` is the item's model in a several-model run (None: the run's one model)."""
    paths = outputs.trial_paths(sub.name, letter, trial, model)
    paths["animation"] = outputs.animation_rel(paths["image"])
    record = TrialRecord(
        nodeid=nodeid,
        submission=sub.name,
        letter=letter,
        trial=trial,
        format=sub.format,
        seed=trial_seed(sub.name, letter, trial),
        model=model,
    )
    timings: dict[str, float] = {}
    kept: dict[str, str] = {}
    stage = "generate"
    try:
        t = time.perf_counter()
        response, usage, answers = generate(sub, letter, trial, record.seed, ctx, model)
        timings["generate"] = time.perf_counter() - t
        record = replace(record, usage=usage)
        outputs.write_text(
            trial_folder(ctx.run_dir), paths["raw"], response
        )  # kept as returned, as the official runner does
        kept["raw"] = paths["raw"]
        why = not_an_answer(response, answers) if ctx.settings.unmodified_response == "zero" else None
        if why is not None:
            raise OfficialFailure(why, reason=Reason.MODIFIED_RESPONSE)

        from pcg_plugin.problems.science_birds.level import pipeline

        stage, t = "build", time.perf_counter()
        build = pipeline.build_level(response, prefix=ctx.function_prefix)
        timings["build"] = time.perf_counter() - t
        outputs.write_text(trial_folder(ctx.run_dir), paths["code"], build.extracted)
        kept["code"] = paths["code"]
        outputs.write_text(trial_folder(ctx.run_dir), paths["level"], build.xml)
        kept["level"] = paths["level"]

        stage, t = "simulate", time.perf_counter()
        ev = pipeline.evaluate_level(build.level, settings=ctx.physics, record_frames=True)
        stage_times = dict(ev.timings or {})
        timings["simulate"] = stage_times.get("physics", time.perf_counter() - t)
        if "render" in stage_times:
            timings["render"] = stage_times["render"]
        t = time.perf_counter()
        if outputs.write_animation(trial_folder(ctx.run_dir), paths["animation"], build.level, ev.frames, ctx.physics):
            kept["animation"] = paths["animation"]
            timings["animate"] = time.perf_counter() - t
        record = replace(
            record, sta=float(ev.stability), total_blocks=int(ev.total_blocks), moving_blocks=int(ev.moving_blocks)
        )
        if ev.image is None:
            raise OfficialFailure("the level has no blocks, so no image is rendered (sim = 0)", reason=Reason.NO_BLOCKS)
        outputs.write_image(trial_folder(ctx.run_dir), paths["image"], ev.image)
        kept["image"] = paths["image"]

        stage, classifier = "classify", ctx.classifier()  # loaded once per process, outside the stage timing
        t = time.perf_counter()
        result = classifier.classify([ev.image])[0]
        timings["classify"] = time.perf_counter() - t
        probs = tuple(float(p) for p in result.probs)
        if len(probs) != 26:
            raise InfrastructureError(f"classifier returned {len(probs)} probabilities, expected 26")
        embedding = tuple(float(v) for v in result.embedding) if ctx.wants_embedding else None
        record = replace(
            record, probs=probs, embedding=embedding, sim=probs[letter_index(letter)], top=top_letter(probs)
        )
    except OfficialFailure as failure:
        record = replace(record, reason=failure.reason, message=f"{stage}: {failure.message}")
    return replace(record, timings=timings, paths=kept)


def generate(
    sub: Submission, letter: str, trial: int, seed: int, ctx: WorkerContext, model: str | None = None
) -> tuple[str, dict[str, Any], list[str]]:
    """The final response of one trial (stored first, replayed when the store has it), its token usage and every
    answer the model gave in it (a 2023 prompt's response is its one answer).

    ``seed`` is recorded with the trial; sampling seeds of local models derive from the same identity (the
    response store's trial key), and the API seed is the edition's (42 in 2024, none in 2023/2025).
    """
    chat = ctx.trial_chat(sub, letter, trial, seed, model)
    log = AnswerLog(chat.chat)
    try:
        if sub.format == "prompt-2023":
            from pcg_plugin.llm.session import prompt_messages

            assert sub.prompt is not None
            choices = log.chat(prompt_messages(sub.prompt, letter), 1)
            response = choices[0] if choices else ""
        else:
            from pcg_plugin.problems.science_birds.editions import program_limits
            from pcg_plugin.sandbox.run import run_program_trial

            def run() -> str:
                with owned_temp_dir("trial") as work:
                    return run_program_trial(
                        sub.entry,
                        letter=letter,
                        chat=log.chat,
                        limits=program_limits(ctx.settings.edition),
                        workdir=Path(work),
                        team=sub.name,
                        trial=trial,
                        root=sub.path,
                        cwd=sub.run_folder,
                        site_dirs=ctx.site_dirs(sub),
                        model=ctx.key_model(model) if sub.format == "program-2025" else None,
                    )

            response = chat.run_program(run, final_is_result=True)  # a finished trial: as recorded, not run again
            log.answers.extend(chat.reused_answers)  # what the program was answered when it ran
    except BaseException:
        chat.close()  # release an unfinished trial (guard failures were already recorded as failed by the chat)
        raise
    chat.finish(response)
    return response, ctx.usage_of(chat, model), log.answers
