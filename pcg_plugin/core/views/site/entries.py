"""What the site shows of each run, read once and kept in the site's manifest: a run (one problem's run folder,
a suite's member or a single run) as an index row, its model-card lines (scores with bootstrap intervals, the
costly part) and its provenance. Kept under a digest of the run's results.json and trials.jsonl, so a second
build re-reads only runs that changed."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pcg_plugin.core.contract.banner import unofficial
from pcg_plugin.core.records import trials
from pcg_plugin.core.results import card
from pcg_plugin.core.results.runs import FinishedRun


def digest(results: Path, resamples: int) -> str:
    """What a run's site entry depends on: its results document, its trial rows and the resamples asked."""
    h = hashlib.sha256(f"resamples={resamples}\n".encode())
    for path in (results, results.parent / trials.FILE):
        if path.is_file():
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


@dataclass(frozen=True)
class Entry:
    """One run of one problem, as the index lists it. ``folder``: its folder inside the site, relative to the
    site's top (``/``-separated, unquoted); ``report``: report.html's link from the top, or None."""

    problem: str
    group: str
    run_id: str
    started: str
    models: tuple[str, ...]
    submissions: int
    trials: int
    code_version: str
    banner: str | None
    folder: str
    report: str | None
    source: str

    @property
    def family(self) -> str:
        return self.problem.split("/")[0]

    @property
    def board(self) -> str:
        """The column this run fills in its family's leaderboard: a variant, or a Science Birds edition."""
        return self.problem.split("/", 1)[1] if "/" in self.problem else (self.group or self.problem)


def href(folder: str, name: str) -> str:
    """A link from the site's top to ``name`` in ``folder``: every segment percent-quoted."""
    return "/".join(quote(part, safe="") for part in [*folder.split("/"), name] if part)


def _group(doc: Mapping[str, Any]) -> str:
    edition = (doc.get("settings") or {}).get("edition")
    return f"edition {edition}" if edition else ""


def _code_version(doc: Mapping[str, Any]) -> str:
    prov = doc.get("provenance") or {}
    version = (prov.get("versions") or {}).get("pytest-pcg")
    sha = str(prov.get("git_sha") or "")[:10]
    return " ".join(p for p in (f"pytest-pcg {version}" if version else "", sha) if p) or "unknown"


def read(run: FinishedRun, folder: str, resamples: int) -> dict[str, Any]:
    """The run's entry, card lines and provenance, as JSON-ready values for the manifest."""
    c = card.card([run], reps=resamples)
    doc = run.doc
    models = tuple(dict.fromkeys(m for line in c.lines for m in line.model.split(",") if m != "-"))
    report = run.path.parent / "report.html"
    entry = Entry(
        problem=run.name,
        group=_group(doc),
        run_id=str((doc.get("run") or {}).get("id") or Path(folder).name),
        started=str((doc.get("run") or {}).get("started") or ""),
        models=models,
        submissions=len(c.lines),
        trials=sum(line.trials for line in c.lines),
        code_version=_code_version(doc),
        banner=unofficial(doc.get("settings") or {}),
        folder=folder,
        report=href(folder, report.name) if report.is_file() else None,
        source=str(run.path.parent),
    )
    provenance = [{**p, "folder": folder} for p in c.provenance]
    return {
        "entry": dataclasses.asdict(entry),
        "lines": [dataclasses.asdict(line) for line in c.lines],
        "provenance": provenance,
    }


def entry_of(stored: Mapping[str, Any]) -> Entry:
    return Entry(**{**stored["entry"], "models": tuple(stored["entry"]["models"])})


def lines_of(stored: Mapping[str, Any]) -> list[card.Line]:
    out = []
    for d in stored["lines"]:
        ri = d.get("rank_interval")
        out.append(card.Line(**{**d, "rank_interval": tuple(ri) if ri else None}))
    return out


def model_card(stored: Sequence[Mapping[str, Any]]) -> card.Card:
    """One model card over every run (``card.card`` takes loaded runs; this joins the stored lines of each)."""
    lines = [line for s in stored for line in lines_of(s)]
    models = tuple(dict.fromkeys(m for line in lines for m in line.model.split(",") if m != "-"))
    banners = tuple(dict.fromkeys(b for s in stored if (b := entry_of(s).banner)))
    return card.Card(models, tuple(lines), tuple(p for s in stored for p in s["provenance"]), banners)
