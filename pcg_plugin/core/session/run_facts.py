"""What the harness says of a whole run, beside what its problem scored: keys it adds to ``results.json`` (the
spending cap's ``cost_cap``, ``not_run``, ``interrupted``, ``retries``, ``in_flight``), the model calls tried again
by cause (the terminal summary and the report say how many and how long they waited), and a third party's warning that a
run repeats on every call (an SDK's ``DeprecationWarning``) shown once."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FACTS_MARK = "<!-- pcg-run-facts -->"


def with_facts(run_dir: Path, results: dict[str, Any], facts: Mapping[str, Any]) -> dict[str, Any]:
    """results.json, as the problem wrote it, with ``facts`` added at its end (every problem's document, the same
    keys); the results with them too."""
    from pcg_plugin._util.atomic import atomic_write

    path = run_dir / "results.json"
    if not facts or not path.is_file():
        return results
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc.update(facts)
    atomic_write(path, json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    return {**results, **facts}


def add_waits(total: dict[str, list[float]], one: Mapping[str, Any]) -> None:
    """One trial's ``{cause: [tries again, seconds]}`` (``calls.wait_counts``) added into the run's."""
    for cause, (count, seconds) in one.items():
        entry = total.setdefault(str(cause), [0, 0.0])
        entry[0] += int(count)
        entry[1] = round(entry[1] + float(seconds), 3)


def retries_doc(waits: Mapping[str, list[float]]) -> dict[str, Any]:
    """``results.json``'s ``retries``: the model calls tried again in the run, in all and by cause (most first),
    with the seconds waited before trying again."""
    by_cause = sorted(waits.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return {
        "count": int(sum(c for c, _ in waits.values())),
        "seconds_waited": round(sum(s for _, s in waits.values()), 1),
        "by_cause": {cause: {"count": int(c), "seconds_waited": round(s, 1)} for cause, (c, s) in by_cause},
    }


def retries_line(doc: Mapping[str, Any] | None) -> str | None:
    """``model calls tried again: 24 (529 overloaded: 12, 429 rate limited: 12), 31.4 s waited before trying
    again``; None when no call was."""
    if not doc or not doc.get("count"):
        return None
    causes = ", ".join(f"{cause}: {v['count']}" for cause, v in doc["by_cause"].items())
    return (
        f"model calls tried again: {doc['count']} ({causes}), {doc['seconds_waited']:g} s waited before trying "
        "again (results.json: retries)"
    )


def with_fact_lines(page: str, lines: list[str]) -> str:
    """A report with the harness's plain facts of the run (the retries) in a box at the top of its body, after
    its notices."""
    if not lines:
        return page
    style = "margin:8px 0;padding:6px 12px;border:1px solid #999;background:#f4f4f4;color:#222"
    block = FACTS_MARK + "".join(f'<div class="pcg-run-fact" style="{style}">{html.escape(x)}</div>' for x in lines)
    from pcg_plugin.core.contract.banner import NOTICE_MARK

    at = page.find(NOTICE_MARK)
    if at >= 0:  # after the notices (each a <div>): before the first tag that is none of theirs
        end = at + len(NOTICE_MARK)
        while page.startswith('<div class="pcg-notice"', end):
            end = page.index("</div>", end) + len("</div>")
        return page[:end] + block + page[end:]
    at = page.find("<body")
    end = page.find(">", at) + 1 if at >= 0 else 0
    return page[:end] + block + page[end:]


def collapse_repeated_warnings(reporter: Any, rootdir: Path) -> None:
    """A third party's warning raised again on every model call (an SDK's ``DeprecationWarning: The model ... is
    deprecated``) says nothing about one trial: pytest's warnings summary shows it once, saying how many times
    it came, rather than once per call. A warning from the project, a submission or the harness is left as it
    is (each says something of its own trial)."""
    stats = getattr(reporter, "stats", None)
    if not isinstance(stats, dict) or not stats.get("warnings"):
        return
    kept: list[Any] = []
    first: dict[str, Any] = {}
    times: dict[str, int] = {}
    for report in stats["warnings"]:
        where = (getattr(report, "fslocation", None) or ("",))[0]
        if not _third_party(str(where), rootdir):
            kept.append(report)
            continue
        message = str(report.message)
        times[message] = times.get(message, 0) + 1
        if message not in first:
            first[message] = report
            kept.append(report)
    for message, report in first.items():
        if times[message] > 1:
            report.message = f"{message.rstrip()}\n(raised {times[message]} times in this run: shown once)"
            report.nodeid = None  # not one trial's
    stats["warnings"] = kept


def _third_party(filename: str, rootdir: Path) -> bool:
    """A file of an installed package (site-packages), not of the harness or under the rootdir."""
    path = Path(filename)
    parts = set(path.parts)
    if not ({"site-packages", "dist-packages"} & parts) or "pcg_plugin" in parts:
        return False
    try:
        path.resolve().relative_to(rootdir.resolve())
        return False
    except (ValueError, OSError):
        return True


def in_flight_doc(sized_by: str, by_process: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """``results.json``'s ``in_flight``: who chose the trials each process kept in flight (``harness``, or the
    option given) and, per process, the most and the mean its reports saw and the number it allowed."""
    return {"sized_by": sized_by, "processes": {name: dict(v) for name, v in sorted(by_process.items())}}


def in_flight_line(doc: Mapping[str, Any] | None) -> str | None:
    """``trials in flight per process, sized by the harness: gw0 peak 24, mean 17.5, allowing 26 at the end; ...``;
    None when no process kept trials in flight."""
    if not doc or not doc.get("processes"):
        return None
    who = "sized by the harness" if doc["sized_by"] == "harness" else f"as {doc['sized_by']}"
    each = "; ".join(
        f"{name} peak {p['peak']}, mean {p['mean']:g}, allowing {p['allowed_last']} at the end"
        for name, p in doc["processes"].items()
    )
    return f"trials in flight per process, {who}: {each} (results.json: in_flight)"
