"""A run folder inside the site without a second copy of its bytes: every file is a hard link to the run's own
(same inode, no bytes added), or, where the file system refuses one (another device, a file system without hard
links, the link-count limit), a symbolic link to the run's file by its absolute path. Never a copy: a site over
ten 2,600-trial runs would otherwise double their bytes. Mirroring again relinks only the files whose link no
longer points at the run's file, so unchanged files keep their inode and modification time."""

from __future__ import annotations

import os
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


def _same(source: os.stat_result, target: Path, absolute: str) -> str | None:
    """How ``target`` already is ``source`` (a hard link to it, or a symbolic link to ``absolute``), else None."""
    try:
        st = target.lstat()
    except FileNotFoundError:
        return None
    if os.path.islink(target):
        return SYMBOLIC if os.readlink(target) == absolute else None
    return HARD if (st.st_ino, st.st_dev) == (source.st_ino, source.st_dev) else None


def _link(source: Path, target: Path) -> str:
    """Link ``target`` to ``source``: a hard link, else a symbolic one (absolute, so it survives moving the
    site on the same machine); whatever stood at ``target`` is replaced."""
    if target.is_symlink() or target.exists():
        target.unlink()
    try:
        os.link(source, target)
        return HARD
    except OSError:  # EXDEV, EPERM, EMLINK, ENOTSUP...: the file system will not hard-link this file here
        os.symlink(source.resolve(), target)
        return SYMBOLIC


def mirror(source: Path, dest: Path) -> Mirrored:
    """Make ``dest`` hold every file of ``source`` (its sub-folders too) as a link, and nothing else."""
    done = Mirrored()
    source = source.resolve()
    wanted: set[Path] = set()
    for folder, dirs, files in os.walk(source):
        rel = Path(folder).relative_to(source)
        dirs.sort()
        (dest / rel).mkdir(parents=True, exist_ok=True)
        wanted.add(dest / rel)
        for name in sorted(files):
            src, target = Path(folder) / name, dest / rel / name
            wanted.add(target)
            absolute = str(src.resolve())
            how = _same(src.stat(), target, absolute)
            if how:
                done.kept += 1
            else:
                how = _link(src, target)
                done.linked += 1
            done.how[how] = done.how.get(how, 0) + 1
    for folder, dirs, files in os.walk(dest, topdown=False):
        for name in files + [d for d in dirs if os.path.islink(Path(folder) / d)]:
            if Path(folder) / name not in wanted:
                (Path(folder) / name).unlink()
                done.removed += 1
        if Path(folder) not in wanted and not os.listdir(folder):
            os.rmdir(folder)
    return done
