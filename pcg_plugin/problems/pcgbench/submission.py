"""Which folders and files are PCG Benchmark submissions: a prompt file or a TrialLoop program.

A folder named on the command line is one submission when it holds an entry at its top level, else a container whose
direct subfolders must each be one (a subfolder that is none is reported, never dropped). An entry is, in order:
the `entry` of a `submission.toml` (optional `team` too); the one program defining a `TrialLoop` subclass
(`official_api.programs.find_programs`, any depth); the one top-level `.txt` holding a placeholder of the variant
(`BenchProblem.placeholders`).
A prompt that uses a placeholder of other variants which this one does not fill (a grid prompt's `<LEGEND>` on
talakat) is refused by name: it is a prompt for those variants, and the model would read the placeholder as text.
A loose prompt `.txt` named on the command line is a submission too. Test folders and project folders (a
`conftest.py`, `pyproject.toml` ...) are never searched.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pcg_plugin._util.names import shown
from pcg_plugin.core.inputs.folders import MANIFEST, files_hash, is_project, is_prompt_name, looks_like_test_folder
from pcg_plugin.core.inputs.folders import read_text as _read
from pcg_plugin.errors import SubmissionError
from pcg_plugin.problems.pcgbench.bench.problem import KIND_PLACEHOLDERS
from pcg_plugin.sandbox.official_api.programs import find_programs

PROMPT, PROGRAM = "pcgbench-prompt", "pcgbench-program"


@dataclass(frozen=True)
class BenchSubmission:
    name: str
    path: Path
    entry: Path
    format: str
    files_hash: str
    team: str
    prompt: str | None = None  # a prompt file's text


def is_prompt(path: Path, placeholders: Sequence[str]) -> bool:
    return is_prompt_name(path) and path.is_file() and any(p in _read(path) for p in placeholders)


def _prompts(folder: Path, placeholders: Sequence[str]) -> list[Path]:
    return [p for p in sorted(folder.iterdir()) if not p.name.startswith(".") and is_prompt(p, placeholders)]


def _entry(folder: Path, placeholders: Sequence[str], top_only: bool = False) -> tuple[Path, str, str | None] | None:
    """(entry, format, team) of a folder, None when it holds none; SubmissionError when ambiguous or broken.
    ``top_only``: a program counts only at the folder's top level (a folder named on the command line whose
    programs lie in subfolders is a container of submissions, not one)."""
    team = None
    if (folder / MANIFEST).is_file():
        try:
            data = tomllib.loads(_read(folder / MANIFEST))
        except tomllib.TOMLDecodeError as exc:
            raise SubmissionError(f"{folder / MANIFEST}: not valid TOML ({exc})") from None
        team = data.get("team") if isinstance(data.get("team"), str) else None
        if isinstance(data.get("entry"), str):
            entry = folder / data["entry"]
            if not entry.is_file():
                raise SubmissionError(f"{folder / MANIFEST}: entry {data['entry']!r} does not exist")
            return entry, PROMPT if entry.suffix.lower() == ".txt" else PROGRAM, team
    programs = [p for p in find_programs(folder) if not top_only or p.parent == folder]
    if len(programs) > 1:
        names = ", ".join(p.relative_to(folder).as_posix() for p in programs)
        raise SubmissionError(f'{folder}: several TrialLoop programs ({names}); add {MANIFEST} with entry = "..."')
    if programs:
        return programs[0], PROGRAM, team
    prompts = _prompts(folder, placeholders)
    if len(prompts) > 1:
        names = ", ".join(p.name for p in prompts)
        raise SubmissionError(f'{folder}: several prompt files ({names}); add {MANIFEST} with entry = "..."')
    return (prompts[0], PROMPT, team) if prompts else None


def _build(
    path: Path, entry: Path, fmt: str, team: str | None, name: str, placeholders: Sequence[str]
) -> BenchSubmission:
    prompt = _read(entry) if fmt == PROMPT else None
    if prompt is not None and not any(p in prompt for p in placeholders):
        raise SubmissionError(
            f"{entry}: a prompt must use at least one of {', '.join(placeholders)} (it would ask "
            "every instance the same question)"
        )
    unfilled = [p for p in KIND_PLACEHOLDERS if prompt is not None and p in prompt and p not in placeholders]
    if unfilled:
        raise SubmissionError(
            f"{entry}: uses {', '.join(unfilled)}, which this variant does not fill (it fills "
            f"{', '.join(placeholders)}): a prompt for other variants"
        )
    name = shown(name)  # text: a folder name that is not UTF-8 shown escaped
    return BenchSubmission(
        name=name,
        path=path,
        entry=entry,
        format=fmt,
        files_hash=files_hash(path),
        team=shown(team or name),
        prompt=prompt,
    )


def _ours(folder: Path) -> bool:
    """Not a test tree or a project (this repo, a package): never searched for submissions."""
    return not (looks_like_test_folder(folder) or is_project(folder))


def not_a_submission(folder: Path, placeholders: Sequence[str]) -> str:
    return (
        f"{folder}: not a PCG Benchmark submission: no TrialLoop program and no .txt prompt using one of "
        f'{", ".join(placeholders)}; add one, or {MANIFEST} with entry = "..."'
    )


def detect_folder(path: Path, roots: Sequence[Path], placeholders: Sequence[str]) -> BenchSubmission | None:
    """A folder named on the command line (or a direct subfolder of one that holds no entry) -> its submission."""
    path = path.resolve()
    resolved = [r.resolve() for r in roots]
    if path.name.startswith(".") or path.name in ("__pycache__", "node_modules"):
        return None
    try:
        if path in resolved:
            if not _ours(path):
                return None
            found = _entry(path, placeholders, top_only=True)
            return _build(path, *found, name=path.name, placeholders=placeholders) if found else None
        parent = path.parent
        if parent in resolved and _ours(parent) and _entry(parent, placeholders, top_only=True) is None:
            found = _entry(path, placeholders)
            if found is None:
                raise SubmissionError(not_a_submission(path, placeholders))
            return _build(path, *found, name=path.name, placeholders=placeholders)
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot be read ({exc})") from None
    return None


def detect_file(path: Path, roots: Sequence[Path], placeholders: Sequence[str]) -> BenchSubmission | None:
    """A prompt file named on the command line is a submission (named after its stem)."""
    if path.resolve() not in [r.resolve() for r in roots] or not is_prompt_name(path):
        return None
    if not is_prompt(path, placeholders):
        raise SubmissionError(f"{path}: not a PCG Benchmark prompt: it uses none of {', '.join(placeholders)}")
    return _build(path, path, PROMPT, None, name=path.stem, placeholders=placeholders)
