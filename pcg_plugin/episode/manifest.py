"""The manifest of an episode problem's submission (`imagegame.toml`, `gameeval.toml`), read and checked once.

Both games take the same shape of manifest: a model, or a prompt file, or a program, never both of the last two;
what is wrong is a SubmissionError that names the file and says how to fix it (the harness shows it as one
failing item, so the folder is never dropped in silence).
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pcg_plugin._util.names import name_bytes
from pcg_plugin.errors import SubmissionError


@dataclass(frozen=True)
class ManifestSubmission:
    """What every episode problem's submission is: its name and folder, its ``entry`` (the prompt or program the
    manifest names; the manifest itself for a model entry), its ``format`` (``<game>_model``, ``<game>_prompt``
    or ``<game>_program``) and its model. A game's submission adds its own fields after these."""

    name: str
    path: Path
    entry: Path
    format: str
    model: str | None

    @property
    def program(self) -> Path | None:
        """The program a ``*_program`` entry runs in the sandbox (None for a model or a prompt entry)."""
        return self.entry if self.format.endswith("_program") else None


def read_manifest(
    path: Path, name: str, keys: Set[str], prompt_key: str, program_key: str
) -> tuple[Path, dict[str, Any]] | None:
    """``path/name`` and its TOML table; None when there is no such file. Refused: not TOML, a key outside
    ``keys``, both ``prompt_key`` and ``program_key``, a ``model`` that is not a model name."""
    manifest = path / name
    if not manifest.is_file():
        return None
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SubmissionError(f'{manifest} is not TOML ({exc}); write e.g. model = "gpt-4o"') from None
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise SubmissionError(f"{manifest}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(keys))})")
    if prompt_key in data and program_key in data:
        raise SubmissionError(f"{manifest}: give {prompt_key} or {program_key}, not both")
    model = data.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise SubmissionError(f"{manifest}: model must be a model name, got {model!r}")
    return manifest, data


def file_inside(folder: Path, name: object, key: str, manifest: Path) -> Path:
    """The file the manifest's ``key`` names, which must lie inside the submission folder."""
    if not isinstance(name, str) or not name:
        raise SubmissionError(f"{manifest}: {key} must be a file name, got {name!r}")
    path = (folder / name).resolve()
    if folder.resolve() not in path.parents or not path.is_file():
        raise SubmissionError(f"{manifest}: {key} = {name!r} is not a file inside {folder}")
    return path


def files_hash(paths: Sequence[Path]) -> str:
    """A short digest of the files that make the submission (the response store's key: a changed prompt or
    program never replays the answers of the old one); names as the bytes they are on disk."""
    digest = hashlib.sha256()
    for p in paths:
        digest.update(name_bytes(p.name) + b"\0" + p.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
