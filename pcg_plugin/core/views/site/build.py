"""Building the site: each run folder given (a suite's members problem by problem, ``suite.members``) mirrored
under ``runs/<key>/`` by links (``mirror``), its entry read or taken from the manifest (``site.json``), then the
site's pages written where their text changed. What was there from runs no longer given is removed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pcg_plugin.core.results import runs, suite
from pcg_plugin.core.views.site import entries, pages
from pcg_plugin.core.views.site.mirror import Mirrored, mirror
from pcg_plugin.errors import ResultsError

MANIFEST = "site.json"
SCHEMA = "pytest-pcg/site/1"
RUNS = "runs"


@dataclass
class Built:
    """What a build did, for the command's summary and the tests."""

    site: Path
    runs: int = 0
    problems: int = 0
    read: int = 0  # run entries read afresh (the others came from the manifest)
    mirrored: Mirrored = field(default_factory=Mirrored)
    pages: list[str] = field(default_factory=list)
    removed_runs: list[str] = field(default_factory=list)
    seconds: float = 0.0
    link_seconds: float = 0.0  # of which mirroring the run folders
    read_seconds: float = 0.0  # of which reading runs (the model card's bootstrap, mostly)


def run_key(top: Path, doc: dict[str, Any]) -> str:
    """The run's folder name in the site: its id (or folder name) made safe for a URL, and a digest of where it
    lives, so two copies of one run stay apart and a rebuild finds the same key."""
    name = str((doc.get("run") or {}).get("id") or top.name)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:60] or "run"
    return f"{safe}-{hashlib.sha256(str(top).encode()).hexdigest()[:8]}"


def _inside(a: Path, b: Path) -> bool:
    return a == b or b in a.parents


def _manifest(out: Path) -> dict[str, Any]:
    path = out / MANIFEST
    if out.exists() and not out.is_dir():
        raise ResultsError(f"{out}: a file, not a folder for the site")
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return {"schema": SCHEMA, "runs": {}}
    if not path.is_file():
        raise ResultsError(f"{out}: exists and is not a site written by pcg site (no {MANIFEST}); give a new folder")
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("schema") != SCHEMA:
        raise ResultsError(f"{path}: not a pcg site manifest (schema {doc.get('schema')!r})")
    return doc


def _read(results: Path, folder: str, resamples: int) -> dict[str, Any]:
    """One run's stored entry (a function of its own, so that a process pool can run it)."""
    return entries.read(runs.load(results), folder, resamples)


def _read_all(tasks: list[tuple[dict[str, Any], Path, str]], resamples: int, jobs: int) -> None:
    """Fill each task's ``stored``: in ``jobs`` processes when there are several (the bootstrap is CPU-bound)."""
    if jobs > 1 and len(tasks) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(min(jobs, len(tasks))) as pool:
            found = list(pool.map(_read, [r for _, r, _ in tasks], [f for _, _, f in tasks], [resamples] * len(tasks)))
    else:
        found = [_read(r, f, resamples) for _, r, f in tasks]
    for (hit, _, _), stored in zip(tasks, found, strict=True):
        hit["stored"] = stored


def build(
    inputs: Sequence[Path | str], out: Path | str, *, resamples: int = 200, title: str = "Runs", jobs: int = 1
) -> Built:
    """Build (or bring up to date) the site at ``out`` over the run folders ``inputs``; runs not read before
    are read in ``jobs`` processes."""
    t0 = time.perf_counter()
    out = Path(out).resolve()
    old = _manifest(out)
    out.mkdir(parents=True, exist_ok=True)
    built = Built(out)
    new_runs: dict[str, Any] = {}
    tasks: list[tuple[dict[str, Any], Path, str]] = []
    for given in inputs:
        members = suite.members(given)
        top_results = runs.results_path(given).resolve()
        top = top_results.parent
        if _inside(out, top) or _inside(top, out):
            raise ResultsError(f"{given}: the site {out} and the run folder may not hold one another")
        key = run_key(top, runs.read_document(top_results))
        if key in new_runs:
            continue  # the same run given twice
        t = time.perf_counter()
        built.mirrored.add(mirror(top, out / RUNS / key))
        built.link_seconds += time.perf_counter() - t
        stored_members = []
        cached = {m["results"]: m for m in (old["runs"].get(key) or {}).get("members", [])}
        for problem, results in members:
            results = results.resolve()
            if not _inside(results.parent, top):
                raise ResultsError(f"{given}: suite member {problem} lies outside the run folder")
            rel = results.parent.relative_to(top).as_posix()
            folder = f"{RUNS}/{key}" + ("" if rel == "." else f"/{rel}")
            stamp = entries.digest(results, resamples)
            hit = cached.get(rel)
            if hit is None or hit.get("digest") != stamp or hit["stored"]["entry"]["folder"] != folder:
                hit = {"results": rel, "digest": stamp, "stored": None}
                tasks.append((hit, results, folder))
            stored_members.append(hit)
        new_runs[key] = {"source": str(top), "members": stored_members}
    t = time.perf_counter()
    _read_all(tasks, resamples, jobs)
    built.read, built.read_seconds = len(tasks), time.perf_counter() - t
    for key in old["runs"]:
        if key not in new_runs and (out / RUNS / key).is_dir():
            shutil.rmtree(out / RUNS / key)  # links only: the run's own files stay where they are
            built.removed_runs.append(key)
    stored = [m["stored"] for r in new_runs.values() for m in r["members"]]
    built.runs = len(stored)
    built.problems = len({s["entry"]["problem"] for s in stored})
    built.pages = pages.write_all(out, stored, title)
    manifest = json.dumps({"schema": SCHEMA, "runs": new_runs}, indent=1, sort_keys=True) + "\n"
    if pages.write_if_changed(out / MANIFEST, manifest):
        built.pages.append(MANIFEST)
    built.seconds = time.perf_counter() - t0
    return built


def added_bytes(site: Path, sources: Sequence[Path]) -> tuple[int, int]:
    """(bytes on disk, apparent bytes) of what the site holds that the run folders do not: every inode under
    ``site`` (folders, links, pages) not already one of the sources' files, each counted once."""
    have = set()
    for src in sources:
        for folder, _, files in os.walk(src):
            for name in files:
                st = os.lstat(os.path.join(folder, name))
                have.add((st.st_dev, st.st_ino))
    seen: set[tuple[int, int]] = set()
    disk = apparent = 0
    for folder, dirs, files in os.walk(site):
        for name in [".", *dirs, *files]:
            st = os.lstat(os.path.join(folder, name)) if name != "." else os.lstat(folder)
            ident = (st.st_dev, st.st_ino)
            if ident in have or ident in seen:
                continue
            seen.add(ident)
            disk += st.st_blocks * 512
            apparent += st.st_size
    return disk, apparent


def folder_bytes(sources: Sequence[Path]) -> tuple[int, int]:
    """(bytes on disk, apparent bytes) of the run folders themselves, each inode once."""
    seen: set[tuple[int, int]] = set()
    disk = apparent = 0
    for src in sources:
        for folder, dirs, files in os.walk(src):
            for name in [".", *dirs, *files]:
                st = os.lstat(os.path.join(folder, name))
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    disk += st.st_blocks * 512
                    apparent += st.st_size
    return disk, apparent
