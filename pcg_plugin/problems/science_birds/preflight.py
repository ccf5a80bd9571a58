"""Pre-flight: every folder a run was given, what it is and how it will run, before any model is paid.

An organizer who unzips N teams must see N rows: each folder is a submission (format, entry, working folder,
requirements, rule verdict), a visible error (why it is not evaluated), or skipped (a folder the official
runner never treats as a team). The walk mirrors collection (``collect.folder_role``/``detect_folder``), so a
folder listed here as an error is also a failing item of the run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pcg_plugin._util.names import shown
from pcg_plugin.core.inputs import zips
from pcg_plugin.core.inputs.folders import SKIP_NAMES
from pcg_plugin.problems.science_birds import submissions as collect

if TYPE_CHECKING:
    from pcg_plugin.sandbox.environments import Environment


_ZIP_LIMITS = zips.ZipLimits()  # frozen: one instance is the default of every call


@dataclass(frozen=True)
class FolderRow:
    """One line of the pre-flight table (and of ``results.json`` ``folders``)."""

    folder: str
    status: str  # "submission" | "error" | "skipped"
    format: str = ""
    entry: str = ""  # relative to the folder
    workdir: str = ""  # relative to the folder; "." is the folder itself
    requirements: str = ""
    rules: str = ""
    message: str = ""
    environment: str = ""  # which environment the program runs in: "official 2024", "official 2024 + own ..."

    def __post_init__(self) -> None:
        for key, value in asdict(self).items():  # text: a name that is not UTF-8 shown escaped
            object.__setattr__(self, key, shown(value))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _children(container: Path) -> Iterator[Path]:
    for child in sorted(container.iterdir()):
        if child.name.startswith("."):
            continue  # .git, .venv, .env.example: never a team
        if child.is_dir() or collect.is_prompt_name(child) or zips.is_zip(child):
            yield child


def targets(roots: Iterable[Path], *, require_placeholder: bool = True) -> list[Path]:
    """The folders and loose prompt files that collection turns into submissions or visible errors."""
    roots = [Path(r).resolve() for r in roots]
    out: list[Path] = []
    for root in roots:
        if root.is_file():
            if collect.is_prompt_name(root) or zips.is_zip(root):
                out.append(root)
            continue
        if not root.is_dir():
            continue
        role = collect.folder_role(root, roots, require_placeholder=require_placeholder)
        if role == "submission":
            out.append(root)
        elif role == "container":
            out.extend(_children(root))
        elif (root / collect.SUBMISSIONS_DIR).is_dir():  # a project folder: its submissions/
            out.extend(_children(root / collect.SUBMISSIONS_DIR))
    return list(dict.fromkeys(out))


def detect(
    path: Path, *, require_placeholder: bool = True, limits: zips.ZipLimits = _ZIP_LIMITS
) -> tuple[collect.Submission | None, str]:
    """The submission at ``path``, or None and why it is not evaluated (skipped names say so too); a zip is
    the folder it unpacks to (``zips``)."""
    if path.name in SKIP_NAMES:
        return None, "skipped: the official runner never treats this folder as a team"
    if zips.is_zip(path):
        try:
            folder = zips.unpacked(path, limits)
        except zips.ZipRefused as exc:
            return None, str(exc)
        sub, problem = detect(folder, require_placeholder=require_placeholder)
        return sub, problem if not problem or problem.startswith(str(path)) else f"{path}: {problem}"
    try:
        if path.is_file():
            sub = collect.detect_prompt_file(path, require_placeholder=require_placeholder)
            return sub, "" if sub else collect.not_a_prompt(path)
        sub = collect.detect_folder(path, require_placeholder=require_placeholder)
        return sub, "" if sub else collect.not_a_submission(path)
    except collect.SubmissionError as exc:
        return None, str(exc)
    except OSError as exc:
        return None, f"{path}: cannot be read ({exc})"


def environment(sub: collect.Submission, mode: str) -> Environment:
    """The program's environment (``mode``: install | check | off): its edition's official environment, the
    organizers' requirements every entry ran with, and its own requirements on top."""
    from pcg_plugin.problems.science_birds.editions import edition
    from pcg_plugin.sandbox import environments

    year = sub.format.rsplit("-", 1)[1]
    return environments.prepare(
        sub.path,
        sub.entry,
        sub.import_paths,
        mode=mode,
        official=edition(year).requirements,
        official_name=f"official {year}",
    )


def rule_verdict(sub: collect.Submission) -> str:
    """``pass`` or ``FAIL <rules>`` from the participant rule checks (``pcg rules``), for the table."""
    from pcg_plugin.problems.science_birds.rules import checks as rules

    try:
        if sub.format == "prompt-2023":
            results = rules.check_prompt(rules.read_prompt(sub.entry), str(sub.entry))
        else:
            results = rules.check_program(sub.entry, sub.format.rsplit("-", 1)[1], scope=sub.path)
    except OSError as exc:
        return f"FAIL cannot read: {exc}"
    failed = [r.rule for r in results if r.status == "fail"]  # a rule not run is named by the one that stopped it
    warned = sum(len(r.warnings) for r in results)
    if failed:
        return "FAIL " + ", ".join(failed)
    return f"pass ({warned} warning(s): pcg rules shows them)" if warned else "pass"


def _rel(path: Path, folder: Path) -> str:
    try:
        return path.relative_to(folder).as_posix() or "."
    except ValueError:
        return str(path)


def row_for(
    path: Path,
    sub: collect.Submission | None,
    problem: str,
    *,
    display: str,
    rules: str = "",
    requirements: str = "",
    problems: Sequence[str] = (),
    environment: str = "",
) -> FolderRow:
    """``problems``: why the submission's items will error (its requirements), shown under its row. A folder
    that is not evaluated always says why; its own path in the reason is shown as ``display``."""
    if sub is None:
        status = "skipped" if problem.startswith("skipped") else "error"
        for shown in (str(path), str(path.resolve())):
            if problem.startswith(shown):
                problem = display + problem[len(shown) :]
                break
        return FolderRow(display, status, message=problem or "not a submission (no reason was given)")
    folder = sub.path if sub.path.is_dir() else sub.path.parent
    workdir = _rel(sub.run_folder, folder) if sub.format != "prompt-2023" else ""
    message = "; ".join([sub.note] * bool(sub.note) + [f"WILL ERROR: {p}" for p in problems])
    return FolderRow(
        display,
        "submission",
        sub.format,
        _rel(sub.entry, folder),
        workdir,
        requirements,
        rules,
        message=message,
        environment=environment,
    )


def display_name(path: Path, base: Path, roots: Sequence[Path] = ()) -> str:
    """``path`` relative to ``base`` (where pytest was started) when inside it; else (or when it is ``base``
    itself) relative to the parent of the root it was found under (``2024-pe-examples/few_shot`` for
    ``pytest /elsewhere/2024-pe-examples``); else absolute."""
    path = path.resolve()
    anchors = [base.resolve(), *(r.resolve().parent for r in roots if r.resolve() in (path, *path.parents))]
    for anchor in anchors:
        if anchor in path.parents:
            return path.relative_to(anchor).as_posix()
    return str(path)


CELL = 40  # the widest a column gets; a longer cell ends in "..." and its full text follows the row


def _fit(cell: str, width: int) -> str:
    return cell if len(cell) <= width else cell[: width - 3] + "..."


def table(rows: Sequence[FolderRow]) -> list[str]:
    """The terminal table: one line per folder; under it, the full text of each cell too wide for its column,
    then the row's message (why a folder is not evaluated, what will error); then a count line."""
    cols = ("folder", "status", "format", "entry", "workdir", "environment", "requirements", "rules")
    data = [[getattr(r, c) or "-" for c in cols] for r in rows]
    widths = [min(max(len(c), *(len(d[i]) for d in data)), CELL) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)).rstrip()]
    for row, cells in zip(rows, data, strict=True):
        lines.append("  ".join(_fit(cell, w).ljust(w) for cell, w in zip(cells, widths, strict=True)).rstrip())
        lines += [f"    {col}: {cell}" for col, cell, w in zip(cols, cells, widths, strict=True) if len(cell) > w]
        if row.message:
            lines.append(f"    {row.message}")
    counts = {s: sum(r.status == s for r in rows) for s in ("submission", "error", "skipped")}
    lines.append(
        f"pre-flight: {len(rows)} folder(s): {counts['submission']} submission(s), "
        f"{counts['error']} not evaluated, {counts['skipped']} skipped"
    )
    return lines
