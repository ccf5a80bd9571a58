"""`pcg rules PATH...`: check prompts, programs or submission folders against the competition rules (static)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pcg_plugin._util.names import shown_all
from pcg_plugin.errors import NotASubmission, Skipped, UsageProblem
from pcg_plugin.problems.science_birds.editions import PROGRAM_YEARS

HELP = "check 2023 prompts and 2024/2025 programs against the competition rules (static, no model calls)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a prompt .txt, a program .py, a submission folder (submission.toml "
        "honoured) or .zip, or a folder of them",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per PATH per line")
    parser.add_argument(
        "--edition",
        choices=PROGRAM_YEARS,
        default=None,
        help="rules for programs (default: from the program; llms4pcg/chat_with_llm means 2025)",
    )


def _expand(path: Path) -> list[Path]:
    """A folder of submissions (``submissions/``, an unzipped set, the examples repository) gives each of its
    folders and loose prompts, exactly those a run would collect or report; anything else is itself."""
    from pcg_plugin.problems.science_birds import preflight

    if not path.is_dir():
        return [path]
    found = preflight.targets([path], require_placeholder=False)
    if not found or found == [path.resolve()]:
        return [path]
    return [path / p.relative_to(path.resolve()) for p in found]  # shown as the user named them


def _target(path: Path) -> tuple[str, Path, Path]:
    """(format, entry, scope) of what PATH holds, using the collector's own detection; scope is what is scanned:
    the submission folder, or a program file given alone (its folder may hold anything). A folder of Python
    files none of which is a TrialLoop program gives format ``scripts``."""
    from pcg_plugin.core.inputs import zips
    from pcg_plugin.problems.science_birds import preflight
    from pcg_plugin.problems.science_birds import submissions as collect
    from pcg_plugin.problems.science_birds.rules.checks import stand_alone_scripts

    if path.is_dir() or zips.is_zip(path):  # a zip: the folder it unpacks to, in the cache
        sub, problem = preflight.detect(path, require_placeholder=False)
        if sub is not None:
            return sub.format, sub.entry, sub.path
        if problem.startswith("skipped"):
            raise Skipped(f"{path}: {problem}")
        no_program = path.is_dir() and not (path / collect.MANIFEST).is_file() and not collect.find_programs(path)
        if no_program and stand_alone_scripts(path):
            return "scripts", path, path
        raise NotASubmission(problem)
    if not path.is_file():
        raise UsageProblem(f"{path}: no such file or folder")
    if collect.is_prompt_name(path):  # a prompt without <OBJECT> is still a prompt: the placeholder rule says so
        return "prompt-2023", path, path
    if path.suffix == ".py":
        return collect.program_format(path.read_text(encoding="utf-8", errors="replace")), path, path
    raise UsageProblem(f"{path}: not a prompt .txt, a program .py or a submission folder")


def _check(path: Path, edition: str | None) -> dict[str, Any]:
    """The JSON record of one PATH."""
    from pcg_plugin.problems.science_birds import submissions as collect
    from pcg_plugin.problems.science_birds.rules import checks as rules

    reason = ""
    try:
        fmt, entry, scope = _target(path)
    except NotASubmission as exc:
        fmt, entry, scope, reason = "none", path, path, str(exc)
    try:
        if fmt == "none":
            record: dict[str, Any] = {"path": str(path), "format": fmt, "entry": None}
            results = [rules.not_a_submission(reason)]
        elif fmt == "scripts":
            scripts = rules.stand_alone_scripts(path)
            source = "".join(p.read_text(encoding="utf-8", errors="replace") for p in scripts)
            chosen = edition or collect.program_format(source).rsplit("-", 1)[1]
            record = {"path": str(path), "format": fmt, "entry": None, "edition": chosen}
            results = rules.check_scripts(path, chosen)
        elif fmt == "prompt-2023":
            text = rules.read_prompt(entry)
            record = {"path": str(path), "format": fmt, "entry": str(entry), **rules.prompt_summary(text)}
            results = rules.check_prompt(text, str(entry))
        else:
            chosen = edition or fmt.rsplit("-", 1)[1]
            record = {"path": str(path), "format": fmt, "entry": str(entry), "edition": chosen}
            results = rules.check_program(entry, chosen, scope=scope)
    except OSError as exc:
        raise UsageProblem(f"{path}: cannot read: {exc.strerror or exc}") from None
    record["passed"] = all(r.passed for r in results)
    record["rules"] = [{**asdict(r), "findings": [asdict(f) for f in r.findings]} for r in results]
    return shown_all(record)  # text: a path whose name is not UTF-8 printed escaped


def _print_text(record: dict[str, Any]) -> None:
    edition = f", edition {record['edition']}" if "edition" in record else ""
    print(f"{record['path']} ({record['format']}{edition})")
    for r in record["rules"]:
        official = "" if r["official"] else " [not an official rule]"
        label = "PASS" if r["passed"] else "FAIL" if r.get("ran", True) else "NOT RUN"
        print(f"  {label} {r['rule']}{official}: {r['message']}")
        shown = r["findings"] if not r["passed"] and r["findings"] else r["warnings"]
        for f in shown[:10]:
            print(
                f"       {'warning: ' if shown is r['warnings'] else ''}{f['path']}:{f['line']}:{f['col']}: {f['text']}"
            )
        if len(shown) > 10:
            print(f"       ... {len(shown) - 10} more")
    if record.get("first_failure"):
        print(f"  officially disqualified by {record['first_failure']} (the official checks stop at the first failure)")


def run(args: argparse.Namespace) -> int:
    records, usage = [], False
    for path in (p for name in args.paths for p in _expand(Path(name))):
        try:
            record = _check(path, args.edition)
        except Skipped as exc:
            print(f"pcg rules: {exc}", file=sys.stderr)
            continue
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
        verdict = "FAIL" if failed or usage or not records else "PASS"  # never PASS when something was not checked
        print(
            f"{verdict}: {len(records)} checked, {len(failed)} breaking a rule"
            + (f" ({', '.join(failed)})" if failed else "")
            + (", some paths could not be checked" if usage else "")
        )
    if usage:
        return 2
    return 1 if failed else 0
