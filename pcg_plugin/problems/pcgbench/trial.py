"""One PCG Benchmark trial: ask the model (store first, replay on a rerun), read the content (the kind's
`parse`: for grids the last fenced block), evaluate.

A prompt file is one user message, every placeholder replaced for the instance (`prompt.render_prompt`); a
TrialLoop program runs in the sandbox with `run(ctx, task)`, `task` the instance as JSON (`prompt.task_json`),
and its return value is the response. The raw response is kept at `<submission>/raw/<instance>/<n>.txt` in the
run folder.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.trial_dirs import owned_temp_dir
from pcg_plugin.core.records.rundir import trial_folder
from pcg_plugin.errors import OfficialFailure
from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item, shown_info
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, reason_code
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.instances import Instance
from pcg_plugin.problems.pcgbench.prompt import render_prompt, task_json
from pcg_plugin.problems.pcgbench.records import BenchRecord
from pcg_plugin.problems.pcgbench.submission import PROMPT, BenchSubmission
from pcg_plugin.problems.pcgbench.worker import BenchContext


def response_path(submission: str, instance: str, trial: int, model: str | None = None) -> str:
    """Where a trial's raw response is kept; with several models, under the model's own folder."""
    if model is None:
        return f"{submission}/raw/{instance}/{trial}.txt"
    return f"{submission}/raw/{model_folder(model)}/{instance}/{trial}.txt"


def model_folder(model: str) -> str:
    """A model entry as one folder name (``openai/gpt-4o`` -> ``openai_gpt-4o``)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", model)


def judge(problem: BenchProblem, record: BenchRecord, response: str) -> BenchRecord:
    """The record of a response: the content it holds and the benchmark's scores, or a zero with a named reason."""
    content, problem_text = problem.content.parse(response)
    if problem_text is not None:
        return replace(record, reason=reason_code(problem_text), message=problem_text)
    ev = evaluate_item(problem, content, record.control)
    if not ev["valid"]:
        return replace(record, reason=reason_code(ev["reason"]), message=ev["reason"])
    return replace(
        record,
        content=content,
        info=shown_info(ev["info"]),
        quality=ev["quality"],
        controllability=ev["controllability"],
    )


def run_trial(
    sub: BenchSubmission, instance: Instance, trial: int, nodeid: str, ctx: BenchContext, model: str | None = None
) -> BenchRecord:
    """The whole trial (``model``: its model level in a several-model run, else None); official failures (a
    program's error, a guard) are a zero with a reason, anything else raises (the item errors and the trial is
    reported missing)."""
    record = BenchRecord(
        nodeid=nodeid,
        submission=sub.name,
        instance=instance.id,
        control=instance.control,
        trial=trial,
        format=sub.format,
        model=model,
    )
    t = time.perf_counter()
    try:
        response, usage = generate(sub, instance, trial, ctx, model)
    except OfficialFailure as failure:
        return replace(
            record,
            reason=str(failure.reason),
            message=f"generate: {failure.message}",
            timings={"generate": time.perf_counter() - t},
        )
    timings = {"generate": time.perf_counter() - t}
    rel = response_path(sub.name, instance.id, trial, model)
    atomic_write(trial_folder(ctx.run_dir) / rel, response, newline="")
    t = time.perf_counter()
    record = judge(get_problem(ctx.settings.problem), replace(record, response=rel, usage=usage), response)
    timings["evaluate"] = time.perf_counter() - t
    return replace(record, timings=timings)


def generate(
    sub: BenchSubmission, instance: Instance, trial: int, ctx: BenchContext, model: str | None = None
) -> tuple[str, dict[str, Any]]:
    """The trial's final response (each model answer stored before use, under its model) and its token usage."""
    problem = get_problem(ctx.settings.problem)
    chat = ctx.trial_chat(sub.name, sub.files_hash, instance.id, trial, model)
    try:
        if sub.format == PROMPT:
            assert sub.prompt is not None
            text = render_prompt(sub.prompt, problem, instance.control)
            choices = chat.chat([{"role": "user", "content": text}], 1)
            response = choices[0] if choices else ""
        else:
            from pcg_plugin.problems.pcgbench.worker import MAX_TIME
            from pcg_plugin.sandbox.run import SandboxLimits, run_program_trial

            def run() -> str:
                with owned_temp_dir("grid-trial") as work:
                    return run_program_trial(
                        sub.entry,
                        letter=task_json(problem, instance.id, instance.control),
                        chat=chat.chat,
                        limits=SandboxLimits.for_max_time(MAX_TIME),
                        workdir=Path(work),
                        team=sub.name,
                        trial=trial,
                        root=sub.path,
                        model=ctx.key_model(model),
                    )

            response = chat.run_program(run, final_is_result=True)  # a finished trial: as recorded, not run again
    except BaseException:
        chat.close()
        raise
    chat.finish(response)
    u = chat.usage
    return response, {
        "prompt_tokens": int(u.get("prompt_tokens", 0)),
        "completion_tokens": int(u.get("completion_tokens", 0)),
        "calls": int(u.get("calls", 0)),
        "replayed_calls": int(u.get("replayed", 0)),
        "paid_calls": int(u.get("paid", 0)),
    }
