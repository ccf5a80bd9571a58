"""Submission discovery: which folders and files are competition entries, in which format, with what identity."""

from __future__ import annotations

import ast
import hashlib
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST = "submission.toml"
FORMATS = ("program-2024", "program-2025", "prompt-2023")
PLACEHOLDER = "<OBJECT>"
SUBMISSIONS_DIR = "submissions"
# Official runner folders that are never a team (node-utils listAllDirs); plus what Python/git leave behind.
_SKIP_NAMES = {"logs", "result", "__pycache__", "node_modules"}
_TEST_DIRS = {"tests", "test", "testing"}
_MAX_HASHED_BYTES = 50 * 1024 * 1024


class SubmissionError(ValueError):
    """A folder looks like a submission but cannot be evaluated as one (ambiguous, bad manifest)."""


@dataclass(frozen=True)
class Submission:
    """One entry: ``name`` is the folder/file stem used in official paths, ``team`` the display name."""

    name: str
    path: Path
    format: str
    entry: Path
    prompt: str | None
    files_hash: str
    team: str

    @property
    def prompt_length(self) -> int | None:
        """Characters of a 2023 prompt (the optional tie-break); undefined for programs."""
        return len(self.prompt) if self.prompt is not None else None


def defines_trial_loop(source: str) -> bool:
    """True when a module defines a class deriving from ``TrialLoop`` (``TrialLoop`` or ``x.TrialLoop``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        # A program that does not parse is still an entry (it scores 0 with program_error); fall back to text.
        return "TrialLoop)" in source or "TrialLoop ):" in source
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                if (isinstance(base, ast.Name) and base.id == "TrialLoop") or (
                    isinstance(base, ast.Attribute) and base.attr == "TrialLoop"
                ):
                    return True
    return False


def program_format(source: str) -> str:
    """2025 programs import ``llms4pcg``/``llm4pcg`` or call ``chat_with_llm``; everything else is 2024."""
    if "llms4pcg" in source or "llm4pcg" in source or "chat_with_llm" in source:
        return "program-2025"
    return "program-2024"


def is_prompt_text(text: str) -> bool:
    return PLACEHOLDER in text


def is_prompt_name(path: Path) -> bool:
    """2023 prompts are ``.txt`` files; the official set has a ``BirdsTeam.TXT``."""
    return path.suffix.lower() == ".txt"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _visible(path: Path) -> bool:
    return not path.name.startswith(".") and path.name not in _SKIP_NAMES


def files_hash(path: Path) -> str:
    """sha256 over the relative names and bytes of every visible file: a changed program is a new submission."""
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in _walk(path) if p.is_file())
    budget = _MAX_HASHED_BYTES
    for file in files:
        rel = file.name if path.is_file() else file.relative_to(path).as_posix()
        h.update(rel.encode() + b"\0")
        data = file.read_bytes()[: max(0, budget)]
        budget -= len(data)
        h.update(hashlib.sha256(data).digest())
    return "sha256:" + h.hexdigest()


def _walk(root: Path) -> Iterable[Path]:
    for child in sorted(root.iterdir()):
        if not _visible(child):
            continue
        if child.is_dir():
            yield from _walk(child)
        else:
            yield child


def read_manifest(folder: Path) -> dict[str, Any]:
    """``submission.toml``: optional ``team``, ``format`` (program-2024|program-2025|prompt-2023), ``entry``."""
    path = folder / MANIFEST
    try:
        data = tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError as exc:
        raise SubmissionError(f"{path}: not valid TOML ({exc})") from None
    fmt = data.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise SubmissionError(f"{path}: format {fmt!r} is not one of {', '.join(FORMATS)}")
    for key in ("team", "entry", "format"):
        if key in data and not isinstance(data[key], str):
            raise SubmissionError(f"{path}: {key} must be a string")
    return data


def _candidates(folder: Path, require_placeholder: bool = True) -> tuple[list[Path], list[Path]]:
    """Top-level programs defining a TrialLoop subclass, and top-level .txt files holding <OBJECT> (without
    ``require_placeholder``, every .txt when none holds it: the rule checks then report the missing placeholder)."""
    programs, prompts, texts = [], [], []
    for child in sorted(folder.iterdir()):
        if not child.is_file() or not _visible(child):
            continue
        if child.suffix == ".py" and defines_trial_loop(_read(child)):
            programs.append(child)
        elif is_prompt_name(child):
            texts.append(child)
            if is_prompt_text(_read(child)):
                prompts.append(child)
    return programs, prompts or ([] if require_placeholder else texts)


def _build(folder: Path, name: str, fmt: str, entry: Path, team: str | None,
           require_placeholder: bool = True) -> Submission:  # fmt: skip
    if not entry.is_file():
        raise SubmissionError(f"{folder}: entry {entry.name!r} does not exist")
    prompt = _read(entry) if fmt == "prompt-2023" else None
    if prompt is not None and require_placeholder and not is_prompt_text(prompt):
        raise SubmissionError(f"{entry}: a 2023 prompt must contain {PLACEHOLDER}")
    return Submission(name=name, path=folder, format=fmt, entry=entry, prompt=prompt,
                      files_hash=files_hash(folder), team=team or name)  # fmt: skip


def detect_folder(folder: Path, *, manifest_only: bool = False, require_placeholder: bool = True) -> Submission | None:
    """The submission a folder holds, or None; raises SubmissionError when it is one but ambiguous or broken.

    A ``submission.toml`` always makes a folder a submission. Without one (and unless ``manifest_only``) a
    folder is a submission when it holds exactly one program defining a ``TrialLoop`` subclass, or no such
    program and exactly one ``.txt`` prompt with ``<OBJECT>``. Rule checks pass ``require_placeholder=False``
    so that a prompt missing ``<OBJECT>`` is still checked (and fails that rule) instead of being ignored.
    """
    if not folder.is_dir() or not _visible(folder):
        return None
    name = folder.name
    if (folder / MANIFEST).is_file():
        data = read_manifest(folder)
        programs, prompts = _candidates(folder, require_placeholder)
        fmt = data.get("format")
        if "entry" in data:
            entry = folder / data["entry"]
        elif fmt == "prompt-2023" or (fmt is None and prompts and not programs):
            if len(prompts) != 1:
                raise SubmissionError(f"{folder / MANIFEST}: set entry = \"<prompt>.txt\" ({len(prompts)} prompts)")
            entry = prompts[0]
        else:
            if len(programs) != 1:
                raise SubmissionError(
                    f"{folder / MANIFEST}: set entry = \"<program>.py\" ({len(programs)} TrialLoop programs found)"
                )
            entry = programs[0]
        if fmt is None:
            fmt = "prompt-2023" if is_prompt_name(entry) else program_format(_read(entry)) if entry.is_file() else ""
        return _build(folder, name, fmt, entry, data.get("team"), require_placeholder)
    if manifest_only:
        return None
    programs, prompts = _candidates(folder, require_placeholder)
    if len(programs) > 1:
        names = ", ".join(p.name for p in programs)
        raise SubmissionError(f"{folder}: several TrialLoop programs ({names}); add {MANIFEST} with entry = \"...\"")
    if programs:
        return _build(folder, name, program_format(_read(programs[0])), programs[0], None)
    if len(prompts) == 1:
        return _build(folder, name, "prompt-2023", prompts[0], None, require_placeholder)
    return None


def detect_prompt_file(path: Path, *, require_placeholder: bool = True) -> Submission | None:
    """A loose 2023 prompt file (team = file stem, as the 2023 response-gathering script names teams)."""
    if not is_prompt_name(path) or not path.is_file() or not _visible(path):
        return None
    text = _read(path)
    if require_placeholder and not is_prompt_text(text):
        return None
    return Submission(name=path.stem, path=path, format="prompt-2023", entry=path, prompt=text,
                      files_hash=files_hash(path), team=path.stem)  # fmt: skip


def looks_like_test_folder(folder: Path) -> bool:
    """Test trees are never searched for submissions without a manifest."""
    if (folder / "conftest.py").exists() or folder.name in _TEST_DIRS:
        return True
    return any(p.name.startswith("test_") and p.suffix == ".py" for p in folder.iterdir() if p.is_file())


def auto_detect_allowed(folder: Path, roots: Iterable[Path]) -> bool:
    """Manifest-less detection only under a ``submissions/`` folder or directly inside a folder named on the
    command line, and never inside a test tree (so ``pytest tests/`` never collects fixtures as entries).

    pytest asks about every sibling folder on the way from the rootdir to the arguments, so the cheap name
    checks come first and an unreadable or vanished folder is simply not a submission.
    """
    folder = folder.resolve()
    if folder.name == SUBMISSIONS_DIR:  # the container, never an entry itself
        return False
    parents = [folder.parent, *folder.parent.parents]
    if any(p.name in _TEST_DIRS for p in parents):
        return False
    resolved_roots = [r.resolve() for r in roots]
    if not (any(p.name == SUBMISSIONS_DIR for p in parents) or any(folder.parent == r or folder == r
                                                                    for r in resolved_roots)):  # fmt: skip
        return False
    try:
        return not (looks_like_test_folder(folder) or looks_like_test_folder(folder.parent))
    except OSError:
        return False


def prompt_file_allowed(path: Path, roots: Iterable[Path]) -> bool:
    """A loose ``.txt`` prompt is an entry when named on the command line or lying in a submissions folder."""
    path = path.resolve()
    if any(path == r.resolve() for r in roots):
        return True
    parent = path.parent
    if looks_like_test_folder(parent) or any(p.name in _TEST_DIRS for p in [parent, *parent.parents]):
        return False
    return any(p.name == SUBMISSIONS_DIR for p in [parent, *parent.parents]) or any(
        parent == r.resolve() for r in roots
    )
