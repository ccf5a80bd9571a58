"""Issue 38's LLM-layer cases, end to end, against whichever pytest-pcg the given interpreter imports.

Each case builds a tiny competition of one problem (tests/fault_cases.py: the same problems, doubles and
fault-injecting OpenAI-compatible server on 127.0.0.1 as the fault suite), with a clean team ``t_clean`` and a
team whose prompt carries the fault (``t_<fault>``), and runs `python -m pytest` on it, usually twice on the same
response store (a rerun, or `--lf`). Each run prints one row: requests the server received, answers it gave,
faults it injected, calls in the store, the pytest outcome, whether results.json and report.html were written,
each team's trials (ok/zero/error) and the store's size.

    python scripts/figures/llm_fault_cases.py                                     # every case, this interpreter (after)
    python scripts/figures/llm_fault_cases.py --python OTHER --case surrogate     # another install (before)
    python scripts/figures/llm_fault_cases.py --list

Needs the tests' doubles (tests/, run from a checkout).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

import fault_cases  # noqa: E402 - tests/, put on sys.path above
import loopback_llm  # noqa: E402 - tests/, put on sys.path above
from fault_cases import DISK_FULL_CONFTEST, PROBLEMS, FaultServer, outcomes, run_pytest, team_name  # noqa: E402 - tests/, put on sys.path above

FIVE_MB = 5_000_000


def padded_5mb(server: FaultServer, body: dict[str, Any]) -> tuple[Any, ...]:
    """The normal answer followed by 5 MB of blanks (a model that rambles on): the game still reads the answer."""
    return ("reply", server.answer(body)[0] + "\n" + " " * FIVE_MB)


fault_cases.FAULTS["reply-5mb"] = padded_5mb


@dataclass
class Run:
    """One pytest run of a case: extra arguments and environment, and a wall limit (None: none)."""

    label: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    limit: float | None = 600


@dataclass
class Case:
    name: str
    item: str
    problem: str
    fault: str | None  # a kind of fault_cases.FAULTS, carried by the team t_<fault>
    runs: tuple[Run, ...]
    opts: dict[str, Any] = field(default_factory=dict)
    conftest: str | None = None  # a conftest.py for the competition (the full disk)


FAST = {"PCG_TRIAL_DEADLINE": "5"}
RERUN = (Run("first run"), Run("rerun, same store"))
LF = (Run("first run", env=FAST, limit=120), Run("--lf", ("--lf",), env=FAST, limit=120))
ALL = tuple(PROBLEMS)


def cases() -> list[Case]:
    out = [Case(f"surrogate-{p}", "2", p, "lone-surrogate", RERUN) for p in ALL]
    out += [
        Case(
            f"disk-full-{p}",
            "3",
            p,
            None,
            (Run("first run", env={"PCG_TEST_DISK_FULL_AT": "2"}), Run("rerun, disk freed")),
            opts={"teams": 4},
            conftest=DISK_FULL_CONFTEST,
        )
        for p in ("sb2024", "pcgbench", "gameeval")
    ]
    out += [Case(f"hang-{p}", "5", p, "hang", LF) for p in ALL]
    out += [Case(f"retry-after-3600-{p}", "5", p, "429-retry-after-3600", LF) for p in ALL]
    out += [Case(f"unseeded-{p}", "6", p, None, RERUN, opts={"unseeded": True, "trials": 2}) for p in ALL]
    out += [Case(f"{kind}-{p}", "7", p, kind, RERUN) for kind in ("empty-choices", "null-content") for p in ALL]
    out.append(Case("5mb-reply-askguess", "9", "gameeval", "reply-5mb", (Run("first run"),)))
    return out


def tally(results: dict[str, Any] | None) -> str:
    """Each team's trials: ok/zero/error."""
    out = []
    for team, got in sorted(outcomes(results).items()):
        ok, zero = got.count("ok"), sum(o.startswith("zero:") for o in got)
        out.append(f"{team}={ok}/{zero}/{len(got) - ok - zero}")
    return " ".join(out) or "-"


def summary(output: str) -> str:
    lines = [
        line.strip("= ")
        for line in output.splitlines()
        if " in " in line and ("passed" in line or "failed" in line or "error" in line)
    ]
    return lines[-1] if lines else (output.strip().splitlines() or ["?"])[-1][:80]


def run_case(case: Case, python: str, work: Path) -> None:
    problem = PROBLEMS[case.problem]
    root = work / case.name
    root.mkdir(parents=True)
    teams: dict[str, str | None] = {team_name(None): None}
    if case.fault:
        teams[team_name(case.fault)] = case.fault
    for i in range(len(teams), int(case.opts.get("teams", len(teams)))):
        teams[f"t_{i + 1}"] = None
    args = problem.setup(root, teams, case.opts)
    if case.conftest:
        (root / "conftest.py").write_text(case.conftest, encoding="utf-8")
    with loopback_llm.serve(FaultServer(problem.answer)) as server:
        for i, run in enumerate(case.runs):
            out = f"out{i + 1}"
            r = run_pytest(
                root, server, problem, args, out, "-q", *run.args, env=run.env, python=python, timeout=run.limit
            )
            (root / f"{out}.log").write_text(r.output, encoding="utf-8")
            what = f"exit {r.returncode}: {summary(r.output)}" if r.returncode != -9 else "killed at the limit"
            written = "+".join(n for n, ok in (("results", r.results is not None), ("report", r.report)) if ok)
            print(
                f"| {case.item} | {case.name} | {run.label} | {what} | {r.wall:.0f} s | {r.requests} | "
                f"{r.answered} | {r.faulted} | {r.recorded} | {written or 'none'} | {tally(r.results)} | "
                f"{r.store_bytes:,} |",
                flush=True,
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose pytest-pcg runs the cases")
    parser.add_argument("--case", action="append", default=[], help="a case name, or a prefix (repeatable)")
    parser.add_argument("--work", default=None, help="scratch folder (default: a new temporary one)")
    parser.add_argument("--list", action="store_true")
    a = parser.parse_args()
    chosen = [c for c in cases() if not a.case or any(c.name.startswith(p) for p in a.case)]
    if a.list:
        for c in chosen:
            print(f"{c.name}  (issue 38 item {c.item})")
        return 0
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="pcg-fault-cases-"))
    print(f"python: {a.python}; work: {work}")
    print(
        "| item | case | run | pytest | wall | requests | answered | faults | calls stored | written | teams "
        "ok/zero/error | store bytes |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case in chosen:
        run_case(case, a.python, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
