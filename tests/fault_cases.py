"""A provider's faults against whole runs of every problem: the fault-injecting OpenAI-compatible server, tiny
competitions of each problem, and what a run left behind (requests, stored replies, results.json).

Shared by the fault suite (tests/sandbox/test_faults.py) and scripts/figures/llm_fault_cases.py (issue 38's table). A
team's
prompt holds ``FAULT=<kind>``; the first request carrying it gets that fault from the server (``FAULTS``),
everything else the problem's test double's answer. Runs are real ``python -m pytest`` processes on loopback.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import loopback_anthropic  # tests/ itself, where these modules live
import loopback_gemini
import loopback_llm

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
DOUBLES = [TESTS / "e2e", TESTS / "imagegame", TESTS / "gameeval", TESTS / "pcgbench"]  # the problems' doubles
for _folder in DOUBLES:
    if str(_folder) not in sys.path:
        sys.path.append(str(_folder))


LONE_SURROGATE = "\ud83d"  # valid JSON ("\ud83d"), not valid UTF-8: half an emoji
HUGE_PAD = 1_000_000  # characters of trailing blanks that make a reply huge and leave its answer as it was


def _huge(server: FaultServer, body: dict[str, Any]) -> tuple[Any, ...]:
    return ("reply", server.answer(body)[0] + "\n" + " " * HUGE_PAD)


def _surrogate(server: FaultServer, body: dict[str, Any]) -> tuple[Any, ...]:
    return ("reply", server.answer(body)[0] + LONE_SURROGATE)


# kind -> the fault (a loopback_llm fault tuple, or a function of the request giving one)
FAULTS: dict[str, Any] = {
    "429-retry-after": ("status", 429, {"Retry-After": "1"}),
    "429-bare": ("status", 429, {}),
    "503": ("status", 503, {}),
    "reset-mid-body": ("reset_body",),
    "malformed-json": ("malformed",),
    "empty-choices": ("empty_choices",),
    "null-content": ("null_content",),
    "huge-reply": _huge,
    "lone-surrogate": _surrogate,
    "hang": ("hang",),
    "429-retry-after-3600": ("status", 429, {"Retry-After": "3600"}),
}
# Each provider's own faults besides (its wire format gives every fault above its own shape: loopback_anthropic,
# loopback_gemini): Anthropic's 529 overload, and the two an account's cap gives, which no retry mends.
PROVIDER_FAULTS: dict[str, dict[str, Any]] = {
    "openai": {},
    "anthropic": {
        "529-overloaded": ("status", 529, {}),
        "spend-limit": ("status", 429, {}, "enforced_spend_limit_reached"),
    },
    "gemini": {"daily-quota": ("status", 429, {}, "GenerateRequestsPerDayPerProjectPerModel-FreeTier")},
}
ALL_FAULTS = {**FAULTS, **{k: v for extra in PROVIDER_FAULTS.values() for k, v in extra.items()}}
RETRIED = (
    "429-retry-after",
    "429-bare",
    "503",
    "reset-mid-body",
    "malformed-json",
    "empty-choices",
    "null-content",
    "529-overloaded",
)
AS_RECEIVED = ("huge-reply", "lone-surrogate")  # the model's answer, stored and scored as it came
PAST_DEADLINE = ("hang", "429-retry-after-3600")  # the item errors at the trial's deadline; --lf finishes it
ACCOUNT = ("spend-limit", "daily-quota")  # the harness's account, not the team: the item errors at once; --lf
# The backend and the server's wire format of each provider, and a model of each with a listed price.
PROVIDERS = ("openai", "anthropic", "gemini")
WIRES: dict[str, Any] = {"openai": None, "anthropic": loopback_anthropic.WIRE, "gemini": loopback_gemini.WIRE}
PROVIDER_MODELS = {"anthropic": "claude-haiku-4-5", "gemini": "gemini-3-flash"}
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def faults_of(provider: str) -> dict[str, Any]:
    """Every fault a provider's fault suite injects: the common ones and its own."""
    return {**FAULTS, **PROVIDER_FAULTS[provider]}


def serve(server: FaultServer, provider: str = "openai") -> Any:
    """``loopback_llm.serve`` in ``provider``'s wire format."""
    return loopback_llm.serve(server, WIRES[provider])


FAULT_MARK = re.compile(r"FAULT=([\w-]+)")

# A competition's conftest.py that fills the store's disk (write it to the competition's folder): from the Nth
# stored call on (PCG_TEST_DISK_FULL_AT), SQLite's SQLITE_FULL is raised where the call's messages are written,
# inside the store's transaction; a store without that step (before format 2) gets it from record_call.
DISK_FULL_CONFTEST = """
import os, sqlite3
from pcg_plugin.llm import store

AT = int(os.environ.get("PCG_TEST_DISK_FULL_AT", "0"))
_record, _recording = store.ResponseStore.record_call, []

def full(db):
    if AT and db.execute("SELECT COUNT(*) FROM calls").fetchone()[0] >= AT - 1:
        exc = sqlite3.OperationalError("database or disk is full")
        exc.sqlite_errorname = "SQLITE_FULL"
        raise exc

def record_call(self, *args, **kwargs):
    if not hasattr(store.ResponseStore, "_put"):
        full(self._db())
    _recording.append(True)
    try:
        return _record(self, *args, **kwargs)
    finally:
        _recording.pop()

if hasattr(store.ResponseStore, "_put"):
    _put = store.ResponseStore._put

    def full_put(db, message):
        if _recording:
            full(db)
        return _put(db, message)

    store.ResponseStore._put = staticmethod(full_put)
store.ResponseStore.record_call = record_call
"""


class FaultServer(loopback_llm.FakeOpenAI):  # type: ignore[misc]
    """Answers as ``answer`` does; the first ``budget`` requests carrying ``FAULT=<kind>`` (one team's prompt)
    get that fault. ``everyone``: a fault (or function) for every request that has no mark."""

    def __init__(self, answer: Callable[[dict[str, Any]], list[str]], budget: int = 1, everyone: Any = None) -> None:
        super().__init__()
        self._answer, self.budget, self.everyone = answer, budget, everyone
        self.spent: dict[str, int] = {}

    def answer(self, body: dict[str, Any]) -> list[str]:
        return self._answer(body)

    def fault_for(self, body: dict[str, Any]) -> tuple[Any, ...] | None:
        mark = FAULT_MARK.search(json.dumps(body.get("messages", []), ensure_ascii=False))
        if mark is None:
            fault = self.everyone
        else:
            with self.lock:
                if self.spent.get(mark.group(1), 0) >= self.budget:
                    return None
                self.spent[mark.group(1)] = self.spent.get(mark.group(1), 0) + 1
            kind = mark.group(1)
            fault = FAULTS[kind] if kind in FAULTS else ALL_FAULTS[kind]  # a script may add to FAULTS
        return fault(self, body) if callable(fault) else fault


# -- the problems: a double that answers, and a competition whose teams are named for their faults -----------------


def sb_answer(body: dict[str, Any]) -> list[str]:
    from pcg_plugin.problems.science_birds.level.glyphs import letter_program

    text = str(body["messages"][-1]["content"])
    letter = re.search(r'TARGET="?([A-Z])', text)
    code = letter_program(letter.group(1) if letter else "A", 0)
    if "USE=ab_drop" in text:  # the 2023 scripts extracted ab_drop(...)
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


SB_IMPORTS = {
    "2024": (
        "from chatgpt4pcg.competition import chat_with_chatgpt as chat\n"
        "from chatgpt4pcg.models.trial_loop import TrialLoop\n"
    ),
    "2025": (
        "from llms4pcg.competition import chat_with_llm as chat\nfrom llms4pcg.models.trial_loop import TrialLoop\n"
    ),
}
# HINT: a fixed text, or an expression drawn anew every run (an unseeded program, as real entries sample hints)
UNSEEDED_HINT = "uuid.uuid4().hex"
SB_BODY = """
import uuid

class Entry(TrialLoop):
    @staticmethod
    def run(ctx, target_character):
        hint = HINT
        answer = chat(ctx, [{"role": "user", "content": f"TARGET={target_character} {hint} MARK"}])[0]
        for turn in range(TURNS - 1):
            answer = chat(ctx, [{"role": "user", "content": f"TARGET={target_character} {hint} MARK"},
                                {"role": "assistant", "content": answer},
                                {"role": "user", "content": f"TARGET={target_character} again, turn {turn}"}])[0]
        return answer
"""


def _program(body: str, mark: str, unseeded: bool, turns: int = 1) -> str:
    hint = UNSEEDED_HINT if unseeded else '"draw it tall"'
    return textwrap.dedent(body).replace("HINT", hint).replace("MARK", mark).replace("TURNS", str(turns))


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def tiny_classifier(root: Path) -> None:
    """The tests' tiny classifier in ``root/tiny-classifier`` (made once per machine, copied per run)."""
    from e2e_support import make_tiny_classifier  # type: ignore[import-not-found]

    cache = Path(tempfile.gettempdir()) / f"pcg-fault-cases-classifier-{os.getuid()}"
    if not (cache / "config.json").is_file():
        tmp = Path(tempfile.mkdtemp(prefix="pcg-clf-"))
        make_tiny_classifier(tmp / "c")
        with contextlib.suppress(OSError):  # another worker's copy got there first
            os.replace(tmp / "c", cache)  # atomic: workers making it at once keep one
    shutil.copytree(cache, root / "tiny-classifier")


def mark(kind: str | None) -> str:
    return f"FAULT={kind}" if kind else ""


def sb_setup(edition: str) -> Callable[..., list[str]]:
    def setup(root: Path, teams: dict[str, str | None], opts: dict[str, Any]) -> list[str]:
        tiny_classifier(root)
        for team, kind in teams.items():
            if edition == "2023":
                _write(root, {f"subs/{team}/prompt.txt": f"Draw TARGET=<OBJECT> USE=ab_drop {mark(kind)}"})
            else:
                _write(
                    root,
                    {
                        f"subs/{team}/entry.py": SB_IMPORTS[edition]
                        + _program(SB_BODY, mark(kind), bool(opts.get("unseeded")), int(opts.get("turns", 1)))
                    },
                )
        return [
            "subs",
            "--pcg-edition",
            edition,
            "--pcg-letters",
            opts.get("letters", "A"),
            "--pcg-trials",
            str(opts.get("trials", 1)),
            "--pcg-classifier",
            "tiny-classifier",
        ]

    return setup


PCG_BODY = """
import uuid
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop


class Entry(TrialLoop):
    @staticmethod
    def run(ctx, task):
        hint = HINT
        return chat_with_llm(ctx, [{"role": "user", "content": f"{task} {hint} MARK"}])[0]
"""


def pcgbench_setup(root: Path, teams: dict[str, str | None], opts: dict[str, Any]) -> list[str]:
    shutil.copy(TESTS / "pcgbench" / "grid_double.py", root / "grid_double.py")
    for team, kind in teams.items():
        _write(root, {f"subs/{team}/entry.py": _program(PCG_BODY, mark(kind), bool(opts.get("unseeded")))})
    return [
        "subs",
        "--pcg-problem",
        "pcgbench/binary-v0",
        "--pcg-grid-instances",
        "1",
        "--pcg-trials",
        str(opts.get("trials", 1)),
    ]


IG_BODY = """
import uuid
from chatgpt4pcg.models.trial_loop import TrialLoop


class Giver(TrialLoop):
    @staticmethod
    def run(ctx, target_grid):
        hint = HINT
        return ("Let us draw. MARK " + hint + "\\nThe grid:\\n" + target_grid + "\\nWhat is your next command?")
"""


def imagegame_setup(root: Path, teams: dict[str, str | None], opts: dict[str, Any]) -> list[str]:
    for team, kind in teams.items():
        folder = root / "subs" / team
        if opts.get("unseeded"):
            _write(
                folder,
                {"giver.py": _program(IG_BODY, mark(kind), True), "imagegame.toml": 'giver_program = "giver.py"\n'},
            )
        else:
            shutil.copytree(REPO / "examples" / "imagegame" / "giver_prompt", folder)
            prompt = folder / "giver.txt"
            prompt.write_text(prompt.read_text(encoding="utf-8") + f"\n{mark(kind)}\n", encoding="utf-8")
    return [
        "subs",
        "--pcg-problem",
        "imagegame",
        "--pcg-imagegame-instances",
        "compact_grids/0",
        "--pcg-trials",
        str(opts.get("trials", 1)),
    ]


GE_BODY = """
import uuid
from chatgpt4pcg.models.trial_loop import TrialLoop


class Answerer(TrialLoop):
    @staticmethod
    def run(ctx, target):
        hint = HINT
        return ('You are the answerer in the game "Ask-Guess". The given word is "<<word>>". MARK ' + hint +
                ' Answer each question briefly. Reply with exactly "gameover" when the questioner names it.')
"""


def gameeval_setup(root: Path, teams: dict[str, str | None], opts: dict[str, Any]) -> list[str]:
    if opts.get("selfplay_only"):
        shutil.copytree(REPO / "examples" / "gameeval" / "spyfall" / "selfplay", root / "subs" / "selfplay")
        return [
            "subs",
            "--pcg-problem",
            "gameeval/spyfall",
            "--pcg-gameeval-targets",
            "tiger&lion",
            "--pcg-trials",
            "1",
        ]
    for team, kind in teams.items():
        _write(
            root,
            {
                f"subs/{team}/answerer.py": _program(GE_BODY, mark(kind), bool(opts.get("unseeded"))),
                f"subs/{team}/gameeval.toml": 'role = "answerer"\nprogram = "answerer.py"\n',
            },
        )
    return [
        "subs",
        "--pcg-problem",
        "gameeval/askguess-easy",
        "--pcg-gameeval-targets",
        "apple",
        "--pcg-trials",
        str(opts.get("trials", 1)),
    ]


@dataclass
class Problem:
    """How to lay out a competition of one problem (teams named for their faults) and run pytest on it."""

    name: str
    answer: Callable[[dict[str, Any]], list[str]]
    setup: Callable[[Path, dict[str, str | None], dict[str, Any]], list[str]]  # -> pytest arguments
    model: str = "fake-model"


PROBLEMS = {
    "sb2023": Problem("sb2023", sb_answer, sb_setup("2023"), model="gpt-3.5-turbo"),
    "sb2024": Problem("sb2024", sb_answer, sb_setup("2024"), model="gpt-3.5-turbo-0125"),
    "sb2025": Problem("sb2025", sb_answer, sb_setup("2025")),
    "pcgbench": Problem("pcgbench", pcgbench_answer, pcgbench_setup),
    "imagegame": Problem("imagegame", imagegame_answer, imagegame_setup),
    "gameeval": Problem("gameeval", gameeval_answer, gameeval_setup),
}


def team_name(kind: str | None) -> str:
    return "t_" + (kind or "clean").replace("-", "_")


# -- one run and what it left -------------------------------------------------------------------------------------


@dataclass
class RunResult:
    """What one pytest run did: its exit code and output, what the server saw, what the store holds after."""

    returncode: int
    output: str
    requests: int  # requests the server received in this run
    answered: int  # of them, given an answer (what a client may store)
    faulted: int  # of them, given a fault
    recorded: int  # calls in the store's recordings after the run (all runs so far)
    dropped: int  # calls moved out of recordings (kept) after the run
    results: dict[str, Any] | None
    report: bool
    store_bytes: int
    wall: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def held(self) -> int:
        return self.recorded + self.dropped


def replies_held(store: Path) -> tuple[int, int]:
    """(calls in recordings, calls dropped from them) in the store at ``store`` (a folder); a store written
    before dropped calls were kept has none."""
    db = store / "responses.sqlite3"
    if not db.is_file():
        return 0, 0
    conn = sqlite3.connect(db, timeout=30)
    try:
        recorded = int(conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
        try:
            dropped = int(conn.execute("SELECT COUNT(*) FROM dropped_calls").fetchone()[0])
        except sqlite3.OperationalError:
            dropped = 0
        return recorded, dropped
    finally:
        conn.close()


def store_bytes(store: Path) -> int:
    """The store's size once its write-ahead log is folded in (what it holds, not the log's history)."""
    db = store / "responses.sqlite3"
    if db.is_file():
        conn = sqlite3.connect(db, timeout=30)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
    return sum(p.stat().st_size for p in store.glob("responses.sqlite3*") if p.is_file())


def run_pytest(
    root: Path,
    server: FaultServer,
    problem: Problem,
    args: list[str],
    out: str,
    *extra: str,
    env: dict[str, str] | None = None,
    python: str = sys.executable,
    cache: bool = True,
    timeout: float | None = 600,
    provider: str = "openai",
) -> RunResult:
    """``python -m pytest`` on the competition in ``root`` against ``server``, the store in ``root/store``
    (``cache``: pytest's cache in ``root``, for a later ``--lf``); ``provider``: the backend that talks to it
    (``openai``: openai-compatible), its SDK pointed at the server with ``--pcg-base-url``."""
    import signal
    import time

    before = (len(server.requests), server.n_answered, server.n_faulted)
    cmd = [
        python,
        "-m",
        "pytest",
        *args,
        "--pcg-backend",
        "openai-compatible" if provider == "openai" else provider,
        "--pcg-base-url",
        server.url,
        "--pcg-model",
        PROVIDER_MODELS.get(provider, problem.model),
        "--pcg-out",
        out,
        "--pcg-store",
        "store",
        "-p",
        "no:randomly",
        *extra,
    ]
    if not cache:
        cmd += ["-p", "no:cacheprovider"]
    paths = [str(root), *(str(d) for d in DOUBLES), os.environ.get("PYTHONPATH", "")]
    run_env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p), **(env or {})}
    for key in KEY_VARIABLES:
        run_env.pop(key, None)
    if env is None or "PCG_TRIAL_DEADLINE" not in env:
        run_env.pop("PCG_TRIAL_DEADLINE", None)
    t0 = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        cwd=root,
        env=run_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="backslashreplace",
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the run and every process it started
        output, _ = proc.communicate()
        code = -9
    wall = time.monotonic() - t0
    results_path = root / out / "results.json"
    results = json.loads(results_path.read_text(encoding="utf-8")) if results_path.is_file() else None
    recorded, dropped = replies_held(root / "store")
    return RunResult(
        code,
        output,
        len(server.requests) - before[0],
        server.n_answered - before[1],
        server.n_faulted - before[2],
        recorded,
        dropped,
        results,
        (root / out / "report.html").is_file(),
        store_bytes(root / "store"),
        wall,
    )


def outcomes(results: dict[str, Any] | None) -> dict[str, list[str]]:
    """Each team's trials in results.json: ``ok`` (scored), ``zero:<reason>`` or ``error``."""
    out: dict[str, list[str]] = {}
    if results is None:
        return out
    if "episodes" in results:
        for nodeid in results.get("errors", {}):  # the episode problems list errored items by node id
            team = nodeid.split("::")[0].rstrip("/").split("/")[-1]
            out.setdefault(team, []).append("error")
        for ep in results["episodes"]:
            reason = ep.get("reason")
            out.setdefault(ep["submission"], []).append("ok" if not reason else f"zero:{reason}")
        return out

    def walk(team: str, node: Any) -> None:
        if isinstance(node, dict):
            if "trial" in node and "reason" in node:
                reason = node.get("reason")
                out.setdefault(team, []).append(
                    "ok" if reason is None else "error" if reason == "error" else f"zero:{reason}"
                )
                return
            for v in node.values():
                walk(team, v)
        elif isinstance(node, list):
            for v in node:
                walk(team, v)

    for sub in results.get("submissions", []):
        walk(sub["name"], sub.get("letters") or sub.get("instances") or sub.get("trials"))
    return out


def scores(results: dict[str, Any] | None) -> dict[str, Any]:
    """Each team's score as its leaderboard shows it (the problem's own figure)."""
    if results is None:
        return {}
    if "submissions" in results:
        return {s["name"]: s.get("prompt_score", s.get("score")) for s in results["submissions"]}
    return {row["submission"]: row.get("overall", row.get("figures")) for row in results.get("leaderboard", [])}
