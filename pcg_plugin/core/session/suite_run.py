"""The end of a suite run on the controller: each problem finished by its own ``finish_run`` into its own folder
(a complete single-problem run folder, ``core.results.suite.folder_for``), then at the top the suite's ``results.json``
(``core.results.suite.document``: the problems and their folders, plus the counts and the run's exit status) and the
model
card over every problem (``card.md``, ``card.html``); the terminal's summary and the pre-flight cost line."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin.core.results import suite as suite_doc
from pcg_plugin.core.session.items import NOT_EVALUATED, is_run_item
from pcg_plugin.core.session.members import Member, Suite

CARD_MD, CARD_HTML = "card.md", "card.html"
MEMBERS_STATS = "members"  # a worker's facts in a suite: {problem: that problem's process_facts}


@dataclass
class Part:
    """One problem of a suite as the controller finishes it: what its items reported (``collected``: the
    controller's ``Collected``), and what its end gave."""

    member: Member
    collected: Any
    results: dict[str, Any] | None = None
    report_path: Path | None = None
    finish_error: str | None = None
    viewer_error: str | None = None


def member_stats(worker_stats: Mapping[str, Mapping[str, Any]], name: str) -> dict[str, dict[str, Any]]:
    """Each worker's facts for one problem of the suite, as a run of that problem alone would have them."""
    out: dict[str, dict[str, Any]] = {}
    for worker, stats in worker_stats.items():
        mine = dict((stats.get(MEMBERS_STATS) or {}).get(name) or {})
        if "error" in stats:
            mine["error"] = stats["error"]
        out[worker] = mine
    return out


def _finish_part(
    part: Part, worker_stats: Mapping[str, Mapping[str, Any]], by_item: Mapping[str, Any], session: pytest.Session
) -> None:
    """One problem's end, as ``Controller.pytest_sessionfinish`` does it for a run of that problem alone."""
    from pcg_plugin.core.records import trials
    from pcg_plugin.core.results import runs
    from pcg_plugin.core.views import viewer

    m = part.member
    try:
        part.results, part.report_path = m.problem.finish_run(
            m.config, m.run, part.collected, member_stats(worker_stats, m.name)
        )
    except Exception as exc:  # noqa: BLE001 - one problem's scoring failure must not hide the others' results
        part.finish_error = f"{type(exc).__name__}: {exc}"
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
        return
    rows = runs.trial_rows(m.problem, part.results)
    if rows:
        trials.write(m.run_dir, rows)
    try:
        targets = list(m.settings.targets)
        viewer.add_to_report(part.report_path, m.run_dir, part.collected, m.problem, by_item, targets)
    except Exception as exc:  # noqa: BLE001 - the results are written; the report lacks only its viewer
        part.viewer_error = f"{type(exc).__name__}: {exc}"
    m.config.hook.pytest_pcg_run_finished(config=m.config, results=part.results)


def _counts(part: Part) -> dict[str, int]:
    c = part.collected
    return {
        "trials": len(c.items),
        "scored": len(c.records),
        "errors": len(c.errors),
        "not_evaluated": len(c.folder_problems),
    }


def write_card(run_dir: Path, parts: Sequence[Part]) -> None:
    """The model card over every problem that finished, as ``pcg card`` writes it for the suite's folder."""
    from pcg_plugin._util.atomic import atomic_write
    from pcg_plugin.core.results import card, runs

    c = card.card([runs.load(p.member.run_dir, p.member.problem) for p in parts])
    atomic_write(run_dir / CARD_MD, card.markdown(c))
    atomic_write(run_dir / CARD_HTML, card.html_page(c))


def finish_suite(
    parts: Sequence[Part],
    run: Mapping[str, Any],
    worker_stats: Mapping[str, Mapping[str, Any]],
    by_item: Mapping[str, Any],
    session: pytest.Session,
) -> dict[str, Any] | None:
    """Every problem's end, then the suite's top results.json and card; the document (None: nothing ran).
    ``by_item``: each item's call totals (the progress line's), for the reports' viewer."""
    from pcg_plugin._util.atomic import atomic_write
    from pcg_plugin.core.results.runs import RESULTS_FILE

    ran = [p for p in parts if not p.collected.empty]
    if not ran:
        return None
    for part in ran:
        _finish_part(part, worker_stats, by_item, session)
    done = [p for p in ran if p.results is not None]
    run_dir = Path(run["run_dir"])
    run_dir.mkdir(parents=True, exist_ok=True)
    card_error = None
    try:
        if done:
            write_card(run_dir, done)
    except Exception as exc:  # noqa: BLE001 - every problem's folder is written; only the card over them is missing
        card_error = f"{type(exc).__name__}: {exc}"
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
    doc = suite_doc.document(
        {p.member.name: suite_doc.folder_for(p.member.name) for p in done},
        run={k: run.get(k) for k in ("id", "started")},
        selection=run.get("selection"),
        exit_status=int(session.exitstatus),
        counts={p.member.name: _counts(p) for p in ran},
        failed={p.member.name: p.finish_error for p in ran if p.finish_error is not None},
        not_run=[p.member.name for p in parts if p.collected.empty],
        card=None if card_error or not done else {"markdown": CARD_MD, "html": CARD_HTML},
        card_error=card_error,
    )
    atomic_write(run_dir / RESULTS_FILE, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return doc


def summary(
    doc: Mapping[str, Any] | None, parts: Sequence[Part], run_dir: Path, terminalreporter: Any, *, verbose: bool
) -> None:
    """The suite's summary: the card's table (a line per problem and submission), where it all is, what failed;
    with ``-v`` each problem's own summary too."""
    if doc is None:
        return
    tr = terminalreporter
    tr.section("pytest-pcg suite")
    for part in parts:
        if part.collected.empty:
            continue
        m = part.member
        if part.finish_error is not None:
            tr.write_line(f"{m.name}: scoring failed: {part.finish_error}", red=True)
            continue
        if verbose:
            tr.write_line(f"--- {m.name} ({suite_doc.folder_for(m.name)}/)")
            for line in m.problem.summary_lines(part.results, m.run_dir, part.report_path, None):
                tr.write_line(line)
        if part.viewer_error:
            tr.write_line(f"{m.name}: the report has no charts, trial table or trial links: {part.viewer_error}")
    card_lines = _card_lines(run_dir)
    for line in card_lines:
        tr.write_line(line)
    done = len(doc["problems"])
    tr.write_line(f"suite: {done} of {len(parts)} problems scored, each in its own folder under {run_dir}")
    if doc.get("not_run"):
        tr.write_line(f"no items ran for: {', '.join(doc['not_run'])}")
    tr.write_line(f"results: {run_dir / 'results.json'}")
    if doc.get("card"):
        tr.write_line(f"model card: {run_dir / CARD_HTML} ({CARD_MD})")
    if doc.get("card_error"):
        tr.write_line(f"no model card: {doc['card_error']}", red=True)


def _card_lines(run_dir: Path) -> list[str]:
    """The card's table (problem, submission, score, rank) as the terminal shows it."""
    path = run_dir / CARD_MD
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("|")), len(lines))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


def trials_per_problem(suite: Suite, nodeids: Sequence[str]) -> list[tuple[str, int]]:
    """Each problem of the suite with its collected trials (``sub::problem::...::trial``), in the suite's order."""
    per: dict[str, int] = {}
    for nodeid in nodeids:
        parts = nodeid.split("::")
        if is_run_item(nodeid) and parts[-1] != NOT_EVALUATED and len(parts) >= 4:
            per[parts[1]] = per.get(parts[1], 0) + 1
    return [(m.name, per.get(m.name, 0)) for m in suite.members]
