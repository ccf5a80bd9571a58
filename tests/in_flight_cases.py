"""Cases of trials in flight against a slow model server, for ``tests/e2e/test_in_flight_e2e.py`` and
``scripts/bench/bench_in_flight.py``: a competition of each family written into a folder (Science Birds' 2024 programs,
or
the examples of the PCG Benchmark, the picture game and SpyFall), the test double that answers it (the same
answers from the scripted backend and from a loopback OpenAI-compatible server that takes ``delay`` seconds a call
and counts the calls it has in flight at once), the command line of a run, and what must not differ between two
runs of the same trials."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import loopback_llm

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

# The 2024 programs: one call, and two calls (a plan, then the level asked with the plan in the conversation).
ONE_CALL = """
from chatgpt4pcg.competition import chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        return chat_with_chatgpt(ctx, [{"role": "user", "content":
            f"TARGET={target_character} TRIAL={ctx.get_trial_number()}"}])[0]
"""
TWO_CALLS = """
from chatgpt4pcg.competition import chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        ask = {"role": "user", "content": f"Plan TARGET={target_character} TRIAL={ctx.get_trial_number() + 1}"}
        plan = chat_with_chatgpt(ctx, [ask])[0]
        return chat_with_chatgpt(ctx, [ask, {"role": "assistant", "content": plan},
            {"role": "user", "content": f"Now TARGET={target_character} TRIAL={ctx.get_trial_number() + 1}"}])[0]
"""
SB_RESPONDER = """
import re
from pcg_plugin.problems.science_birds.level.glyphs import letter_program

def respond(messages, n=1):
    text = messages[-1]["content"]
    letter = re.search(r'TARGET="?([A-Z])', text).group(1)
    trial = re.search(r"TRIAL=(\\d+)", text)
    return ["```\\n" + letter_program(letter, int(trial.group(1)) % 4 if trial else 0) + "\\n```"] * n
"""
CASES: dict[str, dict[str, Any]] = {
    "science-birds": {
        "responder": "bench_double:respond",
        "args": ["submissions", "--pcg-edition", "2024"],
        "targets": ["--pcg-letters", "A-Z"],
        "small": ["--pcg-letters", "I,L,T"],
    },
    "pcgbench": {
        "responder": "grid_double:respond",
        "args": ["subs", "--pcg-problem", "pcgbench/binary-v0"],
        "targets": [],
        "small": ["--pcg-grid-instances", "2"],
        "examples": {
            "subs/zero_shot": "examples/pcgbench/zero_shot",
            "subs/self_check": "examples/pcgbench/self_check",
        },
        "path": TESTS / "pcgbench",
    },
    "imagegame": {
        "responder": "ig_doubles:respond_perfect",
        "args": ["subs", "--pcg-problem", "imagegame"],
        "targets": ["--pcg-imagegame-instances", "compact_grids/0,compact_grids/1,random_grids/1,random_grids/2"],
        "small": ["--pcg-imagegame-instances", "compact_grids/0,random_grids/1"],
        "examples": {"subs/selfplay": "examples/imagegame/selfplay"},
        "path": TESTS / "imagegame",
    },
    "spyfall": {
        "responder": "ge_doubles:respond",
        "args": ["subs", "--pcg-problem", "gameeval/spyfall"],
        "targets": ["--pcg-gameeval-targets", "tiger&lion,ipad&iphone"],
        "small": ["--pcg-gameeval-targets", "tiger&lion,ipad&iphone"],
        "examples": {"subs": "examples/gameeval/spyfall"},
        "path": TESTS / "gameeval",
    },
}
VOLATILE = {"seconds", "cost_usd"}  # what differs between two runs of the same trials (a replayed call costs 0)
# who answered: the same answers from the scripted double (the benchmark's floor) and from the server name another
# model and count other tokens
ANSWERER = {"model", "prompt_tokens", "completion_tokens"}


def load(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(__import__(module), name)


class SlowServer(loopback_llm.FakeOpenAI):
    """Answers what the scripted double answers for the same messages, ``delay`` seconds after each request;
    ``most_at_once``: the most requests it had in flight at the same time."""

    def __init__(self, respond: Any, delay: float) -> None:
        super().__init__()
        self.respond, self.delay = respond, delay
        self.at_once = self.most_at_once = 0
        self.counting = threading.Lock()

    def fault_for(self, body: dict[str, Any]) -> tuple[Any, ...] | None:
        with self.counting:
            self.at_once += 1
            self.most_at_once = max(self.most_at_once, self.at_once)
        return ("sleep", self.delay)

    def answer(self, body: dict[str, Any]) -> list[str]:
        with self.counting:
            self.at_once -= 1
        return list(self.respond(body["messages"], body.get("n", 1)))


def make_work(work: Path, case: str) -> None:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    spec = CASES[case]
    if case == "science-birds":
        for name, text in (("one_call", ONE_CALL), ("two_calls", TWO_CALLS)):
            (work / "submissions" / name).mkdir(parents=True)
            (work / "submissions" / name / f"{name}.py").write_text(textwrap.dedent(text))
        (work / "bench_double.py").write_text(textwrap.dedent(SB_RESPONDER))
    for dest, src in spec.get("examples", {}).items():
        shutil.copytree(ROOT / src, work / dest, dirs_exist_ok=True)


def command(case: str, out: str, trials: int, workers: int, *extra: str, small: bool = False) -> list[str]:
    """The run's command line; ``small``: a few targets (the tests), else the case's whole set (the benchmark)."""
    spec = CASES[case]
    targets = list(spec["small" if small else "targets"])
    return [
        sys.executable,
        "-m",
        "pytest",
        *spec["args"],
        *targets,
        "--pcg-trials",
        str(trials),
        "--pcg-out",
        out,
        "--pcg-store",
        f"{out}-store",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-q",
        *(["-p", "xdist", "-n", str(workers)] if workers else []),
        *extra,
    ]


def stable_rows(work: Path, out: str, ignore: set[str] = VOLATILE) -> list[dict[str, Any]]:
    path = work / out / "trials.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
    stable = ({k: v for k, v in r.items() if k not in ignore} for r in rows)
    return sorted(stable, key=lambda r: (r["submission"], str(r.get("model")), str(r["target"]), r["trial"]))


def level_files(work: Path, out: str) -> dict[str, bytes]:
    base = work / out
    return {
        p.relative_to(base).as_posix(): p.read_bytes()
        for p in sorted(base.rglob("*"))
        if p.is_file() and p.suffix in (".xml", ".txt") and "/result" not in p.as_posix()
    }


def stored_calls(work: Path, out: str) -> int:

    path = work / f"{out}-store" / "responses.sqlite3"
    if not path.is_file():
        return 0
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])


SERVE = """
import sys, time, json
sys.path[:0] = sys.argv[1:4]
from in_flight_cases import SlowServer, load
import loopback_llm
server = SlowServer(load(sys.argv[4]), float(sys.argv[5]))
with loopback_llm.serve(server):
    print(server.url, flush=True)
    sys.stdin.read()
print(json.dumps({"requests": len(server.bodies), "most_at_once": server.most_at_once}), flush=True)
"""


def serve_elsewhere(case: str, work: Path, delay: float, prefix: list[str]) -> Any:
    """The slow server in a process of its own, started under ``prefix`` (``ip netns exec HOST``: beside a run in
    that network namespace). Its first line is its URL; closing its input ends it, and it then prints what it saw."""
    import subprocess

    paths = [str(TESTS), str(work), str(CASES[case].get("path") or work)]
    return subprocess.Popen(
        [*prefix, sys.executable, "-c", SERVE, *paths, CASES[case]["responder"], str(delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
