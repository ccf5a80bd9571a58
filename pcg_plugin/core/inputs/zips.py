"""Submissions as they arrive: a ``.zip`` among the submissions is the folder it unpacks to.

A zip is checked before anything is written (no ``../`` or absolute names, no symlinks or other special
files, not encrypted, within ``ZipLimits``), then unpacked once into the user cache
(``$PCG_CACHE_DIR/zips/<sha256 of its bytes>/submissions/<zip stem>``), never beside the zip: a temporary
folder in the cache, renamed into place when complete, so parallel workers unpack it once. A zip holding one
top folder (and nothing else but macOS ``__MACOSX`` metadata) is that folder. The unpacked folder lies in a
folder named ``submissions`` so every problem's detection treats it as a submission folder; it is evaluated
as ``team.zip`` without its suffix (``submissions/team``), so results name the team as if it had been
unzipped in place. Whatever is wrong with a zip is a ``ZipRefused`` (a ``SubmissionError``) naming the file
and the reason, which collection turns into ``<file>::not-evaluated``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pcg_plugin._util import names
from pcg_plugin._util.cache_dir import default_cache_dir
from pcg_plugin.errors import ZipRefused  # re-exported: callers catch zips.ZipRefused

SUBMISSIONS_DIR = "submissions"  # the folder whose zips (and folders) are submissions

SUFFIX = ".zip"
MAX_TOTAL_MB = 200  # uncompressed bytes of all files of one zip (a zip bomb declares far more)
MAX_FILES = 5_000  # files in one zip
_MAC_METADATA = "__MACOSX"  # the resource-fork folder macOS's "Compress" adds: never part of a submission
_TEST_DIRS = ("tests", "test", "testing")  # a zip inside a test tree is a fixture, never a submission
_CHUNK = 1 << 16
_UTF8_FLAG = 0x800  # general purpose bit 11: the member's name is UTF-8
_SOURCES: dict[Path, Path] = {}  # unpacked folder -> the zip it came from (this process)


@dataclass(frozen=True)
class ZipLimits:
    """What one zip may unpack to: total uncompressed size and number of files."""

    max_bytes: int = MAX_TOTAL_MB * 1024 * 1024
    max_files: int = MAX_FILES

    @classmethod
    def from_config(cls, config: Any) -> ZipLimits:
        """From ``--pcg-zip-max-mb`` / ``--pcg-zip-max-files`` (defaults when not given)."""
        mb = config.getoption("pcg_zip_max_mb", None)
        files = config.getoption("pcg_zip_max_files", None)
        return cls(
            int(float(mb) * 1024 * 1024) if mb is not None else cls.max_bytes,
            int(files) if files is not None else cls.max_files,
        )


def is_zip(path: Path) -> bool:
    """A ``.zip`` file (any case of the suffix)."""
    return path.suffix.lower() == SUFFIX and path.is_file()


def is_submission_zip(path: Path, roots: list[Path]) -> bool:
    """A zip collection evaluates: named on the command line, or lying in a ``submissions`` folder or a folder
    named on the command line (outside test trees)."""
    if not is_zip(path) or path.name.startswith("."):
        return False
    path = path.resolve()
    resolved = [r.resolve() for r in roots]
    if path in resolved:
        return True
    if any(p.name in _TEST_DIRS for p in path.parents):
        return False
    return path.parent.name == SUBMISSIONS_DIR or path.parent in resolved


def evaluated_as(zip_path: Path) -> Path:
    """The path a zip's submission is known by: ``submissions/team.zip`` -> ``submissions/team``."""
    return zip_path.with_name(zip_path.name[: -len(SUFFIX)])


def source_of(folder: Path) -> Path | None:
    """The zip an unpacked folder came from (in this process), or None for an ordinary folder."""
    return _SOURCES.get(folder)


def zips_dir(cache_dir: Path | None = None) -> Path:
    """``cache_dir``, else ``$PCG_CACHE_DIR/zips`` (default ``~/.cache/pytest-pcg/zips``)."""
    return cache_dir if cache_dir is not None else default_cache_dir() / "zips"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pytest-pcg" / "zips"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            h.update(block)
    return h.hexdigest()[:24]


def disk_name(info: zipfile.ZipInfo) -> str:
    """The name ``unzip`` gives a member on disk: its bytes as the zip holds them. A name without the UTF-8 flag
    is not read as cp437 (as Python's zipfile does): its bytes are kept, so a name that is not UTF-8 is unpacked,
    hashed and shown (escaped) as the same bytes it has when the organizers unzip it themselves."""
    if info.flag_bits & _UTF8_FLAG:
        return info.filename
    return os.fsdecode(info.filename.encode("cp437"))  # zipfile decoded the bytes as cp437: undo it exactly


def _parts(name: str) -> tuple[str, ...]:
    """The path parts of a member name (``\\`` read as a separator, as Windows tools write it)."""
    return tuple(p for p in name.replace("\\", "/").split("/") if p not in ("", "."))


def _kind(info: zipfile.ZipInfo) -> str:
    """``file``, ``folder``, ``symlink`` or ``special``, from the Unix mode the zip records (none: a file)."""
    mode = info.external_attr >> 16
    if info.is_dir():
        return "folder"
    if mode and stat.S_ISLNK(mode):
        return "symlink"
    if mode and stat.S_IFMT(mode) and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        return "special"
    return "file"


def check(zf: zipfile.ZipFile, shown: str, limits: ZipLimits) -> list[tuple[zipfile.ZipInfo, tuple[str, ...]]]:
    """The members to unpack (file, path parts); ZipRefused for the first member or total that is refused."""
    members = []
    total = count = 0
    for info in zf.infolist():
        name = disk_name(info)
        quoted = f"'{names.shown(name)}'"
        if not name:
            raise ZipRefused(f"{shown}: a member has no name: not a readable zip, refused, nothing unpacked")
        if info.flag_bits & 0x1:
            raise ZipRefused(
                f"{shown}: encrypted (password-protected) member {quoted}: send the zip without a password"
            )
        if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
            raise ZipRefused(f"{shown}: member {quoted} has an absolute path: refused, nothing unpacked")
        parts = _parts(name)
        if ".." in parts:
            raise ZipRefused(f"{shown}: member {quoted} escapes the folder ('..'): refused, nothing unpacked")
        kind = _kind(info)
        if kind in ("symlink", "special"):
            raise ZipRefused(
                f"{shown}: member {quoted} is a {'symbolic link' if kind == 'symlink' else 'special file'}"
                ": refused, nothing unpacked"
            )
        if not parts or parts[0] == _MAC_METADATA or kind == "folder":
            continue
        count += 1
        total += info.file_size
        if count > limits.max_files:
            raise ZipRefused(
                f"{shown}: more than {limits.max_files} files (--pcg-zip-max-files): refused as a "
                "possible zip bomb, nothing unpacked"
            )
        if total > limits.max_bytes:
            raise ZipRefused(
                f"{shown}: unpacks to more than {limits.max_bytes // (1024 * 1024)} MB "
                "(--pcg-zip-max-mb): refused as a possible zip bomb, nothing unpacked"
            )
        members.append((info, parts))
    return members


def _write(
    zf: zipfile.ZipFile, members: list[tuple[zipfile.ZipInfo, tuple[str, ...]]], into: Path, limits: ZipLimits
) -> None:
    """Unpack ``members`` into ``into``, counting the bytes really written (a member may lie about its size)."""
    written = 0
    for info, parts in members:
        target = into.joinpath(*parts)
        if not target.resolve().is_relative_to(into.resolve()):  # pragma: no cover - check() refused it already
            raise ZipRefused(f"member {info.filename!r} escapes the folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(info) as source, open(target, "xb") as out:
            for block in iter(lambda: source.read(_CHUNK), b""):
                written += len(block)
                if written > limits.max_bytes:
                    raise ZipRefused(
                        f"unpacks to more than {limits.max_bytes // (1024 * 1024)} MB "
                        "(--pcg-zip-max-mb): refused as a possible zip bomb"
                    )
                out.write(block)


def _content_root(staging: Path) -> Path:
    """The zip's one top folder when it holds nothing else, else the staging folder itself."""
    children = [c for c in staging.iterdir() if c.name != _MAC_METADATA]
    return children[0] if len(children) == 1 and children[0].is_dir() else staging


def unpacked(zip_path: Path, limits: ZipLimits = ZipLimits(), cache_dir: Path | None = None) -> Path:
    """The folder ``zip_path`` is evaluated as, unpacked once into the cache; ZipRefused when it is refused."""
    shown = str(zip_path)
    stem = evaluated_as(zip_path).name
    if evaluated_as(zip_path).exists():  # both would be submissions/<stem>
        raise ZipRefused(f"{shown}: {stem} is also there: the folder is evaluated, the zip is not; keep one of them")
    try:
        with zipfile.ZipFile(zip_path) as zf:
            members = check(zf, shown, limits)
            base = zips_dir(cache_dir) / _digest(zip_path) / SUBMISSIONS_DIR
            final = base / stem
            if not final.is_dir():
                base.mkdir(parents=True, exist_ok=True)
                staging = Path(tempfile.mkdtemp(prefix=f".{stem}-", dir=base))
                try:
                    _write(zf, members, staging, limits)
                    _publish(_content_root(staging), final)
                finally:
                    shutil.rmtree(staging, ignore_errors=True)
    except ZipRefused as exc:
        message = str(exc)
        raise ZipRefused(message if message.startswith(shown) else f"{shown}: {message}") from None
    except UnicodeDecodeError as exc:  # zipfile reads a name flagged UTF-8 strictly: it cannot be listed at all
        raise ZipRefused(
            f"{shown}: a member's name is marked UTF-8 but is not ({exc.reason} at byte "
            f"{exc.start}: {exc.object[: exc.end]!r}): refused, nothing unpacked; zip the folder again "
            "(or unzip it and give the folder)"
        ) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, ValueError) as exc:
        raise ZipRefused(f"{shown}: not a readable zip ({exc}): refused, nothing unpacked") from None
    except OSError as exc:
        raise ZipRefused(f"{shown}: cannot be unpacked ({exc.strerror or exc}): refused") from None
    _SOURCES[final] = zip_path
    return final


def _publish(built: Path, final: Path) -> None:
    """Rename the finished folder into place; another process that got there first wins."""
    try:
        os.rename(built, final)
    except OSError:
        if not final.is_dir():
            raise
