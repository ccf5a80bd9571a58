"""What every problem's submission folder is made of: the files that count (the official runner skips logs,
results and caches), the hash of them that keys the response store, which ``.txt`` can be a prompt, the
manifest's name, and the test and project folders that are never searched for entries."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from pcg_plugin._util.names import name_bytes

MANIFEST = "submission.toml"
# Official runner folders that are never a team (node-utils listAllDirs); plus what Python/git leave behind.
SKIP_NAMES = {"logs", "result", "__pycache__", "node_modules"}
TEST_DIRS = {"tests", "test", "testing"}
# A folder holding one of these is a project (this repo, a package), never a team or a folder of teams.
PROJECT_FILES = ("conftest.py", "pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini")
# .txt files that real submission folders hold beside their program or prompt; never a prompt.
_NOT_PROMPTS = ("requirements", "readme", "license", "licence", "copying", "notice", "changelog", "authors")
_MAX_HASHED_BYTES = 50 * 1024 * 1024


def read_text(path: Path) -> str:
    """A participant's file as text: undecodable bytes replaced, never an error."""
    return path.read_text(encoding="utf-8", errors="replace")


def visible(path: Path) -> bool:
    return not path.name.startswith(".") and path.name not in SKIP_NAMES


def walk(root: Path) -> Iterable[Path]:
    """The visible files below ``root``, in name order."""
    for child in sorted(root.iterdir()):
        if not visible(child):
            continue
        if child.is_dir():
            yield from walk(child)
        else:
            yield child


def is_prompt_name(path: Path) -> bool:
    """Prompts are ``.txt`` files (the official 2023 set has a ``BirdsTeam.TXT``); ``requirements.txt``,
    ``README.txt``, ``LICENSE.txt`` and the like, which real folders hold beside the entry, never are."""
    if path.suffix.lower() != ".txt":
        return False
    stem = path.stem.lower()
    return not any(stem.startswith(word) for word in _NOT_PROMPTS)


def files_hash(path: Path) -> str:
    """sha256 over the relative names and bytes of every visible file: a changed program is a new submission.
    Names are hashed as the bytes they are on disk (one that is not UTF-8 too)."""
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in walk(path) if p.is_file())
    budget = _MAX_HASHED_BYTES
    for file in files:
        rel = file.name if path.is_file() else file.relative_to(path).as_posix()
        h.update(name_bytes(rel) + b"\0")
        data = file.read_bytes()[: max(0, budget)]
        budget -= len(data)
        h.update(hashlib.sha256(data).digest())
    return "sha256:" + h.hexdigest()


def looks_like_test_folder(folder: Path) -> bool:
    """Test trees are never searched for submissions without a manifest."""
    if (folder / "conftest.py").exists() or folder.name in TEST_DIRS:
        return True
    return any(p.name.startswith("test_") and p.suffix == ".py" for p in folder.iterdir() if p.is_file())


def is_project(folder: Path) -> bool:
    return any((folder / name).exists() for name in PROJECT_FILES)
