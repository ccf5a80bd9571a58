"""The site's own pages, rendered with jinja2 (every inserted text escaped): the index of runs with each family's
leaderboard (models x variants, or x Science Birds editions), one page per problem listing every run's
submissions, and the model card over all runs. A page is written only when its text changed, so a rebuild leaves
the others' files (inode, modification time) as they were."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.numbers import fixed
from pcg_plugin.core.results import card
from pcg_plugin.core.results.suite import folder_for
from pcg_plugin.core.stats import intervals
from pcg_plugin.core.views.site.entries import Entry, entry_of, lines_of, model_card
from pcg_plugin.core.views.viewer import SCRIPT

STYLE = """body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1280px;padding:16px 24px;color:#1b1f24}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:right}
th{background:#f6f8fa;text-align:left}td.l{text-align:left}.meta{color:#57606a}
.warn{background:#fff4ce;border:1px solid #d4a72c;border-radius:6px;padding:8px 12px;margin:10px 0;font-weight:600}
.unofficial,.tag{color:#9a6700;font-size:12px}.tag{border:1px solid #d4a72c;border-radius:4px;padding:0 3px}
table.runs td{vertical-align:top}.nw{white-space:nowrap}table.runs{width:100%}table.runs td:last-child{min-width:250px}
"""


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` unless the file already holds it; True when written."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (FileNotFoundError, UnicodeDecodeError):
        pass
    atomic_write(path, text)
    return True


def board_path(problem: str) -> str:
    """A problem's page, relative to the site's top."""
    return f"problems/{folder_for(problem)}.html"


def _render(name: str, **values: Any) -> str:
    import jinja2
    from markupsafe import Markup

    from pcg_plugin._util.paths import template_source

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return str(env.from_string(template_source(name)).render(script=Markup(SCRIPT), **values))


def _num(v: float | None, line: card.Line) -> str:
    """A score of ``line`` at its problem's places (never a 0 for one that is not)."""
    return fixed(v, line.places)


def _newest_first(entries: Sequence[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (e.started, e.run_id), reverse=True)


def family_tables(stored: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per family, rows = models, columns = boards (variants or editions): the best submission's score of each
    model in the newest run of that board."""
    entries = [entry_of(s) for s in stored]
    out = []
    for fam in sorted({e.family for e in entries}):
        mine = [(e, s) for e, s in zip(entries, stored, strict=True) if e.family == fam]
        boards = sorted({e.board for e, _ in mine})
        models = sorted({line.model for _, s in mine for line in lines_of(s)})
        cells: dict[tuple[str, str], dict[str, Any]] = {}
        for board in boards:
            taken: set[str] = set()
            for e, s in sorted(((e, s) for e, s in mine if e.board == board), key=lambda p: p[0].started, reverse=True):
                best: dict[str, card.Line] = {}
                for line in lines_of(s):
                    if line.model in taken or line.score is None:
                        continue
                    if line.model not in best or line.score > (best[line.model].score or 0):
                        best[line.model] = line
                for model, line in best.items():
                    cells[model, board] = {
                        "score": _num(line.score, line),
                        "title": f"{line.submission} in run {e.run_id} ({e.started})",
                        "banner": e.banner,
                    }
                taken |= set(best)
        column = "edition" if any(e.group for e, _ in mine) and "/" not in mine[0][0].problem else "variant"
        out.append(
            {
                "name": fam,
                "column": column,
                "columns": [
                    {"label": b, "href": board_path(next(e.problem for e, _ in mine if e.board == b))} for b in boards
                ],
                "rows": [{"model": m, "cells": [cells.get((m, b)) for b in boards]} for m in models],
            }
        )
    return out


def index(stored: Sequence[dict[str, Any]], title: str) -> str:
    entries = _newest_first([entry_of(s) for s in stored])
    return _render(
        "site_index.html.j2",
        title=title,
        entries=[{**e.__dict__, "board_href": board_path(e.problem)} for e in entries],
        problems=sorted({e.problem for e in entries}),
        total_trials=sum(e.trials for e in entries),
        unofficial=sum(1 for e in entries if e.banner),
        families=family_tables(stored),
    )


def board(problem: str, stored: Sequence[dict[str, Any]]) -> str:
    """Every submission of every run of ``problem``."""
    rows = []
    pairs = [(entry_of(s), s) for s in stored if entry_of(s).problem == problem]
    for e, s in sorted(pairs, key=lambda p: (p[0].group, p[0].started, p[0].run_id), reverse=True):
        for line in sorted(lines_of(s), key=lambda ln: (ln.rank is None, ln.rank or 0, ln.submission)):
            rows.append(
                {
                    "group": e.group,
                    "run": f"{e.started[:16].replace('T', ' ')} {e.run_id}".strip(),
                    "report": e.report,
                    "submission": line.submission,
                    "model": line.model,
                    "score": _num(line.score, line),
                    "interval": "-" if line.low is None else f"[{_num(line.low, line)}, {_num(line.high, line)}]",
                    "rank": "-" if line.rank is None else str(line.rank),
                    "rank_interval": intervals.rank_text(line.rank_interval),
                    "trials": line.trials,
                    "banner": e.banner,
                }
            )
    return _render(
        "site_board.html.j2",
        problem=problem,
        rows=rows,
        grouped=any(e.group for e, _ in pairs),
        runs=len(pairs),
        unofficial=sum(1 for e, _ in pairs if e.banner),
    )


def write_all(out: Path, stored: Sequence[dict[str, Any]], title: str) -> list[str]:
    """Every page of the site (index, stylesheet, model card, one page per problem); the ones written."""
    pages = {"index.html": index(stored, title), "site.css": STYLE, "card.html": card_page(stored)}
    for problem in sorted({entry_of(s).problem for s in stored}):
        pages[board_path(problem)] = board(problem, stored)
    (out / "problems").mkdir(parents=True, exist_ok=True)
    for stale in (out / "problems").glob("*.html"):
        if f"problems/{stale.name}" not in pages:
            stale.unlink()
    return [rel for rel, text in pages.items() if write_if_changed(out / rel, text)]


def card_page(stored: Sequence[dict[str, Any]]) -> str:
    """The model card over every run, with a way back to the index."""
    page = card.html_page(model_card(stored))
    back = '<p class=meta><a href="index.html">All runs</a></p>'
    at = page.find("<body>") + len("<body>")
    return page[:at] + back + page[at:]
