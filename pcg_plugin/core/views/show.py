"""``pcg show RUN_DIR [ID] [--json]``: one trial's transcript from its run folder, every call in order (the
messages sent with their roles, the reply, tokens, seconds, retries, whether it was replayed) and the problem's
state between calls; ``--json`` prints the transcript document itself. With no ID, the run's trial ids.

A user names a trial the way they met it: the node id the run printed (``submissions/zs::D::1``), the short id
without its folder (``zs::D::1``), or the trial page's address (``trials/view.html?4f0c...``, or just the hex
id after ``?``). The model and the score come from the run's ``trials.jsonl`` (what ``pcg export`` writes), so
that ``score`` names the same number in every output: the transcript is written when the trial ends, before a
problem such as Science Birds can weight its score, and a one-model run's item does not know its model."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pcg_plugin.core.records import transcript, trials

HELP = "print one trial's transcript (every model call in order) from a run folder; with no id, list the run's ids"
_HEX_ID = re.compile(r"(?:^|[?/])([0-9a-f]{16})(?:\.js)?$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the run folder (where report.html is)")
    parser.add_argument(
        "nodeid",
        metavar="ID",
        nargs="?",
        help="the trial: its node id as the run printed it (submissions/team::A::1), the short id without the "
        "folder (team::A::1) or its page's address (trials/view.html?<16 hex digits>); none: list the run's ids",
    )
    parser.add_argument("--json", action="store_true", help='print {"nodeid": ..., "calls": [...], ...}')


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    path = Path(run_dir) / trials.FILE
    return trials.read(path) if path.is_file() else []


def run_ids(run_dir: Path, rows: Sequence[Mapping[str, Any]] | None = None) -> list[str]:
    """Every trial's node id in the run: from trials.jsonl where its rows name them, else from the transcripts."""
    rows = _rows(run_dir) if rows is None else rows
    if rows and all(r.get("nodeid") for r in rows):
        return sorted({str(r["nodeid"]) for r in rows})
    folder = Path(run_dir) / transcript.FOLDER
    found = set()
    for path in sorted(folder.glob("*.js")) if folder.is_dir() else ():
        try:
            found.add(str(transcript.load(path)["nodeid"]))
        except (OSError, ValueError, KeyError, IndexError):  # the page's own files, a damaged one: not a trial
            continue
    return sorted(found)


def short_id(nodeid: str) -> str:
    """The node id without its folder: ``submissions/zs::D::1`` -> ``zs::D::1`` (a target may hold ``/``)."""
    path, sep, rest = nodeid.partition("::")
    return path.rstrip("/").rsplit("/", 1)[-1] + sep + rest


def resolve(given: str, ids: Sequence[str]) -> list[str]:
    """The run's node ids ``given`` names: itself, its page's hex id, or its short id (several: ambiguous)."""
    if given in ids:
        return [given]
    hexed = _HEX_ID.search(given.strip())
    if hexed:
        found = [n for n in ids if transcript.trial_id(n) == hexed.group(1)]
        if found:
            return found
    return [n for n in ids if short_id(n) == given or n.endswith("/" + given)]


def _listing(ids: Sequence[str]) -> str:
    """One id per line, the short form where no two trials share it."""
    shorts = [short_id(n) for n in ids]
    unique = len(set(shorts)) == len(shorts)
    return "".join(f"{s if unique else n}\n" for s, n in zip(shorts, ids, strict=True))


def with_exported(doc: dict[str, Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The transcript with trials.jsonl's model and score (the exported ones) where the run wrote its row."""
    row = next((r for r in rows if r.get("nodeid") == doc.get("nodeid")), None)
    if row is None:
        key = (doc.get("submission"), str(doc.get("target")), doc.get("trial"))
        same = [r for r in rows if (r.get("submission"), str(r.get("target")), r.get("trial")) == key]
        same = [r for r in same if not doc.get("model") or r.get("model") == doc.get("model")]
        row = same[0] if len(same) == 1 else None
    if row is not None:
        doc = {**doc, "model": doc.get("model") or row.get("model"), "score": row.get("score")}
    return doc


def run(args: argparse.Namespace) -> int:
    rows = _rows(args.run_dir)
    ids = run_ids(args.run_dir, rows)
    if args.nodeid is None:
        if not ids:
            print(f"pcg show: no trials in {args.run_dir}", file=sys.stderr)
            return 2
        sys.stdout.write(_listing(ids))
        return 0
    found = resolve(args.nodeid, ids)
    if len(found) > 1:
        print(f"pcg show: {args.nodeid!r} names {len(found)} trials: " + ", ".join(found), file=sys.stderr)
        return 2
    try:
        doc = transcript.read(args.run_dir, found[0] if found else args.nodeid)
    except FileNotFoundError:
        example = f"e.g. {short_id(ids[0])} or {ids[0]}" if ids else "the run has none"
        print(
            f"pcg show: no trial {args.nodeid!r} in {args.run_dir} ({len(ids)} trial(s); give its node id, its "
            f"short id or its page's address, {example}; `pcg show {args.run_dir}` lists them)",
            file=sys.stderr,
        )
        return 2
    doc = with_exported(doc, rows)
    if args.json:
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        sys.stdout.write(transcript.text(doc))
    return 0
