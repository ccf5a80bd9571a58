"""A finished run as the harness reads it back: its folder, its problem and its results document, the flat trial
rows, and the rank intervals every problem's results carry (``rank_interval: [low, high]``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pcg_plugin.core.records import trials
from pcg_plugin.core.stats import intervals
from pcg_plugin.errors import ResultsError

RESULTS_FILE = "results.json"
# results documents written before they named their problem (Science Birds' schema is older than the others)
SCHEMA_PROBLEMS = {"pytest-pcg/results/1": "science-birds"}


def problem_name(doc: Mapping[str, Any], where: str = "the document") -> str:
    name = doc.get("problem") or SCHEMA_PROBLEMS.get(str(doc.get("schema")))
    if not name:
        raise ResultsError(f"{where} names no problem (schema {doc.get('schema')!r}): not a pytest-pcg results.json")
    return str(name)


def results_path(path: Path | str) -> Path:
    """A run folder or its results.json -> the results.json (a ResultsError saying what is missing)."""
    path = Path(path)
    found = path / RESULTS_FILE if path.is_dir() else path
    if not found.is_file():
        raise ResultsError(f"{path}: no {RESULTS_FILE} (give a run folder, or a run's {RESULTS_FILE})")
    return found


@dataclass(frozen=True)
class FinishedRun:
    """A run folder read back: its results document and the problem that wrote it."""

    path: Path
    doc: dict[str, Any]
    problem: Any

    @property
    def name(self) -> str:
        return problem_name(self.doc)

    def rows(self) -> list[dict[str, Any]]:
        """The run's trial rows: ``trials.jsonl`` when the run wrote one, else made from results.json."""
        stored = self.path.parent / trials.FILE
        if stored.is_file():
            return trials.read(stored)
        return trial_rows(self.problem, self.doc)

    def scorer(self) -> intervals.Scorer:
        return lambda pick: self.problem.scores(self.doc, pick)


def read_document(found: Path, what: str = "") -> dict[str, Any]:
    """A results document (results.json, or a saved baseline: its copy), read as a JSON object; a ResultsError
    names the file (``what``: the role it plays, e.g. "baseline ") otherwise."""
    try:
        doc = json.loads(found.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ResultsError(f"{what}{found}: not readable JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise ResultsError(f"{what}{found}: not a pytest-pcg results document (a JSON {type(doc).__name__})")
    return doc


def load(path: Path | str, problem: Any = None) -> FinishedRun:
    """Read a run (its folder or results.json); ``problem``: the problem object when the caller has it."""
    from pcg_plugin.core.contract.problem import load as load_problem

    found = results_path(path)
    doc = read_document(found)
    name = problem_name(doc, str(found))
    return FinishedRun(found, doc, problem if problem is not None else load_problem(name))


def trial_rows(problem: Any, doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The problem's trial rows, priced from the run's price table where the problem recorded no cost."""
    from pcg_plugin._util import prices

    return trials.priced(problem.trial_rows(doc), prices.current())


def summary_rows(doc: Mapping[str, Any]) -> list[tuple[str, str, str | None]]:
    """Each row of a results document's ranking (``submissions[]`` or, for the games, ``leaderboard[]``) as
    (key, submission, model): ``key`` is what its scores and rank interval are keyed by, the submission's name
    or, in a several-model run, ``team @ model`` (one row per submission x model)."""
    out = []
    for row in doc.get("leaderboard") or doc.get("submissions") or []:
        name = str(row.get("submission") or row.get("name") or "")
        out.append((str(row.get("key") or name), name, row.get("model")))
    return out


def annotate(
    problem: Any,
    doc: MutableMapping[str, Any],
    submissions: Sequence[MutableMapping[str, Any]],
    name_key: str = "name",
    *,
    reps: int = intervals.RESAMPLES,
    seed: int = 0,
) -> dict[str, tuple[int, int]]:
    """Put ``rank_interval: [low, high]`` on every submission of ``doc`` (``submissions``: its list of them,
    named by ``name_key``): the problem's own ``rank_intervals``; null where none was computed (nothing to
    resample: a problem without ``scores``, or a run of one submission)."""
    found = problem.rank_intervals(doc, reps=reps, seed=seed)
    for sub in submissions:
        lo_hi = found.get(sub[name_key])
        sub["rank_interval"] = [int(lo_hi[0]), int(lo_hi[1])] if lo_hi else None
    return found
