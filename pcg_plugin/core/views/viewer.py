"""The report as the run's viewer, for every problem: after the problem writes its report.html, the harness adds
the charts, a table of every trial (sortable, filterable by submission, target, model and zero reason) whose rows
link to the trial's page (``trials/view.html?<id>``, showing the transcript the process that ran the trial
wrote), and the small script that sorts and filters (every ``table.pcg-sort`` of the page: the problem's
leaderboard too). One file that works from ``file:``; nothing is fetched until a trial page is opened. A link
may carry a view of the table: ``report.html#trials?zero reason=no_code&submission=team_a&sort=-score`` (filters
by the columns' names, ``text=`` for the search box, ``sort=`` a column, ``-`` for descending)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin.core.records import transcript, trials
from pcg_plugin.core.records.calls import Totals
from pcg_plugin.core.views import charts

MARK = "<!-- pcg-viewer -->"  # the added part starts here (a report written again is not given it twice)

# a line that ends in a backslash goes on in the same line of the page
SCRIPT = """<script>(function(){
function key(td){var t=td.textContent.trim(),n=parseFloat(t);\
return t!==''&&isFinite(n)&&/^[-+0-9.e]+$/i.test(t)?n:t.toLowerCase()}
document.querySelectorAll('table.pcg-sort').forEach(function(tb){
 var head=tb.tHead?tb.tHead.rows[0]:tb.rows[0];
 Array.prototype.forEach.call(head.cells,function(th,i){th.style.cursor='pointer';th.title='sort';
  th.addEventListener('click',function(){var body=tb.tBodies[0],rows=Array.prototype.slice.call(body.rows);
   if(rows[0]===head)rows.shift();var dir=th.dataset.dir==='a'?-1:1;th.dataset.dir=dir>0?'a':'d';
   rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);
    if(typeof x!==typeof y)return(typeof x==='number'?-1:1)*dir;return(x<y?-1:x>y?1:0)*dir});
   rows.forEach(function(r){body.appendChild(r)})})})});
var f=document.getElementById('pcg-filter');if(!f)return;
var tb=document.getElementById('pcg-trials'),sel=f.querySelectorAll('select'),q=f.querySelector('input'),
 out=document.getElementById('pcg-shown');
function apply(){var n=0,text=q.value.toLowerCase();Array.prototype.forEach.call(tb.tBodies[0].rows,function(r){
  var ok=Array.prototype.every.call(sel,function(s){return!s.value||r.cells[+s.dataset.col].textContent===s.value});
  ok=ok&&(!text||r.textContent.toLowerCase().indexOf(text)>=0);r.hidden=!ok;if(ok)n++});out.textContent=n}
f.addEventListener('input',apply);f.addEventListener('change',apply);
var h=decodeURIComponent(location.hash);if(h.indexOf('#trials?')===0){h.slice(8).split('&').forEach(function(kv){
 var p=kv.split('='),k=p[0],v=p.slice(1).join('=');Array.prototype.forEach.call(sel,function(s){
  if(s.previousSibling&&s.previousSibling.textContent.trim()===k)s.value=v});if(k==='text')q.value=v;
 if(k==='sort'){\
var th=Array.prototype.filter.call(tb.tHead.rows[0].cells,function(c){return c.textContent===v.replace(/^-/,'')})[0];
  if(th){th.click();if(v[0]==='-')th.click()}}});apply();document.getElementById('pcg-trials-title').scrollIntoView()}
})();</script>"""

STYLE = """<style>.pcg-viewer .pcg-chart{display:block;margin:6px 0 14px;max-width:100%;height:auto}
.pcg-viewer table{font-size:13px}.pcg-viewer td{text-align:right}.pcg-viewer td.l{text-align:left}
#pcg-filter{margin:6px 0}#pcg-filter select,#pcg-filter input{margin-right:8px}table.pcg-sort th{cursor:pointer}
</style>"""

COLUMNS = ("submission", "target", "trial", "model", "score", "zero reason", "calls", "replayed", "tokens")
FILTERED = ("submission", "target", "model", "zero reason")
# the header's hover text: the score column is the one pcg export and pcg show (its --json) call score
SCORE_TITLE = "the trial's score as trials.jsonl, pcg export and pcg show give it (hover a cell for all digits)"


def exported(run_dir: Path) -> dict[Any, Mapping[str, Any]]:
    """``trials.jsonl``'s rows (none when the run wrote none) by node id where a row names it, and by
    (submission, target, trial, model): the model that answered and the score every other output names
    ``score``, so that the table says the same as ``pcg export``."""
    path = Path(run_dir) / trials.FILE
    out: dict[Any, Mapping[str, Any]] = {}
    for r in trials.read(path) if path.is_file() else ():
        if r.get("nodeid"):
            out[str(r["nodeid"])] = r
        out[(r.get("submission"), str(r.get("target")), r.get("trial"), r.get("model"))] = r
        out.setdefault((r.get("submission"), str(r.get("target")), r.get("trial"), None), r)
    return out


def rows(
    collected: Any,
    problem: Any,
    totals: Mapping[str, Totals],
    label: str,
    written: Mapping[Any, Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """One row per item that ran (records, and errored items without one), in node-id order. ``written``: the
    run's trials.jsonl rows by node id, whose model and score win (the item knows its model only when the run
    had several, and Science Birds' weighted trial score only exists once the run is scored)."""
    out = []
    written = written or {}
    for nodeid in sorted(set(collected.items) | set(collected.records)):
        meta = collected.items.get(nodeid, {})
        record = collected.records.get(nodeid)
        error = collected.errors.get(nodeid)
        reason = getattr(record, "reason", None) if record is not None else ("error" if error else None)
        t = totals.get(nodeid, Totals())
        key = (meta.get("name"), str(meta.get(label, meta.get("target"))), meta.get("trial"), meta.get("model"))
        row = written.get(nodeid) or written.get(key) or {}
        score = row["score"] if "score" in row else (problem.trial_score(record) if record is not None else None)
        if reason == "error":  # an errored item has no score of its own (the scorer counts it as missing)
            score = None
        out.append(
            {
                "nodeid": nodeid,
                "submission": meta.get("name", nodeid.split("::")[0]),
                "target": meta.get(label, meta.get("target")),
                "trial": meta.get("trial"),
                "model": meta.get("model") or getattr(record, "model", None) or row.get("model") or "",
                "score": score,
                "reason": reason,
                "error": error,
                "calls": t.calls,
                "replayed": t.replayed,
                "tokens": t.prompt_tokens + t.completion_tokens,
            }
        )
    return out


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return escape(str(value))


def _score_cell(value: Any) -> str:
    """Rounded for reading, every digit in the hover text (the number is the exported one)."""
    if isinstance(value, float):
        return f'<td title="{value!r}">{value:.4g}'
    return f"<td>{_cell(value)}"


def section(trials: Sequence[Mapping[str, Any]], targets: Sequence[str]) -> str:
    """Charts, the filter and the trials table, and the script; as HTML to put before ``</body>``."""
    scores = [r["score"] for r in trials if r["score"] is not None and math.isfinite(r["score"])]
    parts = [MARK, STYLE, '<section class="pcg-viewer"><h2 id="pcg-charts">Charts</h2>']
    chart = charts.by_target(trials, targets)
    if chart:
        parts += ["<h3>Mean trial score per target</h3>", chart]
    chart = charts.histogram(scores)
    if chart:
        parts += [f"<h3>Trial scores ({len(scores)} trials with a score)</h3>", chart]
    chart = charts.reasons(trials)
    if chart:
        parts += ["<h3>Why trials scored zero (or errored)</h3>", chart]
    if len(parts) == 3:
        parts.append('<p class="meta">No trial has a score to chart.</p>')
    parts.append(f'<h2 id="pcg-trials-title">Trials (<span id="pcg-shown">{len(trials)}</span> of {len(trials)})</h2>')
    parts.append('<form id="pcg-filter" onsubmit="return false">')
    for name in FILTERED:
        col = COLUMNS.index(name)
        values = sorted({_cell(r[_key(name)]) for r in trials} - {""})
        if values:
            opts = "".join(f"<option>{v}</option>" for v in values)
            parts.append(f'<label>{name} <select data-col="{col}"><option value="">all</option>{opts}</select></label>')
    parts.append('<input type="search" placeholder="text in the row"></form>')
    parts.append(
        '<table class="pcg-sort" id="pcg-trials"><thead><tr>'
        + "".join(f'<th title="{SCORE_TITLE}">{c}</th>' if c == "score" else f"<th>{c}</th>" for c in COLUMNS)
        + "<th>transcript</th></tr></thead><tbody>"
    )
    for r in trials:
        why = f' title="{escape(r["error"])}"' if r.get("error") else ""
        parts.append(
            f'<tr><td class="l">{_cell(r["submission"])}<td class="l">{_cell(r["target"])}<td>'
            f'{_cell(r["trial"])}<td class="l">{_cell(r["model"])}{_score_cell(r["score"])}<td class="l"{why}>'
            f'{_cell(r["reason"])}<td>{r["calls"]}<td>{r["replayed"]}<td>{r["tokens"]}<td class="l">'
            f'<a href="{transcript.page_rel(r["nodeid"])}">view</a>'
        )
    parts += ["</tbody></table></section>", SCRIPT]
    return "\n".join(parts) + "\n"


def _key(column: str) -> str:
    return "reason" if column == "zero reason" else column


def attach(report: Path, html: str) -> Path:
    """Put the viewer's part at the end of the report's body (replacing one added before)."""
    page = report.read_text(encoding="utf-8")
    if MARK in page:
        start, end = page.index(MARK), page.rfind("</body>")
        page = page[:start] + (page[end:] if end > start else "")
    at = page.rfind("</body>")
    page = page[:at] + html + page[at:] if at >= 0 else page + html
    return atomic_write(report, page)


def add_to_report(
    report: Path | None,
    run_dir: Path,
    collected: Any,
    problem: Any,
    totals: Mapping[str, Totals],
    targets: Sequence[str],
) -> None:
    """The end of the run: the trial pages' stylesheet, each stored transcript given its trial's exported score
    and model (``transcript.restamp``), and the viewer's part of report.html."""
    transcript.write_style(run_dir)
    path = Path(run_dir) / trials.FILE
    transcript.restamp(run_dir, trials.read(path) if path.is_file() else [])
    if report is None or not Path(report).is_file():
        return
    written = exported(run_dir)
    attach(Path(report), section(rows(collected, problem, totals, problem.target_label, written), targets))
