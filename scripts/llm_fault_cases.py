"""Issue 38's LLM-layer cases, end to end, against whichever pytest-pcg the given interpreter imports.

Each case builds a tiny competition (two teams, or one for the store-size case) in a scratch folder, serves a
fault-injecting OpenAI-compatible server on 127.0.0.1 (tests/loopback_llm.py) and runs `python -m pytest` on it,
usually twice on the same response store (a rerun, or `--lf`). The faulty team is the one whose prompt holds
FAULTME; the other team is answered normally. Each run prints one row: requests the server received, answers it
gave, faults it injected, calls in the store, the pytest outcome, whether results.json and report.html were
written, each team's trials (ok/zero/error) and the store's size.

    python scripts/llm_fault_cases.py                        # every case, this interpreter (after)
    python scripts/llm_fault_cases.py --python /usr/bin/python3 --case surrogate-sb2024   # another install (before)
    python scripts/llm_fault_cases.py --list

Needs the tests' doubles (tests/, run from a checkout); the store-full case mounts a 1 MiB tmpfs (root only).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "e2e"), str(TESTS / "imagegame"), str(TESTS / "gameeval"),
                str(TESTS / "pcgbench")]  # fmt: skip

import loopback_llm  # noqa: E402

MARK = "FAULTME"

SB_PROGRAM = {
    "2024": ("from chatgpt4pcg.competition import chat_with_chatgpt as chat\n"
             "from chatgpt4pcg.models.trial_loop import TrialLoop\n"),
    "2025": "from llms4pcg.competition import chat_with_llm as chat\nfrom llms4pcg.models.trial_loop import TrialLoop\n",
}  # fmt: skip
SB_BODY = '''
import random

class Entry(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        hint = HINT
        return chat(ctx, [{"role": "user", "content": f"TARGET={target_character} {hint} EXTRA"}])[0]
'''
SEEDED_HINT = '"draw it tall"'
UNSEEDED_HINT = 'random.choice(["draw it tall", "draw it wide", "use many blocks", "use few blocks"])'


def sb_program(edition: str, extra: str = "", unseeded: bool = False) -> str:
    body = SB_BODY.replace("HINT", UNSEEDED_HINT if unseeded else SEEDED_HINT).replace("EXTRA", extra)
    return SB_PROGRAM[edition] + textwrap.dedent(body)


def sb_answer(body: dict[str, Any]) -> list[str]:
    from pcg_plugin.problems.science_birds.glyphs import letter_program

    text = str(body["messages"][-1]["content"])
    letter = re.search(r'TARGET="?([A-Z])', text)
    code = letter_program(letter.group(1) if letter else "A", 0)
    if "USE=ab_drop" in text:
        code = code.replace("drop_block", "ab_drop")
    return ["```\n" + code + "\n```"] * body.get("n", 1)


def pcgbench_answer(body: dict[str, Any]) -> list[str]:
    from grid_double import respond  # type: ignore[import-not-found]

    return list(respond(body["messages"], body.get("n", 1)))


def imagegame_answer(body: dict[str, Any]) -> list[str]:
    import ig_doubles  # type: ignore[import-not-found]

    return list(ig_doubles.respond_perfect(body["messages"], body.get("n", 1)))


def gameeval_answer(body: dict[str, Any]) -> list[str]:
    import ge_doubles  # type: ignore[import-not-found]

    return list(ge_doubles.respond(body["messages"], body.get("n", 1)))


class CaseServer(loopback_llm.FakeOpenAI):  # type: ignore[misc]
    """Answers as the problem's double; the first ``budget`` requests holding ``mark`` (any request: None) get
    ``fault(body)`` instead."""

    def __init__(self, answer: Callable[[dict[str, Any]], list[str]], fault: Callable[..., Any] | None,
                 budget: int = 1, mark: str | None = MARK) -> None:  # fmt: skip
        super().__init__()
        self._answer, self._fault, self.budget, self.mark = answer, fault, budget, mark

    def answer(self, body: dict[str, Any]) -> list[str]:
        return self._answer(body)

    def fault_for(self, body: dict[str, Any]) -> tuple[Any, ...] | None:
        if self._fault is None:
            return None
        text = json.dumps(body.get("messages", []), ensure_ascii=False)
        with self.lock:
            if self.budget <= 0 or (self.mark is not None and self.mark not in text):
                return None
            self.budget -= 1
        return self._fault(self, body)  # type: ignore[no-any-return]


@dataclass
class Problem:
    """How to lay out a two-team competition of one problem and run pytest on it."""

    name: str
    answer: Callable[[dict[str, Any]], list[str]]
    setup: Callable[[Path, dict[str, Any]], list[str]]  # (folder, options) -> pytest arguments
    model: str = "fake-model"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _classifier(root: Path) -> None:
    from e2e_support import make_tiny_classifier  # type: ignore[import-not-found]

    cache = Path(tempfile.gettempdir()) / "pcg-fault-cases-classifier"
    if not (cache / "config.json").is_file():
        make_tiny_classifier(cache)
    shutil.copytree(cache, root / "tiny-classifier")


def sb_setup(edition: str) -> Callable[[Path, dict[str, Any]], list[str]]:
    def setup(root: Path, opts: dict[str, Any]) -> list[str]:
        _classifier(root)
        unseeded = bool(opts.get("unseeded"))
        if edition == "2023":
            _write(root, {"subs/team_ok/prompt.txt": "Draw TARGET=<OBJECT> USE=ab_drop",
                          "subs/team_fault/prompt.txt": f"Draw TARGET=<OBJECT> USE=ab_drop {MARK}"})  # fmt: skip
        else:
            _write(root, {"subs/team_ok/entry.py": sb_program(edition, unseeded=unseeded),
                          "subs/team_fault/entry.py": sb_program(edition, MARK, unseeded=unseeded)})  # fmt: skip
        return ["subs", "--pcg-edition", edition, "--pcg-letters", opts.get("letters", "A"), "--pcg-trials",
                str(opts.get("trials", 1)), "--pcg-classifier", "tiny-classifier"]  # fmt: skip

    return setup


PCG_PROGRAM = '''
import random
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop


class Entry(TrialLoop):
    @staticmethod
    def run(ctx, task):
        hint = HINT
        return chat_with_llm(ctx, [{"role": "user", "content": f"{task} {hint} EXTRA"}])[0]
'''


def pcgbench_setup(root: Path, opts: dict[str, Any]) -> list[str]:
    shutil.copy(TESTS / "pcgbench" / "grid_double.py", root / "grid_double.py")
    hint = UNSEEDED_HINT if opts.get("unseeded") else SEEDED_HINT
    program = textwrap.dedent(PCG_PROGRAM).replace("HINT", hint)
    _write(root, {"subs/team_ok/entry.py": program.replace("EXTRA", ""),
                  "subs/team_fault/entry.py": program.replace("EXTRA", MARK)})  # fmt: skip
    return ["subs", "--pcg-problem", "pcgbench/binary-v0", "--pcg-grid-instances", "1", "--pcg-trials",
            str(opts.get("trials", 1))]  # fmt: skip


IG_PROGRAM = '''
import random
from chatgpt4pcg.models.trial_loop import TrialLoop


class Giver(TrialLoop):
    @staticmethod
    def run(ctx, target_grid):
        hint = HINT
        return ("Let us draw. EXTRA " + hint + "\\nThe grid:\\n" + target_grid + "\\nWhat is your next command?")
'''


def imagegame_setup(root: Path, opts: dict[str, Any]) -> list[str]:
    if opts.get("unseeded"):
        program = textwrap.dedent(IG_PROGRAM).replace("HINT", UNSEEDED_HINT)
        _write(root, {"subs/team_ok/giver.py": program.replace("EXTRA", ""),
                      "subs/team_ok/imagegame.toml": 'giver_program = "giver.py"\n',
                      "subs/team_fault/giver.py": program.replace("EXTRA", MARK),
                      "subs/team_fault/imagegame.toml": 'giver_program = "giver.py"\n'})  # fmt: skip
    else:
        shutil.copytree(REPO / "examples" / "imagegame" / "giver_prompt", root / "subs" / "team_fault")
        shutil.copytree(REPO / "examples" / "imagegame" / "giver_prompt", root / "subs" / "team_ok")
        prompt = root / "subs" / "team_fault" / "giver.txt"
        prompt.write_text(prompt.read_text(encoding="utf-8") + f"\n{MARK}\n", encoding="utf-8")
    return ["subs", "--pcg-problem", "imagegame", "--pcg-imagegame-instances", "compact_grids/0", "--pcg-trials",
            str(opts.get("trials", 1))]  # fmt: skip


GE_PROGRAM = '''
import random
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop


class Answerer(TrialLoop):
    @staticmethod
    def run(ctx, target):
        hint = HINT
        return ('You are the answerer in the game "Ask-Guess". The given word is "<<word>>". EXTRA ' + hint +
                ' Answer each question briefly. Reply with exactly "gameover" when the questioner names it.')
'''


def gameeval_setup(root: Path, opts: dict[str, Any]) -> list[str]:
    if opts.get("selfplay_only"):
        shutil.copytree(REPO / "examples" / "gameeval" / "spyfall" / "selfplay", root / "subs" / "selfplay")
        return ["subs", "--pcg-problem", "gameeval/spyfall", "--pcg-gameeval-targets", "tiger&lion",
                "--pcg-trials", "1"]  # fmt: skip
    hint = UNSEEDED_HINT if opts.get("unseeded") else SEEDED_HINT
    program = textwrap.dedent(GE_PROGRAM).replace("HINT", hint)
    toml = 'role = "answerer"\nprogram = "answerer.py"\n'
    _write(root, {"subs/team_ok/answerer.py": program.replace("EXTRA", ""), "subs/team_ok/gameeval.toml": toml,
                  "subs/team_fault/answerer.py": program.replace("EXTRA", MARK),
                  "subs/team_fault/gameeval.toml": toml})  # fmt: skip
    return ["subs", "--pcg-problem", "gameeval/askguess-easy", "--pcg-gameeval-targets", "apple", "--pcg-trials",
            str(opts.get("trials", 1))]  # fmt: skip


PROBLEMS = {
    "sb2023": Problem("sb2023", sb_answer, sb_setup("2023"), model="gpt-3.5-turbo"),
    "sb2024": Problem("sb2024", sb_answer, sb_setup("2024"), model="gpt-3.5-turbo-0125"),
    "sb2025": Problem("sb2025", sb_answer, sb_setup("2025")),
    "pcgbench": Problem("pcgbench", pcgbench_answer, pcgbench_setup),
    "imagegame": Problem("imagegame", imagegame_answer, imagegame_setup),
    "gameeval": Problem("gameeval", gameeval_answer, gameeval_setup),
}


def surrogate(server: CaseServer, body: dict[str, Any]) -> tuple[Any, ...]:
    """The normal answer with a lone surrogate after it (valid JSON: ``"\\ud83d"``)."""
    return ("reply", server.answer(body)[0] + "\ud83d")


def padded_5mb(server: CaseServer, body: dict[str, Any]) -> tuple[Any, ...]:
    """The normal answer followed by 5 MB of blanks (a model that rambles on): the game reads the answer."""
    return ("reply", server.answer(body)[0] + "\n" + " " * 5_000_000)


def big_thought(server: CaseServer, body: dict[str, Any]) -> tuple[Any, ...]:
    """A 5 MB reply the game still accepts: the double's JSON answer with a 5 MB "thought"."""
    reply = json.loads(server.answer(body)[0])
    reply["thought"] = "x" * 5_000_000
    return ("reply", json.dumps(reply))


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
    issue: str
    problem: str
    fault: Callable[..., Any] | None
    runs: tuple[Run, ...]
    budget: int = 1
    mark: str | None = MARK
    opts: dict[str, Any] = field(default_factory=dict)
    store_mb: float | None = None  # the store on a tmpfs of this size (the disk-full case)


FAST = {"PCG_TRIAL_DEADLINE": "5"}
RERUN = (Run("first run"), Run("rerun, same store"))


def cases() -> list[Case]:
    out = []
    for p in PROBLEMS:
        out.append(Case(f"surrogate-{p}", "2", p, surrogate, RERUN))
    for kind in ("empty_choices", "null_content"):
        for p in ("sb2024", "pcgbench", "gameeval"):
            out.append(Case(f"{kind}-{p}", "7", p, lambda s, b, k=kind: (k,), RERUN))
    for p in ("sb2025", "sb2023", "pcgbench", "imagegame", "gameeval"):
        out.append(Case(f"hang-{p}", "5", p, lambda s, b: ("hang",),
                        (Run("first run", env=FAST, limit=90), Run("--lf", ("--lf",), env=FAST, limit=90))))
    for p in ("sb2023", "sb2025", "gameeval"):
        out.append(Case(f"retry-after-3600-{p}", "5", p, lambda s, b: ("status", 429, {"Retry-After": "3600"}),
                        (Run("first run", limit=90), Run("--lf", ("--lf",), limit=90))))
    for p in ("sb2024", "sb2025", "pcgbench", "imagegame", "gameeval"):
        out.append(Case(f"unseeded-{p}", "6", p, None, RERUN, opts={"unseeded": True, "trials": 2}))
    out.append(Case("store-full-sb2024", "3", "sb2024", None, RERUN, opts={"letters": "A,B,C,D,E,F,G,H"},
                    store_mb=1.0))
    out.append(Case("5mb-reply-gameeval", "9", "gameeval", big_thought, (Run("first run"),), mark=None,
                    opts={"selfplay_only": True}))
    out.append(Case("5mb-reply-askguess", "9", "gameeval", padded_5mb, (Run("first run"),)))
    return out


def stored_calls(store: Path) -> int:
    db = store / "responses.sqlite3"
    if not db.is_file():
        return 0
    conn = sqlite3.connect(db, timeout=30)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
    except sqlite3.Error:
        return -1
    finally:
        conn.close()


def store_bytes(store: Path) -> int:
    return sum(p.stat().st_size for p in store.glob("responses.sqlite3*") if p.is_file())


def teams(out: Path) -> str:
    """Each team's trials in results.json: ok/zero/error."""
    path = out / "results.json"
    if not path.is_file():
        return "-"
    doc = json.loads(path.read_text(encoding="utf-8"))
    tally: dict[str, list[int]] = {}

    def add(team: str, reason: Any) -> None:
        t = tally.setdefault(team, [0, 0, 0])
        t[0 if reason is None else 2 if reason == "error" else 1] += 1

    def walk(team: str, node: Any) -> None:
        if isinstance(node, dict):
            if "trial" in node and ("reason" in node or "sta" in node):
                add(team, node.get("reason"))
                return
            for v in node.values():
                walk(team, v)
        elif isinstance(node, list):
            for v in node:
                walk(team, v)

    if "episodes" in doc:
        for ep in doc["episodes"]:
            add(ep["submission"], ep.get("reason") if ep.get("reason") in ("error",) or ep.get("outcome") else "error")
    else:
        for sub in doc.get("submissions", []):
            walk(sub["name"], sub.get("letters") or sub.get("instances"))
    return " ".join(f"{k}={v[0]}/{v[1]}/{v[2]}" for k, v in sorted(tally.items()))


def outcome(text: str) -> str:
    tail = [line for line in text.splitlines() if re.search(r"\d+ (passed|failed|error|zero)", line)]
    return re.sub(r"=+", "", tail[-1]).strip() if tail else (text.strip().splitlines() or ["?"])[-1][:80]


def run_case(case: Case, python: str, work: Path) -> None:
    problem = PROBLEMS[case.problem]
    root = work / case.name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    args = problem.setup(root, case.opts)
    store = root / "store"
    mounted = False
    if case.store_mb:
        store.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={int(case.store_mb * 1024)}k", "tmpfs", str(store)],
                       check=True)  # fmt: skip
        mounted = True
    server = CaseServer(problem.answer, case.fault, budget=case.budget, mark=case.mark)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(TESTS / "imagegame"), str(TESTS / "gameeval")])}
    env.pop("OPENAI_API_KEY", None)
    env.pop("PCG_TRIAL_DEADLINE", None)
    try:
        with loopback_llm.serve(server):
            for i, run in enumerate(case.runs):
                before = (len(server.requests), server.n_answered, server.n_faulted)
                out = f"out{i + 1}"
                cmd = [python, "-m", "pytest", *args, "--pcg-backend", "openai-compatible", "--pcg-base-url",
                       server.url, "--pcg-model", problem.model, "--pcg-out", out, "--pcg-store", "store",
                       "-p", "no:randomly", "-q", *run.args]  # fmt: skip
                if "--lf" not in run.args:
                    cmd[4:4] = ["-p", "no:cacheprovider"]
                t0 = time.monotonic()
                proc = subprocess.Popen(cmd, cwd=root, env={**env, **run.env}, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True)  # fmt: skip
                try:
                    log, _ = proc.communicate(timeout=run.limit)
                    what = f"exit {proc.returncode}: {outcome(log)}"
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)  # the run and every process it started
                    log, _ = proc.communicate()
                    what = f"still running after {run.limit:g} s (killed)"
                wall = time.monotonic() - t0
                (root / f"{out}.log").write_text(log, encoding="utf-8")
                req = len(server.requests) - before[0]
                ans, flt = server.n_answered - before[1], server.n_faulted - before[2]
                written = "+".join(n for n, f in (("results", "results.json"), ("report", "report.html"))
                                   if (root / out / f).is_file()) or "none"  # fmt: skip
                print(f"| {case.issue} | {case.name} | {run.label} | {what} | {wall:.0f} s | {req} | {ans} | {flt} | "
                      f"{stored_calls(store)} | {written} | {teams(root / out)} | {store_bytes(store):,} |",
                      flush=True)  # fmt: skip
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(store)], check=False)


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
            print(f"{c.name}  (issue 38 item {c.issue})")
        return 0
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="pcg-fault-cases-"))
    print(f"python: {a.python}; work: {work}")
    print("| item | case | run | pytest | wall | requests | answered | faults | calls stored | written | teams "
          "ok/zero/error | store bytes |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case in chosen:
        run_case(case, a.python, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
