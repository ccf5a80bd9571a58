"""`pcg rules PATH...`: check prompts, programs or submission folders against the competition rules (static)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

HELP = "check 2023 prompts and 2024/2025 programs against the competition rules (static, no model calls)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="a prompt .txt, a program .py, or a submission folder (submission.toml "
                             "honoured)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="one JSON object per PATH per line")
    parser.add_argument("--edition", choices=("2024", "2025"), default=None,
                        help="rules for programs (default: from the program; llms4pcg/chat_with_llm means "
                             "2025)")  # fmt: skip


class UsageProblem(Exception):
    """A PATH that cannot be checked (missing, unreadable, not a submission): exit status 2."""


def _target(path: Path) -> tuple[str, Path, Path]:
    """(format, entry, scope) of what PATH holds, using the collector's own detection; scope is what is scanned:
    the submission folder, or a program file given alone (its folder may hold anything)."""
    from pcg_plugin import collect

    if path.is_dir():
        try:
            sub = collect.detect_folder(path, require_placeholder=False)
        except collect.SubmissionError as exc:
            raise UsageProblem(str(exc)) from None
        if sub is None:
            raise UsageProblem(f"{path}: not a submission (no TrialLoop program, no .txt prompt, "
                               f"no {collect.MANIFEST})")  # fmt: skip
        return sub.format, sub.entry, sub.path
    if not path.is_file():
        raise UsageProblem(f"{path}: no such file or folder")
    if collect.is_prompt_name(path):  # a prompt without <OBJECT> is still a prompt: the placeholder rule says so
        return "prompt-2023", path, path
    if path.suffix == ".py":
        return collect.program_format(path.read_text(encoding="utf-8", errors="replace")), path, path
    raise UsageProblem(f"{path}: not a prompt .txt, a program .py or a submission folder")


def _check(path: Path, edition: str | None) -> dict[str, Any]:
    """The JSON record of one PATH."""
    from pcg_plugin import rules

    fmt, entry, scope = _target(path)
    try:
        if fmt == "prompt-2023":
            text = rules.read_prompt(entry)
            record: dict[str, Any] = {"path": str(path), "format": fmt, "entry": str(entry),
                                      **rules.prompt_summary(text)}  # fmt: skip
            results = rules.check_prompt(text, str(entry))
        else:
            chosen = edition or fmt.rsplit("-", 1)[1]
            record = {"path": str(path), "format": fmt, "entry": str(entry), "edition": chosen}
            results = rules.check_program(entry, chosen, scope=scope)
    except OSError as exc:
        raise UsageProblem(f"{path}: cannot read: {exc.strerror or exc}") from None
    record["passed"] = all(r.passed for r in results)
    record["rules"] = [{**asdict(r), "findings": [asdict(f) for f in r.findings]} for r in results]
    return record


def _print_text(record: dict[str, Any]) -> None:
    edition = f", edition {record['edition']}" if "edition" in record else ""
    print(f"{record['path']} ({record['format']}{edition})")
    for r in record["rules"]:
        official = "" if r["official"] else " [not an official rule]"
        print(f"  {'PASS' if r['passed'] else 'FAIL'} {r['rule']}{official}: {r['message']}")
        if not r["passed"]:
            for f in r["findings"][:10]:
                print(f"       {f['path']}:{f['line']}:{f['col']}: {f['text']}")
            if len(r["findings"]) > 10:
                print(f"       ... {len(r['findings']) - 10} more")
    if record.get("first_failure"):
        print(f"  officially disqualified by {record['first_failure']} (the official checks stop at the first failure)")


def run(args: argparse.Namespace) -> int:
    records, usage = [], False
    for name in args.paths:
        try:
            record = _check(Path(name), args.edition)
        except UsageProblem as exc:
            print(f"pcg rules: {exc}", file=sys.stderr)
            usage = True
            continue
        records.append(record)
        if args.json:
            print(json.dumps(record))
        else:
            _print_text(record)
    failed = [r["path"] for r in records if not r["passed"]]
    if not args.json:
        verdict = "FAIL" if failed else "PASS"
        print(f"{verdict}: {len(records)} checked, {len(failed)} breaking a rule"
              + (f" ({', '.join(failed)})" if failed else "")
              + (", some paths could not be checked" if usage else ""))  # fmt: skip
    if usage:
        return 2
    return 1 if failed else 0
