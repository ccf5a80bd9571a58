"""Snapshot what a replayed run writes, to show that a refactoring changed nothing (issue 15).

    python scripts/checks/replay_snapshot.py WORK SNAPSHOT

WORK holds a tiny competition per edition (2023 prompts, 2024 and 2025 programs, three letters, three
trials) and its response store; the first call writes them and records the scripted double's answers live.
Every call then replays that store (`--pcg-record none`, so no answer can change) with `-n 0` and with `-n 2`,
and copies `results.json` and the official files (stage files, CSVs) into SNAPSHOT/<edition>/n<workers>/.
Two snapshots taken before and after a change are compared with `diff -r` (byte for byte); the keys that
name when and where a run happened (run id, timings, paths) are the only ones blanked, and they are listed in
VOLATILE below.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

RESPONDER = """
import re
from pcg_plugin.problems.science_birds.level.glyphs import letter_program

def respond(messages, n=1):
    text = messages[-1]["content"]
    letter = re.search(r'TARGET="?([A-Z])', text).group(1)
    trial = re.search(r"TRIAL=(\\d+)", text)
    variant = int(trial.group(1)) % 4 if trial else 0
    program = letter_program(letter, variant)
    if "OLD" in text:
        program = program.replace("drop_block(", "ab_drop(")
    return ["```\\n" + program + "\\n```"] * n
"""

PROGRAM_2024 = """
from chatgpt4pcg.competition import chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        return chat_with_chatgpt(ctx, [{"role": "user", "content":
            f"TARGET={target_character} TRIAL={ctx.get_trial_number() + OFFSET}"}])[0]
"""

PROGRAM_2025 = """
from llms4pcg.competition import TrialContext, TrialLoop, chat_with_llm

class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        return chat_with_llm(ctx, [{"role": "user", "content":
            f"TARGET={target_character} TRIAL={ctx.get_trial_number() + OFFSET}"}])[0]
"""

EDITIONS: dict[str, dict[str, dict[str, str]]] = {
    "2023": {
        "alpha": {"prompt.txt": 'OLD Draw TARGET="<OBJECT>" with blocks.'},
        "beta": {"prompt.txt": "OLD Please build TARGET=<OBJECT> as a stable structure of blocks."},
    },
    "2024": {
        "alpha": {"alpha.py": PROGRAM_2024.replace("OFFSET", "0")},
        "beta": {"beta.py": PROGRAM_2024.replace("OFFSET", "1")},
    },
    "2025": {
        "alpha": {"alpha.py": PROGRAM_2025.replace("OFFSET", "0")},
        "beta": {"beta.py": PROGRAM_2025.replace("OFFSET", "2")},
    },
}
ARGS = [
    "--pcg-letters",
    "I,L,T",
    "--pcg-trials",
    "3",
    "--pcg-backend",
    "scripted",
    "--pcg-model",
    "scripted_llm:respond",
    "--pcg-store",
    "store",
    "-p",
    "no:cacheprovider",
    "-q",
]
# when and where the run happened, and which commit ran it: the only keys blanked (worker load times are
# "stats"; which worker ran which item is xdist's choice, so n0 and n2 also differ in "workers")
VOLATILE = {"id", "started", "finished", "out_dir", "timings", "stats", "git_sha"}


def _pytest(folder: Path, edition: str, out: str, *extra: str) -> None:
    cmd = [sys.executable, "-m", "pytest", "submissions", "--pcg-edition", edition, "--pcg-out", out, *ARGS, *extra]
    done = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{edition}: pytest exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")


def _blank(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<volatile>" if k in VOLATILE else _blank(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank(v) for v in value]
    return value


def _copy_outputs(run: Path, dest: Path) -> None:
    for path in sorted(run.rglob("*")):
        if not path.is_file() or path.suffix not in (".json", ".csv", ".txt", ".xml"):
            continue
        target = dest / path.relative_to(run)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.name == "results.json":
            target.write_text(json.dumps(_blank(json.loads(path.read_text())), indent=1, sort_keys=True) + "\n")
        else:
            shutil.copyfile(path, target)


def main(argv: list[str]) -> int:
    work, snapshot = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    for edition, entries in EDITIONS.items():
        folder = work / edition
        if not (folder / "store").exists():
            for name, files in entries.items():
                for fname, text in files.items():
                    path = folder / "submissions" / name / fname
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(textwrap.dedent(text))
            (folder / "scripted_llm.py").write_text(textwrap.dedent(RESPONDER))
            _pytest(folder, edition, "live", "-n", "0")
        for workers in ("0", "2"):
            out = f"replay-n{workers}"
            shutil.rmtree(folder / out, ignore_errors=True)
            _pytest(folder, edition, out, "-n", workers, "--pcg-record", "none")
            _copy_outputs(folder / out, snapshot / edition / f"n{workers}")
        print(f"{edition}: snapshot in {snapshot / edition}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
