"""A submission's ``requirements.txt``, honoured the way the organizers did (``pip install -r requirements.txt``),
without touching the harness's own environment.

``prepare`` finds the requirements file (nearest to the entry, up to the submission root, else the root's parent
folder as in the organizers' examples repository), installs its lines with the running interpreter's pip into a
per-submission folder (``pip install --target``, binary wheels only so no package's build script runs outside the
sandbox), cached under ``$PCG_CACHE_DIR/envs/<hash>`` by the lines, the Python version and the platform, and
published atomically (temporary folder, file lock, rename). The official packages (``chatgpt4pcg``,
``llms4pcg``) are never installed: the harness's stand-ins serve their import paths. Then every external module
the reachable code imports (``imports.reachable``) must be provided by the sandbox child's environment or by
the installed folder; what is not is reported per module with the requirement line it should have come from.

A competition may name its official environment (``official``: the organizers' requirements file, e.g. the
examples repository's ``requirements.txt`` every 2024 entry ran with): it is installed the same way, once and
cached, and every program that imports a third-party module runs with it (one that imports none runs the same
anywhere, so nothing is built for it: no pip run, even offline); a program's own requirements go on top (first
on the path).

Which module a distribution provides is read from the installed wheels' metadata (``top_level.txt``, else
``RECORD``); only where nothing could be installed does a message guess the line from the names.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pcg_plugin._util.atomic import locked
from pcg_plugin._util.cache_dir import default_cache_dir
from pcg_plugin._util.trial_dirs import owned_temp_dir
from pcg_plugin.sandbox.imports import ImportGraph, ImportSite, reachable
from pcg_plugin.sandbox.official_api import SHIMS

MODES = ("install", "check", "off")
REQUIREMENTS = "requirements.txt"
MARKER = "pcg-env.json"  # written last into a finished environment folder: its presence means "complete"
_OFFICIAL = ("chatgpt4pcg", "llms4pcg", "llm4pcg")  # any spelling: compared without case and separators
_PIP_TIMEOUT_S = 900


def served_by_harness() -> tuple[str, ...]:
    """Top-level modules the harness's stand-ins serve (first on the sandbox child's path)."""
    return tuple(sorted(p.name for p in SHIMS.iterdir() if p.is_dir() and (p / "__init__.py").is_file()))


def _squash(name: str) -> str:
    return re.sub(r"[-_.]+", "", name).lower()


def is_official(name: str) -> bool:
    """``ChatGPT4PCG``, ``chatgpt4pcg[extra]``, ``llms-4-pcg`` ...: a distribution the harness stands in for."""
    return _squash(name) in {_squash(o) for o in _OFFICIAL}


@dataclass(frozen=True)
class Line:
    """One requirement of the file: its 1-based line number, text as written, and canonical name (None when
    the line is not a plain ``name[extras] specifier ; marker`` requirement)."""

    number: int
    text: str
    name: str | None

    def describe(self, file: str = REQUIREMENTS) -> str:
        return f"{file} line {self.number} {self.text!r}"


@dataclass
class Environment:
    """What a submission runs with: ``site_dir`` goes on the sandbox child's ``sys.path`` after the shims and
    the program's own folders; ``problems`` make the submission's items error before any model call."""

    mode: str
    status: str  # off | none | installed | cached | checked | error
    requirements: Path | None = None
    site_dir: Path | None = None
    installed: list[str] = field(default_factory=list)  # "name==version" of every distribution in site_dir
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    official: Path | None = None  # the competition's official requirements file, under the program's own
    official_name: str = ""  # what the pre-flight table calls it ("official 2024")
    official_status: str = ""  # as ``status``, for the official environment
    official_dir: Path | None = None
    official_installed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def site_dirs(self) -> tuple[Path, ...]:
        """What goes on the sandbox child's path, in order: the program's own requirements, then the official
        environment (so a team's pins win)."""
        return tuple(d for d in (self.site_dir, self.official_dir) if d is not None)

    def label(self) -> str:
        """Which environment the program gets, in a few words (the pre-flight table's ``environment``)."""
        if self.status == "off":
            return "harness only"
        own = "own " + REQUIREMENTS if self.requirements is not None else ""
        if self.official is None:
            return own or "harness only"
        return self.official_name + (" + " + own if own else "")

    def summary(self, base: Path | None = None) -> str:
        """One line for the run header and the pre-flight table (the file's path relative to ``base``)."""
        if self.status == "off":
            return "requirements off: the harness environment only"
        where = f"no {REQUIREMENTS}"
        if self.requirements is not None:
            where = os.path.relpath(self.requirements, base) if base is not None else str(self.requirements)
        what = _WHAT[self.status].format(n=len(self.installed))
        parts = []
        if self.official is not None:  # first: the table shows the column's first 40 characters
            parts.append(f"{self.official.name}: " + _WHAT[self.official_status].format(n=len(self.official_installed)))
        parts.append(f"{where}: {what}")
        if self.site_dir is not None:
            parts.append(f"in {self.site_dir}")
        official = [s for s in self.skipped if "stand-in" in s]
        if official:
            parts.append(f"{len(official)} official package line(s) served by the harness's stand-ins")
        if self.problems:
            parts.append(f"{len(self.problems)} problem(s): {self.problems[0]}")
        return "; ".join(parts)


_WHAT = {
    "unneeded": "not built (the program imports no third-party module)",
    "none": "nothing to install",
    "installed": "installed {n} package(s)",
    "cached": "{n} package(s), cached",
    "checked": "checked, not installed",
    "error": "cannot be satisfied",
}


# --------------------------------------------------------------------------------------------------------------
# the requirements file


def find_requirements(root: Path, entry: Path) -> Path | None:
    """The file nearest the entry: its folder and each folder up to the submission root, then the root's parent
    (one file at the root of the organizers' examples repository serves every example folder)."""
    folders = [entry.parent]
    while folders[-1] != root and root in folders[-1].parents:
        folders.append(folders[-1].parent)
    if root not in folders:
        folders.append(root)
    folders.append(root.parent)
    return next((f / REQUIREMENTS for f in folders if (f / REQUIREMENTS).is_file()), None)


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) with comments dropped and backslash continuations joined, as pip reads them."""
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1]
            continue
        line, pending = (pending + line).strip(), ""
        if line:
            yield start, line
    if pending.strip():
        yield start, pending.strip()


def read_requirements(path: Path, shown: str = REQUIREMENTS) -> tuple[list[Line], list[str], list[str]]:
    """(lines to install, skipped-line notes, problems) of a requirements file (called ``shown`` in them)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    lines: list[Line] = []
    skipped: list[str] = []
    problems: list[str] = []
    for number, text in _logical_lines(path.read_text(encoding="utf-8", errors="replace")):
        if text.startswith("-"):
            skipped.append(
                f"{shown} line {number} {text!r} skipped: pip options in a submission's requirements are not honoured"
            )
            continue
        try:
            req = Requirement(text)
        except InvalidRequirement as exc:
            problems.append(
                f"{shown} line {number} {text!r} cannot be installed: not a requirement pip can read ({exc})"
            )
            continue
        if is_official(req.name):
            skipped.append(f"{shown} line {number} {text!r} skipped: the harness's stand-in serves {req.name}")
            continue
        if req.url:
            problems.append(
                f"{shown} line {number} {text!r} cannot be installed: only named requirements "
                "are installed, as binary wheels from the package index (a direct reference or "
                "path would be built by running its build script)"
            )
            continue
        lines.append(Line(number, text, canonicalize_name(req.name)))
    return lines, skipped, problems


def environment_key(lines: Sequence[Line]) -> str:
    """Cache key: the requirement texts, the interpreter (``cpython-311``) and the platform."""
    data = json.dumps(
        {
            "lines": sorted({ln.text for ln in lines}),
            "python": sys.implementation.cache_tag,
            "platform": sysconfig.get_platform(),
        },
        sort_keys=True,
    )
    return hashlib.sha256(data.encode()).hexdigest()[:20]


def environments_dir(cache_dir: Path | None = None) -> Path:
    """``cache_dir``, else ``$PCG_CACHE_DIR/envs`` (default ``~/.cache/pytest-pcg/envs``)."""
    return cache_dir if cache_dir is not None else default_cache_dir() / "envs"


# --------------------------------------------------------------------------------------------------------------
# what an environment provides


@lru_cache(maxsize=1)
def harness_path() -> tuple[str, ...]:
    """``sys.path`` of the sandbox child (``python -I``: no PYTHONPATH, no user site, no working folder)."""
    out = subprocess.run(
        [sys.executable, "-I", "-c", "import sys, json; print(json.dumps(sys.path))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return tuple(json.loads(out.stdout))


def provided_by(name: str, path: Sequence[str]) -> bool:
    """True when the top-level module ``name`` is importable from ``path`` (found, never imported)."""
    if name in sys.builtin_module_names or name in sys.stdlib_module_names:
        return True
    try:
        return importlib.machinery.PathFinder.find_spec(name, list(path)) is not None
    except (ImportError, ValueError):
        return False


def distributions(site_dir: Path) -> dict[str, tuple[str, set[str]]]:
    """canonical name -> (``name==version``, top-level modules) of every distribution installed in ``site_dir``,
    from ``top_level.txt`` when the wheel has one, else from the paths in ``RECORD``."""
    from packaging.utils import canonicalize_name

    out: dict[str, tuple[str, set[str]]] = {}
    for info in sorted(site_dir.glob("*.dist-info")):
        meta: dict[str, str] = {}
        for line in (info / "METADATA").read_text(encoding="utf-8", errors="replace").splitlines():
            if not line.strip():
                break
            key, _, value = line.partition(":")
            meta.setdefault(key.strip().lower(), value.strip())
        name = meta.get("name", info.name.split("-")[0])
        modules: set[str] = set()
        if (info / "top_level.txt").is_file():
            modules = {m.strip() for m in (info / "top_level.txt").read_text().splitlines() if m.strip()}
        elif (info / "RECORD").is_file():
            for row in (info / "RECORD").read_text(encoding="utf-8", errors="replace").splitlines():
                first = row.split(",", 1)[0].split("/", 1)
                top = first[0]
                if top.endswith((".dist-info", ".data", ".pth")) or top in ("..", "__pycache__", "bin", ""):
                    continue
                if len(first) == 1 and not top.endswith((".py", ".so", ".pyd")):
                    continue
                modules.add(top.split(".", 1)[0])
        out[canonicalize_name(name)] = (f"{name}=={meta.get('version', '?')}", modules)
    return out


# --------------------------------------------------------------------------------------------------------------
# installing


def _pip(args: Sequence[str]) -> tuple[bool, str]:
    """Run the running interpreter's pip; (succeeded, the first error line or the tail of its output)."""
    cmd = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=_PIP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, f"pip did not finish within {_PIP_TIMEOUT_S} s"
    if out.returncode == 0:
        return True, ""
    text = out.stderr + out.stdout
    errors = [ln.removeprefix("ERROR: ").strip() for ln in text.splitlines() if ln.startswith("ERROR: ")]
    return False, errors[0] if errors else (text.strip().splitlines() or [f"pip exit status {out.returncode}"])[-1]


def _install_args(target: Path, requirements: Path, dry_run: bool = False) -> list[str]:
    where = ["--dry-run", "--ignore-installed"] if dry_run else ["--target", str(target), "--no-compile"]
    return ["install", "--only-binary=:all:", "--no-warn-script-location", "--quiet", *where, "-r", str(requirements)]


def _try_lines(lines: Sequence[Line], scratch: Path, dry_run: bool) -> tuple[dict[Line, str], set[str]]:
    """Install (or resolve) every line together; when that fails, each line alone, to name the ones that fail.
    Returns the failing lines with pip's reason ({} when all install), and the modules the lines that install
    alone would provide (so a module of a good line is not blamed when another line breaks the install)."""

    def attempt(chosen: Sequence[Line], target: Path) -> tuple[bool, str]:
        req = target.with_suffix(".txt")
        req.write_text("".join(ln.text + "\n" for ln in chosen), encoding="utf-8")
        return _pip(_install_args(target, req, dry_run))

    ok, why = attempt(lines, scratch / "all")
    if ok:
        return {}, set()
    failed: dict[Line, str] = {}
    provided: set[str] = set()
    for i, line in enumerate(lines):
        alone_ok, alone_why = attempt([line], scratch / f"line{i}")
        if not alone_ok:
            failed[line] = alone_why
        elif not dry_run:
            provided.update(m for _, mods in distributions(scratch / f"line{i}").values() for m in mods)
    if not failed:  # each installs alone but not together: a conflict between lines
        failed = {lines[0]: f"the lines conflict when installed together: {why}"}
    return failed, provided


def publish(built: Path, final: Path) -> bool:
    """Move a finished folder into place; False (and ``built`` removed) when another process got there first."""
    try:
        os.rename(built, final)
        return True
    except OSError:
        if not (final / MARKER).is_file():
            raise
        shutil.rmtree(built, ignore_errors=True)
        return False


def _install(lines: Sequence[Line], folder: Path) -> tuple[str, dict[Line, str], set[str]]:
    """(installed | cached | error, failing lines, modules of the good lines when some fail): the environment
    for ``lines`` in ``folder``, built once."""
    if (folder / MARKER).is_file():
        return "cached", {}, set()
    with locked(folder.with_name(folder.name + ".lock")):  # others preparing the same environment wait
        if (folder / MARKER).is_file():
            return "cached", {}, set()
        with tempfile.TemporaryDirectory(prefix=f".{folder.name}-", dir=folder.parent) as scratch:
            failed, provided = _try_lines(lines, Path(scratch), dry_run=False)
            if failed:
                return "error", failed, provided
            built = Path(scratch) / "all"
            built.mkdir(exist_ok=True)
            info = {
                "lines": [ln.text for ln in lines],
                "python": sys.implementation.cache_tag,
                "platform": sysconfig.get_platform(),
                "pid": os.getpid(),
            }
            (built / MARKER).write_text(json.dumps(info, indent=1), encoding="utf-8")
            return ("installed" if publish(built, folder) else "cached"), {}, set()


# --------------------------------------------------------------------------------------------------------------
# the verdict


def _guess(module: str, lines: Sequence[Line]) -> list[Line]:
    """Lines whose distribution name looks like the module (python-dotenv ~ dotenv): only used when nothing
    could be installed, so no metadata says which line provides what."""
    m = _squash(module)
    return [
        ln
        for ln in lines
        if ln.name and (m == _squash(ln.name) or _squash(ln.name).endswith(m) or _squash(ln.name).startswith(m))
    ]


def _sites(sites: Sequence[ImportSite], root: Path) -> str:
    shown = ", ".join(s.where(root) for s in sites[:3])
    return shown + (f" and {len(sites) - 3} more" if len(sites) > 3 else "")


def third_party(graph: ImportGraph) -> list[str]:
    """Modules the program imports that are neither the standard library nor the stand-ins: a program without
    any runs the same in any environment, so the official one is not built for it (and no pip runs)."""
    served = set(served_by_harness())
    return sorted(
        n
        for n in graph.external
        if n not in served and n not in sys.stdlib_module_names and n not in sys.builtin_module_names
    )


def _missing(graph: ImportGraph, site_dirs: Sequence[Path], also: set[str]) -> dict[str, list[ImportSite]]:
    """External modules the reachable code imports that neither the harness nor ``site_dirs`` (nor ``also``, the
    modules of requirement lines that would install) provides."""
    path = [*map(str, site_dirs), *harness_path()]
    served = set(served_by_harness()) | also
    return {name: sites for name, sites in graph.external.items() if name not in served and not provided_by(name, path)}


@dataclass(frozen=True)
class _Failure:
    """A requirement line that would not install: the line, the file it is in (as shown), pip's reason."""

    line: Line
    file: str
    why: str

    def describe(self) -> str:
        return f"{self.line.describe(self.file)} failed: {self.why}"


def _build(
    lines: Sequence[Line], mode: str, cache_dir: Path | None
) -> tuple[str, Path | None, dict[Line, str], set[str]]:
    """(status, installed folder, failing lines, modules of the good lines) of one requirements list."""
    if not lines:
        return "none", None, {}, set()
    if mode == "install":
        folder = environments_dir(cache_dir) / environment_key(lines)
        status, failed, good = _install(lines, folder)
        return status, None if failed else folder, failed, good
    with owned_temp_dir("check") as scratch:
        failed, _ = _try_lines(lines, Path(scratch), dry_run=True)
    return "error" if failed else "checked", None, failed, set()


def prepare(
    root: Path,
    entry: Path,
    search_paths: Sequence[Path] | None = None,
    mode: str = "install",
    cache_dir: Path | None = None,
    official: Path | None = None,
    official_name: str = "official",
) -> Environment:
    """Honour the submission's requirements (``mode`` install | check | off) on top of the competition's
    ``official`` requirements file (when it names one), and check that every module the program can import is
    provided. Never raises for a participant's mistake: those are ``problems``."""
    if mode not in MODES:
        raise ValueError(f"requirements mode must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "off":
        return Environment(mode, "off")
    search = list(search_paths) if search_paths is not None else [entry.parent, root]
    req = find_requirements(root, entry)
    env = Environment(mode, "none", req)
    lines: list[Line] = []
    if req is not None:
        lines, env.skipped, env.problems = read_requirements(req)
    shown = REQUIREMENTS if req is None else Path(os.path.relpath(req, root)).as_posix()  # ../requirements.txt
    base: list[Line] = []
    failures: list[_Failure] = []
    good: set[str] = set()
    graph = reachable(entry, search, external=served_by_harness())
    if official is not None:
        env.official, env.official_name = official, official_name
        base, skipped, problems = read_requirements(official, official.name)
        env.skipped += skipped
        env.problems += problems
        env.official_status = "unneeded"
        if third_party(graph):
            env.official_status, env.official_dir, failed, good = _build(base, mode, cache_dir)
            failures += [_Failure(ln, official.name, why) for ln, why in failed.items()]
        if env.official_dir is not None:
            env.official_installed = sorted(v for v, _ in distributions(env.official_dir).values())
    env.status, env.site_dir, failed, more = _build(lines, mode, cache_dir)
    good |= more
    failures += [_Failure(ln, shown, why) for ln, why in failed.items()]
    if env.site_dir is not None:
        env.installed = sorted(v for v, _ in distributions(env.site_dir).values())
    blamed: set[_Failure] = set()
    for name, sites in sorted(_missing(graph, env.site_dirs, good).items()):
        if all(s.guarded for s in sites):
            env.notes.append(
                f"module {name!r} (imported at {_sites(sites, root)}) is not provided; the program "
                "catches the ImportError"
            )
            continue
        head = f"module {name!r} (imported at {_sites([s for s in sites if not s.guarded], root)}) is not provided: "
        env.problems.append(head + _why_missing(name, env, failures, blamed, lines, base, shown))
    env.problems += [f"{f.line.describe(f.file)} cannot be installed: {f.why}" for f in failures if f not in blamed]
    return env


def _why_missing(
    name: str,
    env: Environment,
    failures: Sequence[_Failure],
    blamed: set[_Failure],
    lines: Sequence[Line],
    base: Sequence[Line],
    shown: str,
) -> str:
    """Why module ``name`` is missing: the failed line that should have provided it, a line check mode did not
    install, or no file (or no line of it) that provides it."""
    guessed = _guess_failures(name, failures) or list(failures)
    if guessed:
        blamed.update(guessed)
        return "; ".join(f.describe() for f in guessed)
    official = env.official.name if env.official is not None else ""
    would = [(ln, shown) for ln in _guess(name, lines)] + [(ln, official) for ln in _guess(name, base)]
    if env.mode == "check" and would:
        return f"{would[0][0].describe(would[0][1])} would install it (not installed: requirements mode is check)"
    if env.mode == "check" and (lines or base):
        return f"the harness environment lacks it and {shown} is not installed (requirements mode is check)"
    dirs = env.site_dirs
    provided = sorted(m for d in dirs for _, mods in distributions(d).values() for m in mods)
    also = (
        (
            f", nor does the {env.official_name} environment ({official}: installed modules: "
            f"{', '.join(provided) or 'none'})"
        )
        if official
        else ""
    )
    if env.requirements is None:
        return f"there is no {REQUIREMENTS} beside the program, in the submission folder or its parent{also}"
    if env.site_dir is not None or official:
        return f"no line of {shown} provides it" + (also or f" (installed modules: {', '.join(provided) or 'none'})")
    return f"no line of {shown} provides it"


def _guess_failures(module: str, failures: Sequence[_Failure]) -> list[_Failure]:
    lines = set(_guess(module, [f.line for f in failures]))
    return [f for f in failures if f.line in lines]
