"""A run folder inside the site without a second copy of its bytes: every file is a hard link to the run's own
(same inode, no bytes added), or, where the file system refuses one (another device, a file system without hard
links, the link-count limit), a symbolic link to the run's file by its absolute path. Never a copy: a site over
ten 2,600-trial runs would otherwise double their bytes. Mirroring again relinks only the files whose link no
longer points at the run's file, so unchanged files keep their inode and modification time."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

HARD = "hard link"
SYMBOLIC = "symbolic link"


@dataclass
class Mirrored:
    """What one mirroring did: files (re)linked, files left as they were, files removed, and how each was linked."""

    linked: int = 0
    kept: int = 0
    removed: int = 0
    how: dict[str, int] = field(default_factory=dict)

    def add(self, other: Mirrored) -> None:
        self.linked += other.linked
        self.kept += other.kept
        self.removed += other.removed
        for k, v in other.how.items():
            self.how[k] = self.how.get(k, 0) + v


def _link(source: str, target: str) -> str:
    """Link ``target`` to ``source``: a hard link, else a symbolic one (absolute, so it survives moving the
    site on the same machine)."""
    try:
        os.link(source, target)
        return HARD
    except OSError:  # EXDEV, EPERM, EMLINK, ENOTSUP...: the file system will not hard-link this file here
        os.symlink(source, target)
        return SYMBOLIC


def _remove(entry: os.DirEntry[str]) -> None:
    if entry.is_dir(follow_symlinks=False):
        shutil.rmtree(entry.path)
    else:
        os.unlink(entry.path)


def _sync(src: str, dst: str, done: Mirrored) -> None:
    """One folder: each file linked unless its link already is the source's file (compared by inode, read from
    the folder listing, so an unchanged file costs no system call of its own), sub-folders in turn, and what
    the source no longer has removed."""
    os.makedirs(dst, exist_ok=True)
    with os.scandir(dst) as listing:
        have = {e.name: e for e in listing}
    same_device = os.stat(src).st_dev == os.stat(dst).st_dev
    with os.scandir(src) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    for entry in entries:
        target = os.path.join(dst, entry.name)
        old = have.pop(entry.name, None)
        if entry.is_dir(follow_symlinks=False):
            if old is not None and not old.is_dir(follow_symlinks=False):
                _remove(old)
            _sync(entry.path, target, done)
            continue
        how = None
        if old is not None and old.is_symlink():
            how = SYMBOLIC if os.readlink(target) == entry.path else None
        elif old is not None and not old.is_dir(follow_symlinks=False):
            ino = entry.stat().st_ino if entry.is_symlink() else entry.inode()
            how = HARD if same_device and old.inode() == ino else None
        if how:
            done.kept += 1
        else:
            if old is not None:
                _remove(old)
            how = _link(entry.path, target)
            done.linked += 1
        done.how[how] = done.how.get(how, 0) + 1
    for old in have.values():
        _remove(old)
        done.removed += 1


def mirror(source: Path, dest: Path) -> Mirrored:
    """Make ``dest`` hold every file of ``source`` (its sub-folders too) as a link, and nothing else."""
    done = Mirrored()
    _sync(str(source.resolve()), str(dest), done)
    return done
