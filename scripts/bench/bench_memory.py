"""Peak resident memory (RSS) of every xdist worker, per problem, on a small scripted run of each.

    python scripts/bench/bench_memory.py [-n 2] [--problems science-birds,pcgbench,imagegame]

Each problem runs once with ``-n N`` in a temporary folder with its scripted test double (no network, no LLM):
science-birds a 2024 competition (3 programs x 4 letters x 2 trials, glyph letters, the embedded classifier;
``--classify-mode service`` puts it in one shared process),
pcgbench ``binary-v0`` (tests/pcgbench/grid_double.py, 2 instances x 2 trials), imagegame the three example
submissions (tests/imagegame/ig_doubles.py, 2 instances). A plugin loaded with ``-p`` writes each process's
``ru_maxrss`` at the end of its session; the sandboxed submission programs run in separate processes (each
worker's fork server and the trials forked from it, limited by the sandbox) and are not counted. Prints the
controller's and each worker's peak in MiB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "checks"))

from replay_snapshot import PROGRAM_2024, RESPONDER  # noqa: E402 - scripts/, put on sys.path above

RSS = """
import json, os, resource
def pytest_sessionfinish(session):
    who = getattr(session.config, "workerinput", {}).get("workerid", "controller")
    folder = os.environ["BENCH_RSS"]
    os.makedirs(folder, exist_ok=True)
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    open(os.path.join(folder, who + ".json"), "w").write(json.dumps(kib))
"""

PROGRAM_PCGBENCH = """
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop

class Entry(TrialLoop):
    @staticmethod
    def run(ctx, task):
        return chat_with_llm(ctx, [{"role": "user", "content": f"{task} TRIAL={ctx.get_trial_number()}"}])[0]
"""


def science_birds(root: Path) -> list[str]:
    for i in range(3):
        path = root / "subs" / f"team{i}" / f"team{i}.py"
        path.parent.mkdir(parents=True)
        path.write_text(textwrap.dedent(PROGRAM_2024.replace("OFFSET", str(i))))
    (root / "scripted_llm.py").write_text(textwrap.dedent(RESPONDER))
    return [
        "--pcg-edition",
        "2024",
        "--pcg-letters",
        "A,B,C,D",
        "--pcg-trials",
        "2",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "scripted_llm:respond",
    ]


def pcgbench(root: Path) -> list[str]:
    shutil.copy(ROOT / "tests" / "pcgbench" / "grid_double.py", root / "grid_double.py")
    (root / "subs" / "good").mkdir(parents=True)
    (root / "subs" / "good" / "entry.py").write_text(textwrap.dedent(PROGRAM_PCGBENCH))
    return [
        "--pcg-problem",
        "pcgbench/binary-v0",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "grid_double:respond",
        "--pcg-grid-instances",
        "2",
        "--pcg-trials",
        "2",
    ]


def imagegame(root: Path) -> list[str]:
    shutil.copy(ROOT / "tests" / "imagegame" / "ig_doubles.py", root / "ig_doubles.py")
    shutil.copytree(ROOT / "examples" / "imagegame", root / "subs")
    return [
        "--pcg-problem",
        "imagegame",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "ig_doubles:respond_perfect",
        "--pcg-imagegame-instances",
        "compact_grids/0,random_grids/1",
    ]


PROBLEMS = {"science-birds": science_birds, "pcgbench": pcgbench, "imagegame": imagegame}


def measure(name: str, workers: int, classify_mode: str) -> dict[str, float]:
    """Peak RSS in MiB per process of one ``-n workers`` run of ``name``."""
    with tempfile.TemporaryDirectory(prefix=f"bench-memory-{name}-") as tmp:
        root = Path(tmp)
        (root / "bench_rss.py").write_text(RSS)
        extra = PROBLEMS[name](root)
        if name == "science-birds":
            extra += ["--pcg-classify-mode", classify_mode]
        env = {
            **os.environ,
            "PYTHONPATH": f"{ROOT}{os.pathsep}{root}",
            "BENCH_RSS": str(root / "rss"),
            "PIP_NO_INDEX": "1",
            "PCG_CACHE_DIR": str(root / "cache"),
        }
        env.pop("OPENAI_API_KEY", None)
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "subs",
            *extra,
            "--pcg-out",
            "out",
            "--pcg-store",
            "store",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-p",
            "bench_rss",
            "-q",
            "-n",
            str(workers),
        ]
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
        found = (
            {p.stem: json.loads(p.read_text()) / 1024 for p in sorted((root / "rss").glob("*.json"))}
            if (root / "rss").is_dir()
            else {}
        )
        if not any(k.startswith("gw") for k in found):
            raise SystemExit(
                f"{name}: no worker reported (exit {proc.returncode})\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
            )
        found["summary"] = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else f"exit {proc.returncode}"
        return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--workers", type=int, default=2)
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument(
        "--classify-mode", default="auto", help="science-birds --pcg-classify-mode (auto = local on CPU)"
    )
    args = parser.parse_args()
    for name in args.problems.split(","):
        rss = measure(name, args.workers, args.classify_mode)
        summary = rss.pop("summary")
        workers = {k: v for k, v in rss.items() if k.startswith("gw")}
        listing = ", ".join(f"{k} {v:.0f}" for k, v in workers.items())
        mode = f" (classify mode {args.classify_mode})" if name == "science-birds" else ""
        print(
            f"{name}{mode}: peak RSS per worker (MiB): {listing}; max {max(workers.values()):.0f}; "
            f"controller {rss.get('controller', float('nan')):.0f} ({summary})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
