"""Every example under examples/pcgbench* on every variant: the ones the docs say it serves run (the program with no
program error, every prompt placeholder filled), the others are refused by name, and the docs' table
(docs/problems/pcgbench.md) says exactly what the harness does."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from pcg_plugin.errors import SubmissionError
from pcg_plugin.problems.pcgbench.bench.problem import COMMON_PLACEHOLDERS, KIND_PLACEHOLDERS
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names
from pcg_plugin.problems.pcgbench.instances import instances
from pcg_plugin.problems.pcgbench.prompt import render_prompt, task_json
from pcg_plugin.problems.pcgbench.records import BenchRecord
from pcg_plugin.problems.pcgbench.submission import PROGRAM, detect_folder
from pcg_plugin.problems.pcgbench.trial import judge
from pcg_plugin.sandbox.official_api.programs import find_programs
from pcg_plugin.sandbox.run import run_program_trial

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for root in REPO.glob("examples/pcgbench*") for p in root.iterdir() if p.is_dir())
DOCS = REPO / "docs" / "problems" / "pcgbench.md"


@cache
def served(example: Path) -> frozenset[str]:
    """The variants the harness evaluates `example` on (a submission is built, not refused)."""
    out = set()
    for name in names():
        try:
            if detect_folder(example, [example.parent], get_problem(name).placeholders) is not None:
                out.add(name)
        except SubmissionError as exc:
            assert "does not fill" in str(exc), exc  # the one reason an example may be refused
    return frozenset(out)


def documented() -> dict[str, set[str]]:
    """The docs' table: example path -> the variants it serves (problem families named in the row)."""
    families = sorted({n.rsplit("-", 1)[0].split("-")[0] for n in names()}, key=len, reverse=True)
    table = {}
    for line in DOCS.read_text().splitlines():
        if not line.startswith("| `examples/pcgbench"):
            continue
        paths_cell, serves = line.split("|")[1:3]
        if "every variant" in serves:
            chosen = set(names())
        else:
            words = set(re.findall(r"[a-z]+", serves.split(":", 1)[-1]))
            chosen = {n for n in names() if n.split("-")[0] in words and n.split("-")[0] in families}
        for path in re.findall(r"`(examples/[^`]+)`", paths_cell):
            table[path] = chosen
    return table


def test_the_docs_table_is_what_the_harness_does() -> None:
    table = documented()
    assert sorted(table) == sorted(p.relative_to(REPO).as_posix() for p in EXAMPLES)
    for example in EXAMPLES:
        assert served(example) == table[example.relative_to(REPO).as_posix()], example
    assert len(table["examples/pcgbench/self_check"]) == 46


def content_for(name: str) -> object:
    problem = get_problem(name)
    return problem.examples[0] if problem.examples else problem.content.sample(np.random.default_rng(0))


@pytest.mark.parametrize("example", [p for p in EXAMPLES if (p / "prompt.txt").is_file()], ids=lambda p: p.name)
def test_prompt_examples_fill_every_placeholder_where_they_serve(example: Path) -> None:
    text = (example / "prompt.txt").read_text()
    for name in served(example):
        problem = get_problem(name)
        rendered = render_prompt(text, problem, instances(problem, 1)[0].control)
        left = [p for p in (*COMMON_PLACEHOLDERS, *KIND_PLACEHOLDERS) if p in rendered]
        assert not left, (example.name, name, left)


def program_examples() -> list[tuple[Path, Path]]:
    """(folder, entry) of every example that is a TrialLoop program."""
    return [(p, entry) for p in EXAMPLES for entry in find_programs(p)]


@pytest.mark.parametrize("name", names())
def test_program_examples_run_on_every_variant_they_serve(name: str) -> None:
    """The program asks, gets a broken answer, names the mistake and asks again; the second answer (the variant's
    example content as a reply writes it) is returned and scores as a content, never a program error."""
    problem = get_problem(name)
    inst = instances(problem, 1)[0]
    assert program_examples()
    for example, entry in program_examples():
        if name not in served(example):
            continue
        good = problem.content.show(content_for(name))
        replies = iter(["I would describe it in words instead.", good])
        asked: list[str] = []

        def chat(messages: list[dict], n: int) -> list[str]:
            asked.append(messages[-1]["content"])  # noqa: B023 - called only by this iteration's trial
            return [next(replies)]  # noqa: B023 - called only by this iteration's trial

        with tempfile.TemporaryDirectory() as work:
            answer = run_program_trial(
                entry, letter=task_json(problem, inst.id, inst.control), chat=chat, workdir=Path(work), root=example
            )
        assert answer == good and len(asked) == 2 and "triple backticks" in asked[1], (example.name, asked)
        calls: list[int] = []
        with tempfile.TemporaryDirectory() as work:  # a good first answer is not asked again
            again = run_program_trial(
                entry,
                letter=task_json(problem, inst.id, inst.control),
                chat=lambda messages, n: calls.append(n) or [good],  # noqa: B023 - called only in this iteration
                workdir=Path(work),
                root=example,
            )
        assert again == good and len(calls) == 1, (example.name, name)
        record = BenchRecord(
            nodeid="n", submission=example.name, instance=inst.id, control=inst.control, trial=1, format=PROGRAM
        )
        assert judge(problem, record, answer).reason in (None, "no_enemy"), name


def test_self_check_on_smb_through_the_harness(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reported case: self_check on smb-v0 crashed with KeyError: 'legend' (a program_error every trial); the
    grid prompts beside it are not evaluated, with the placeholder smb does not fill named."""
    shutil.copy(Path(__file__).parent / "grid_double.py", pytester.path / "grid_double.py")
    shutil.copytree(REPO / "examples" / "pcgbench", pytester.path / "subs")
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    result = pytester.runpytest(
        "subs",
        "--pcg-problem",
        "pcgbench/smb-v0",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "grid_double:respond",
        "--pcg-out",
        "run",
        "--pcg-store",
        "store",
        "--pcg-grid-instances",
        "1",
        "--pcg-trials",
        "2",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=2, failed=2)  # self_check's two trials; the two prompts: not evaluated
    doc = json.loads((pytester.path / "run" / "results.json").read_text())
    (sub,) = doc["submissions"]
    assert sub["name"] == "self_check" and sub["zero_reasons"] == {} and sub["feasible"] == 1.0
    assert sorted(doc["folder_errors"]) == ["subs/few_shot::not-evaluated", "subs/zero_shot::not-evaluated"]
    assert all(
        "uses <HEIGHT>, <LEGEND>, which this variant does not fill" in why for why in doc["folder_errors"].values()
    )
