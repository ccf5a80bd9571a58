"""Submission discovery: which folders and files are competition entries, in which format, with what identity."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pcg_plugin._util.names import shown
from pcg_plugin.core.inputs.folders import (
    MANIFEST,
    TEST_DIRS,
    files_hash,
    is_project,
    is_prompt_name,
    looks_like_test_folder,
)
from pcg_plugin.core.inputs.folders import read_text as _read
from pcg_plugin.core.inputs.folders import visible as _visible
from pcg_plugin.core.inputs.folders import walk as _walk
from pcg_plugin.core.inputs.zips import SUBMISSIONS_DIR  # one name for the folder, used by the zips too
from pcg_plugin.errors import SubmissionError
from pcg_plugin.sandbox.official_api.programs import defines_trial_loop, entry_rank, find_programs
from pcg_plugin.sandbox.official_api.programs import parse as _parse

__all__ = [
    "MANIFEST",
    "Submission",
    "defines_trial_loop",
    "detect_folder",
    "detect_prompt_file",
    "entry_rank",
    "files_hash",
    "find_programs",
    "folder_role",
    "is_prompt_name",
    "looks_like_test_folder",
    "program_format",
    "prompt_file_allowed",
]  # what other modules and the tests use from here

FORMATS = ("program-2024", "program-2025", "prompt-2023")
PLACEHOLDER = "<OBJECT>"


@dataclass(frozen=True)
class Submission:
    """One entry: ``name`` is the folder/file stem used in official paths, ``team`` the display name.

    ``entry`` may sit anywhere in the folder; ``workdir`` is the folder the program runs in (the submission
    folder unless the manifest or the program's own relative paths say otherwise); ``note`` says how the entry
    and working folder were chosen, for the pre-flight table.
    """

    name: str
    path: Path
    format: str
    entry: Path
    prompt: str | None
    files_hash: str
    team: str
    workdir: Path | None = None
    note: str = ""

    def __post_init__(self) -> None:
        for key in ("name", "team", "note"):  # text: a folder name that is not UTF-8 shown escaped
            object.__setattr__(self, key, shown(getattr(self, key)))

    @property
    def prompt_length(self) -> int | None:
        """Characters of a 2023 prompt (the optional tie-break); undefined for programs."""
        return len(self.prompt) if self.prompt is not None else None

    @property
    def import_paths(self) -> tuple[Path, ...]:
        """Where the program's own imports resolve, in order: the entry's folder, then the submission folder."""
        return tuple(dict.fromkeys((self.entry.parent, self.path)))

    @property
    def run_folder(self) -> Path:
        """Where the program runs (its working folder); a loose prompt file's folder for prompts."""
        return self.workdir or (self.path if self.path.is_dir() else self.path.parent)


def program_format(source: str) -> str:
    """2025 programs import ``llms4pcg``/``llm4pcg`` or call ``chat_with_llm``; everything else is 2024."""
    if "llms4pcg" in source or "llm4pcg" in source or "chat_with_llm" in source:
        return "program-2025"
    return "program-2024"


def is_prompt_text(text: str) -> bool:
    return PLACEHOLDER in text


def read_manifest(folder: Path) -> dict[str, Any]:
    """``submission.toml``: optional ``team``, ``format`` (program-2024|program-2025|prompt-2023), ``entry``
    (a path inside the folder) and ``workdir`` (the folder the program runs in, relative to the submission)."""
    path = folder / MANIFEST
    try:
        data = tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError as exc:
        raise SubmissionError(f"{path}: not valid TOML ({exc})") from None
    fmt = data.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise SubmissionError(f"{path}: format {fmt!r} is not one of {', '.join(FORMATS)}")
    for key in ("team", "entry", "format", "workdir"):
        if key in data and not isinstance(data[key], str):
            raise SubmissionError(f"{path}: {key} must be a string")
    return data


def top_level_prompts(folder: Path, require_placeholder: bool = True) -> list[Path]:
    """``.txt`` prompts at the folder's top level holding ``<OBJECT>`` (without ``require_placeholder``, every
    prompt-named ``.txt`` when none holds it: the rule checks then report the missing placeholder)."""
    texts = [c for c in sorted(folder.iterdir()) if c.is_file() and _visible(c) and is_prompt_name(c)]
    prompts = [t for t in texts if is_prompt_text(_read(t))]
    return prompts or ([] if require_placeholder else texts)


def _rel(path: Path, folder: Path) -> str:
    return path.relative_to(folder).as_posix()


def _relative_paths(source: str) -> set[str]:
    """String constants of a program that look like relative file paths (``prompts/task.txt``, ``prompts/``)."""
    tree = _parse(source)
    if tree is None:
        return set()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if (
                0 < len(text) < 200
                and not text.startswith(("/", "~", "http"))
                and "\n" not in text
                and " " not in text
                and ("/" in text or Path(text).suffix.lower() in (".txt", ".json", ".md", ".csv"))
            ):
                out.add(text)
    return out


def guess_workdir(folder: Path, entry: Path) -> tuple[Path, str]:
    """The folder a nested program was run from: the submission folder (as the issue's real teams ran
    ``python tot/tot.py``), unless the relative paths the program opens exist only beside the program."""
    if entry.parent == folder:
        return folder, ""
    paths = _relative_paths(_read(entry))
    at_root = sum((folder / p).exists() for p in paths)
    beside = sum((entry.parent / p).exists() for p in paths)
    if beside > at_root:
        return entry.parent, f"workdir {_rel(entry.parent, folder)}/: the files the program opens are there"
    return folder, ""


def _build(
    folder: Path,
    name: str,
    fmt: str,
    entry: Path,
    team: str | None,
    require_placeholder: bool = True,
    workdir: Path | None = None,
    note: str = "",
) -> Submission:
    if not entry.is_file():
        raise SubmissionError(f"{folder}: entry {_rel_or_name(entry, folder)!r} does not exist")
    prompt = _read(entry) if fmt == "prompt-2023" else None
    if prompt is not None and require_placeholder and not is_prompt_text(prompt):
        raise SubmissionError(f"{entry}: a 2023 prompt must contain {PLACEHOLDER}")
    if prompt is None and workdir is None:
        workdir, why = guess_workdir(folder, entry)
        note = "; ".join(x for x in (note, why) if x)
    return Submission(
        name=name,
        path=folder,
        format=fmt,
        entry=entry,
        prompt=prompt,
        files_hash=files_hash(folder),
        team=team or name,
        workdir=workdir,
        note=note,
    )


def _rel_or_name(path: Path, folder: Path) -> str:
    try:
        return _rel(path, folder)
    except ValueError:
        return str(path)


def _one_program(folder: Path, programs: list[Path]) -> Path:
    if len(programs) > 1:
        names = ", ".join(_rel(p, folder) for p in programs)
        raise SubmissionError(f'{folder}: several entry programs ({names}); add {MANIFEST} with entry = "..."')
    return programs[0]


def _from_manifest(folder: Path, require_placeholder: bool) -> Submission:
    data = read_manifest(folder)
    fmt = data.get("format")
    if "entry" in data:
        entry, note = folder / data["entry"], f"entry from {MANIFEST}"
    else:
        programs = [] if fmt == "prompt-2023" else find_programs(folder)
        prompts = top_level_prompts(folder, require_placeholder)
        if fmt == "prompt-2023" or (fmt is None and prompts and not programs):
            if len(prompts) != 1:
                raise SubmissionError(f'{folder / MANIFEST}: set entry = "<prompt>.txt" ({len(prompts)} prompts)')
            entry = prompts[0]
        elif not programs:
            raise SubmissionError(f'{folder / MANIFEST}: set entry = "<program>.py" (no TrialLoop program found)')
        else:
            entry = _one_program(folder, programs)
        note = ""
    if fmt is None:
        fmt = "prompt-2023" if is_prompt_name(entry) else program_format(_read(entry)) if entry.is_file() else ""
    workdir = None
    if "workdir" in data:
        workdir = (folder / data["workdir"]).resolve()
        if not workdir.is_dir() or not workdir.is_relative_to(folder.resolve()):
            raise SubmissionError(
                f"{folder / MANIFEST}: workdir {data['workdir']!r} is not a folder inside the submission"
            )
        note = "; ".join(x for x in (note, f"workdir from {MANIFEST}") if x)
    return _build(folder, shown(folder.name), fmt, entry, data.get("team"), require_placeholder, workdir, note)


def not_a_submission(folder: Path) -> str:
    """Why a folder that should hold a submission holds none: what was found instead, and the fix."""
    py = [p for p in _walk(folder) if p.suffix == ".py"]
    txt = [p for p in _walk(folder) if p.suffix.lower() == ".txt"]
    found = f"{len(py)} .py file(s), {len(txt)} .txt file(s)" if py or txt else "no .py or .txt file"
    return (
        f"{folder}: not a submission: no program defining a TrialLoop subclass and no 2023 prompt (.txt with "
        f"{PLACEHOLDER}) ({found}); a program must subclass TrialLoop and call the model through "
        f"chat_with_chatgpt / chat_with_llm, or add {MANIFEST}"
    )


def detect_folder(folder: Path, *, manifest_only: bool = False, require_placeholder: bool = True) -> Submission | None:
    """The submission a folder holds, or None; raises SubmissionError when it is one but ambiguous or broken.

    A ``submission.toml`` always makes a folder a submission. Without one (and unless ``manifest_only``) a
    folder is a submission when its best-ranked entry program (``find_programs``, at any depth) is unique, or,
    when it holds no program at all, when it holds exactly one top-level ``.txt`` prompt with ``<OBJECT>``.
    A folder holding a program is never a 2023 prompt, whatever ``.txt`` files lie beside it. Rule checks pass
    ``require_placeholder=False`` so that a prompt missing ``<OBJECT>`` is still checked (and fails that rule).
    """
    if not folder.is_dir() or not _visible(folder):
        return None
    if (folder / MANIFEST).is_file():
        return _from_manifest(folder, require_placeholder)
    if manifest_only:
        return None
    programs = find_programs(folder)
    if programs:
        entry = _one_program(folder, programs)
        return _build(folder, shown(folder.name), program_format(_read(entry)), entry, None)
    prompts = top_level_prompts(folder, require_placeholder)
    if len(prompts) > 1:
        names = ", ".join(p.name for p in prompts)
        raise SubmissionError(f'{folder}: several 2023 prompts ({names}); add {MANIFEST} with entry = "..."')
    if prompts:
        return _build(folder, shown(folder.name), "prompt-2023", prompts[0], None, require_placeholder)
    return None


def not_a_prompt(path: Path) -> str:
    return f"{path}: a loose .txt without {PLACEHOLDER}: not a 2023 prompt (the official check disqualifies it)"


def detect_prompt_file(path: Path, *, require_placeholder: bool = True) -> Submission | None:
    """A loose 2023 prompt file (team = file stem, as the 2023 response-gathering script names teams)."""
    if not is_prompt_name(path) or not path.is_file() or not _visible(path):
        return None
    text = _read(path)
    if require_placeholder and not is_prompt_text(text):
        return None
    return Submission(
        name=shown(path.stem),
        path=path,
        format="prompt-2023",
        entry=path,
        prompt=text,
        files_hash=files_hash(path),
        team=shown(path.stem),
    )


def root_is_container(folder: Path, require_placeholder: bool = True) -> bool:
    """Whether a folder named on the command line holds many submissions (one per subfolder) or is one.

    One submission: it has a manifest, a program or prompt at its top level, or all its programs lie in one
    subfolder and it has files of its own (a team's ``README.md`` and ``tot/tot.py``). A container: its programs
    lie in two or more subfolders (the organizers' examples repository, an unzipped set of entries), or it holds
    several loose prompts, or no program or prompt at all but subfolders (each of which then must be a submission
    or is reported).
    """
    if folder.name == SUBMISSIONS_DIR:
        return True
    if (folder / MANIFEST).is_file():
        return False
    programs = find_programs(folder)
    if any(p.parent == folder for p in programs):
        return False
    homes = {p.relative_to(folder).parts[0] for p in programs}
    if homes:  # one home: a team folder (it has files of its own: README, requirements) or a set of one team
        return len(homes) > 1 or not any(c.is_file() and _visible(c) for c in folder.iterdir())
    prompts = top_level_prompts(folder, require_placeholder)
    if prompts:
        return len(prompts) > 1
    return any((c.is_dir() or c.suffix.lower() == ".zip") and _visible(c) for c in folder.iterdir())  # zips: teams


def folder_role(folder: Path, roots: Iterable[Path], require_placeholder: bool = True) -> str | None:
    """``"container"``, ``"submission"`` (must be one, or is reported as a visible error) or None (not ours).

    Submissions are the direct subfolders of a container: a folder named ``submissions/``, or a folder named
    on the command line that ``root_is_container``; a folder named on the command line that is no container
    is itself the submission. Never inside a test tree or a project folder (so ``pytest tests/`` never takes
    fixtures for entries). pytest asks about every sibling folder on the way from the rootdir to the
    arguments, so the cheap name checks come first.
    """
    folder = folder.resolve()
    if not _visible(folder):
        return None
    if folder.name == SUBMISSIONS_DIR:
        return "container"
    if any(p.name in TEST_DIRS for p in folder.parents):
        return None
    resolved = [r.resolve() for r in roots]
    try:
        if folder in resolved:
            if looks_like_test_folder(folder) or is_project(folder):
                return None
            return "container" if root_is_container(folder, require_placeholder) else "submission"
        parent = folder.parent
        if parent.name == SUBMISSIONS_DIR or (parent in resolved and folder_role(parent, roots) == "container"):
            return None if looks_like_test_folder(parent) or is_project(parent) else "submission"
    except OSError:  # vanished or unreadable on the way: not ours to judge here
        return None
    return None


def auto_detect_allowed(folder: Path, roots: Iterable[Path]) -> bool:
    """Manifest-less detection applies to this folder: it must hold a submission (``folder_role``)."""
    return folder_role(folder, roots) == "submission"


def prompt_file_allowed(path: Path, roots: Iterable[Path]) -> bool:
    """A loose ``.txt`` prompt is an entry when named on the command line or lying in a container."""
    path = path.resolve()
    if any(path == r.resolve() for r in roots):
        return True
    parent = path.parent
    if any(p.name in TEST_DIRS for p in [parent, *parent.parents]):
        return False
    return folder_role(parent, roots) == "container"
