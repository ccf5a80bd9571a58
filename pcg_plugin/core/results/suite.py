"""A suite run: one pytest run over several problems (``--pcg-problem a,b`` or a pattern). Its run folder holds one
complete single-problem run folder per problem (``folder_for``), and at its top a ``results.json`` of schema
``SCHEMA`` whose ``problems`` lists each problem with its folder (relative to the run folder). Every command that
reads runs (compare, export, gate, card, site) goes through ``members`` to take a suite problem by problem and a
single run as a suite of one."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pcg_plugin.core.results.runs import RESULTS_FILE, problem_name, read_document, results_path
from pcg_plugin.errors import ResultsError

SCHEMA = "pytest-pcg/suite/1"


def folder_for(problem: str) -> str:
    """The folder, inside a suite's run folder, of one problem's run: its name with ``/`` as ``-``."""
    return problem.replace("/", "-")


def is_suite(doc: Mapping[str, Any]) -> bool:
    return doc.get("schema") == SCHEMA


def document(problems: Mapping[str, str], **extra: Any) -> dict[str, Any]:
    """The suite's top results.json: ``problems`` maps each problem to its folder (relative)."""
    return {"schema": SCHEMA, **extra, "problems": [{"problem": p, "folder": f} for p, f in problems.items()]}


def members(path: Path | str) -> list[tuple[str, Path]]:
    """(problem, its results.json) for each problem of a run: a suite's, in its order, or the one of a single run.
    A ResultsError names a suite's member that is missing."""
    found = results_path(path)
    doc = read_document(found)
    if not is_suite(doc):
        return [(problem_name(doc, str(found)), found)]
    out: list[tuple[str, Path]] = []
    for entry in doc.get("problems") or []:
        member = found.parent / str(entry["folder"]) / RESULTS_FILE
        if not member.is_file():
            raise ResultsError(f"{found}: suite member {entry['problem']} has no {member}")
        out.append((str(entry["problem"]), member))
    return out
