"""The comparison of two runs as one page (``pcg compare A B -o compare.html``, and the page a failing gate writes
into its run folder): per pair and target both scores, B - A with its interval and DROP/RISE as in the JSON; the
trials whose outcome changed in a table sorted and filtered as the report's, each row linking to the trial's page
in both runs' viewers and showing both outcomes (level image, grid, summary) side by side.

Self-contained: one file, its script and style inline, opened from ``file:``. Every link is relative to the
page's folder (a run folder copied with the page beside it keeps them); every text the runs hold goes in escaped
(the template autoescapes)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.numbers import fixed, interval
from pcg_plugin.core.records import transcript
from pcg_plugin.core.results.compare import Comparison, TrialChange, flag, trial_cause

TEMPLATE = "compare.html.j2"


def _rel(target: Path, page_dir: Path) -> str:
    """``target`` (a folder) as a URL relative to the page's folder, ending in ``/`` (empty: the same folder;
    each path component percent-quoted)."""
    rel = Path(os.path.relpath(target.resolve(), page_dir.resolve())).as_posix()
    return "" if rel == "." else "/".join(quote(part) for part in rel.split("/")) + "/"


class Trials:
    """One run's trial pages: which page (``trials/view.html?<id>``) and what outcome a trial row has."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.folder = run_dir / transcript.FOLDER
        self.has_pages = (self.folder / transcript.VIEW).is_file()
        self._index: dict[tuple[str, str, int], list[tuple[str, dict[str, Any]]]] | None = None

    def _all(self) -> dict[tuple[str, str, int], list[tuple[str, dict[str, Any]]]]:
        if self._index is None:
            self._index = {}
            for path in sorted(self.folder.glob("*.js")) if self.folder.is_dir() else ():
                try:
                    doc = transcript.load(path)
                except (OSError, ValueError, KeyError, IndexError):
                    continue  # not a trial's transcript (or a damaged one): that trial gets no link
                key = (str(doc.get("submission")), str(doc.get("target")), int(doc.get("trial") or 0))
                self._index.setdefault(key, []).append((path.stem, doc))
        return self._index

    def find(self, row: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """(trial id, transcript) of a trial row (None: the run kept no page of it)."""
        if not self.has_pages:
            return None
        if row.get("nodeid"):
            tid = transcript.trial_id(str(row["nodeid"]))
            path = self.folder / f"{tid}.js"
            if path.is_file():
                try:
                    return tid, transcript.load(path)
                except (OSError, ValueError, KeyError, IndexError):
                    return None
        found = self._all().get((str(row["submission"]), str(row["target"]), int(row["trial"])), [])
        model = row.get("model")
        same = [f for f in found if f[1].get("model") in (None, model)]
        return (same or found)[0] if found else None


def outcome(doc: Mapping[str, Any], run_url: str) -> dict[str, Any]:
    """What a trial ended with, for the side-by-side cell: its summary, and the last state that has an image or a
    grid (else the last state): its title, lines, grid and image (a URL relative to the page)."""
    states = [s for s in doc.get("states") or () if isinstance(s, Mapping)]
    shown = [s for s in states if s.get("image") or s.get("grid")] or states
    state = shown[0] if shown and shown[0].get("image") else (shown[-1] if shown else {})
    image = state.get("image")
    return {
        "summary": str(doc.get("summary") or ""),
        "error": str(doc.get("error") or ""),
        "title": str(state.get("title") or ""),
        "lines": [str(x) for x in state.get("lines") or ()],
        "grid": [[str(c) for c in row] for row in state.get("grid") or ()],
        "image": f"{run_url}{quote(str(image))}" if image else None,
    }


NOT_IN_RUN = "not in this run"  # the page's word for a trial only the other run has: no trial's zero reason


class Side:
    """One run's side of the changed trials: its trial pages, their URL from the page, its problem (which names
    the cause of a zero) and the places its scores are shown with."""

    def __init__(self, trials: Trials, url: str, problem: Any, places: int) -> None:
        self.trials, self.url, self.problem, self.places = trials, url, problem, places

    def cell(self, row: Mapping[str, Any] | None) -> dict[str, Any]:
        if row is None:
            return {"score": "", "reason": NOT_IN_RUN, "link": None, "outcome": None}
        found = self.trials.find(row)
        link = f"{self.url}{transcript.FOLDER}/{transcript.VIEW}?{found[0]}" if found else None
        return {
            "score": fixed(row.get("score"), self.places, missing=""),
            "reason": trial_cause(self.problem, row) or "",
            "link": link,
            "outcome": outcome(found[1], self.url) if found else None,
        }


def _change(c: TrialChange, a: Side, b: Side) -> dict[str, Any]:
    return {
        "pair": c.pair,
        "target": c.target,
        "trial": c.trial,
        "kind": c.kind,
        "noise": fixed(c.noise, a.places),
        "a": a.cell(c.a),
        "b": b.cell(c.b),
    }


def section(c: Comparison, page_dir: Path, index: int) -> dict[str, Any]:
    """One problem's part of the page, as the template reads it."""
    run_a, run_b = c.runs
    dir_a = run_a.path.parent if run_a is not None else Path(c.run_a)
    dir_b = run_b.path.parent if run_b is not None else Path(c.run_b)
    url_a, url_b = _rel(dir_a, page_dir), _rel(dir_b, page_dir)
    ta, tb = Trials(dir_a), Trials(dir_b)
    n = c.places
    pairs = []
    for p in c.pairs:
        pairs.append(
            {
                "label": p.label,
                "a": fixed(p.a, n),
                "b": fixed(p.b, n),
                "difference": fixed(p.difference, n, sign=True),
                "interval": interval(p.low, p.high, n),
                "flag": flag(p.difference, p.low, p.high),
                "why": p.why(),
                "targets": [
                    {
                        "target": t.target,
                        "a": fixed(t.a, n, missing=""),
                        "b": fixed(t.b, n, missing=""),
                        "difference": fixed(t.difference, n, sign=True, missing=""),
                        "interval": interval(t.low, t.high, n),
                        "flag": flag(t.difference, t.low, t.high) if t.difference is not None else "",
                    }
                    for t in p.targets
                ],
            }
        )
    side_a = Side(ta, url_a, run_a.problem if run_a is not None else None, n)
    side_b = Side(tb, url_b, run_b.problem if run_b is not None else None, n)
    changes = [_change(ch, side_a, side_b) for ch in c.changes]
    return {
        "id": f"p{index}",
        "problem": c.problem,
        "score": c.score,
        "pair_by": c.pair_by,
        "target_label": c.target_label,
        "run_a": c.run_a,
        "run_b": c.run_b,
        "report_a": f"{url_a}report.html" if (dir_a / "report.html").is_file() else None,
        "report_b": f"{url_b}report.html" if (dir_b / "report.html").is_file() else None,
        "pairs": pairs,
        "only_a": list(c.only_a),
        "only_b": list(c.only_b),
        "changes": changes,
        "filters": {
            "pair": sorted({ch["pair"] for ch in changes}),
            c.target_label: sorted({ch["target"] for ch in changes}),
            "change": sorted({ch["kind"] for ch in changes}),
        },
        "resamples": c.resamples,
        "places": c.places,
        "unlike": list(c.unlike),
        "pages_a": ta.has_pages,
        "pages_b": tb.has_pages,
    }


def render(
    found: Sequence[Comparison], page_dir: Path, *, only_a: Sequence[str] = (), only_b: Sequence[str] = ()
) -> str:
    import jinja2

    from pcg_plugin._util.paths import template_source

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    sections = [section(c, page_dir, i) for i, c in enumerate(found)]
    return env.from_string(template_source(TEMPLATE)).render(
        sections=sections, only_a=list(only_a), only_b=list(only_b)
    )


def write(
    path: Path | str, found: Sequence[Comparison], *, only_a: Sequence[str] = (), only_b: Sequence[str] = ()
) -> Path:
    """Write the page to ``path`` (its links relative to the folder it is in); its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, render(found, path.parent, only_a=only_a, only_b=only_b))
