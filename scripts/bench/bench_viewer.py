"""Bytes per trial of a competition-sized report with its viewer (trial pages, transcripts, animations), and the
time a headless Chromium takes to open it.

    python scripts/bench/bench_viewer.py WORK [--trials 10] [-n 2]

WORK gets a Science Birds competition of ten submissions: the eight prompts of the organizers' 2024 examples
(``shared/data/official-examples/2024-pe-examples``) and the first of the 2025 few-shot example as 2023-format
prompt files, and the 2024 multi-turn example's
two prompts as a program that sends both (so transcripts hold real prompt sizes and a resent history), answered
by a scripted double that draws the asked letter (no model), scored with a tiny random classifier. The run
(26 letters x 2 trials, ``WORK/run``) is grown to ``--trials`` trials per letter in ``WORK/grown`` (each trial's
files, transcript and stability animation copied under the new trial's name), its report and viewer written
again, and measured: report.html and everything beside it, per trial; then Chromium opens the copied folder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts" / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from bench_report import expand, open_times  # noqa: E402 - scripts/, put on sys.path above

from pcg_plugin._util.paths import shared_data  # noqa: E402 - this checkout's pcg_plugin, on sys.path above

RESPONDER = """
import re
from pcg_plugin.problems.science_birds.level.glyphs import letter_program

def respond(messages, n=1):
    text = "\\n".join(str(m["content"]) for m in messages if m["role"] == "user")
    found = re.findall(r'"([A-Z])"', text) or re.findall(r"TARGET=([A-Z])", text) or ["A"]
    turn = sum(1 for m in messages if m["role"] == "assistant")
    plan = "Plan: a tall stem, then the strokes, stones at the base, checked for overhangs.\\n" * 6
    return [plan + "```\\n" + letter_program(found[-1], turn % 4) + "\\n```"] * n
"""

MULTI = """
from pathlib import Path
from chatgpt4pcg.competition import chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        history = []
        for name in ("0.txt", "1.txt"):
            text = (Path(__file__).parent / name).read_text()
            history.append({"role": "user", "content": text.replace("<OBJECT>", f'"{target_character}"')})
            history.append({"role": "assistant", "content": chat_with_chatgpt(ctx, history)[0]})
        return history[-1]["content"]
"""


def make_competition(work: Path) -> None:
    from e2e_support import make_tiny_classifier

    examples = shared_data() / "official-examples" / "2024-pe-examples"
    subs = work / "submissions"
    prompts = sorted(examples.glob("*/prompts/*.txt"))
    prompts += sorted((examples.parent / "2025-llms4pcg-pe-examples").glob("few_shot/prompts/*.txt"))[:1]
    for prompt in prompts:
        if prompt.parent.parent.name == "zero_shot_multi_turn":
            continue
        year = "_2025" if "2025" in str(prompt) else ""
        name = f"{prompt.parent.parent.name}_{prompt.stem}{year}".replace("-", "_")
        (subs / name).mkdir(parents=True, exist_ok=True)
        text = prompt.read_text(encoding="utf-8")
        (subs / name / "prompt.txt").write_text(text if "<OBJECT>" in text else text + "\n<OBJECT>", encoding="utf-8")
    multi = subs / "zero_shot_multi_turn"
    multi.mkdir(parents=True, exist_ok=True)
    (multi / "entry.py").write_text(textwrap.dedent(MULTI))
    for name in ("0.txt", "1.txt"):
        shutil.copyfile(examples / "zero_shot_multi_turn" / "prompts" / name, multi / name)
    (work / "scripted_llm.py").write_text(textwrap.dedent(RESPONDER))
    make_tiny_classifier(work / "tiny-classifier")


def record_run(work: Path, workers: str) -> Path:
    run = work / "run"
    if (run / "results.json").is_file():
        return run
    make_competition(work)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "submissions",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "scripted_llm:respond",
        "--pcg-classifier",
        "tiny-classifier",
        "--pcg-trials",
        "2",
        "--pcg-out",
        "run",
        "--pcg-store",
        "store",
        "-p",
        "no:cacheprovider",
        "-q",
        "-p",
        "xdist",
        "-n",
        workers,
    ]
    subprocess.run(cmd, cwd=work, check=True, env={**__import__("os").environ, "PYTHONPATH": str(work)})
    return run


def grow(run: Path, out: Path, trials: int) -> tuple[dict, list[dict]]:  # type: ignore[type-arg]
    """The run with ``trials`` trials per letter: files, transcripts and animations copied under the new names."""
    from pcg_plugin.core.records import transcript
    from pcg_plugin.problems.science_birds.outputs import animation_rel

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    before = json.loads((run / "results.json").read_text())
    doc = expand(run, out, trials)
    docs = []
    for sub, old_sub in zip(doc["submissions"], before["submissions"], strict=True):
        for letter, data in sub["letters"].items():
            have = old_sub["letters"][letter]["trials"]
            for k, t in enumerate(data["trials"]):
                source = have[k % len(have)]
                t["nodeid"] = source["nodeid"].rsplit("::", 1)[0] + f"::{t['trial']}"
                tdoc = transcript.read(run, source["nodeid"])
                tdoc.update(nodeid=t["nodeid"], trial=t["trial"])
                for state in tdoc["states"]:
                    state["links"] = [
                        [label, rel.replace(f"_{source['trial']}.", f"_{t['trial']}.")]
                        for label, rel in state.get("links") or ()
                    ]
                    if state.get("image"):
                        state["image"] = state["image"].replace(f"_{source['trial']}.", f"_{t['trial']}.")
                transcript.write(out, tdoc)
                docs.append(tdoc)
                if source.get("image") and (run / animation_rel(source["image"])).is_file():
                    target = out / animation_rel(t["image"])
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(run / animation_rel(source["image"]), target)
    (out / "results.json").write_text(json.dumps(doc))
    return doc, docs


def write_viewer(doc: dict, docs: list[dict], out: Path) -> tuple[Path, float]:  # type: ignore[type-arg]
    from pcg_plugin.core.records.calls import Call, Totals
    from pcg_plugin.core.session.controller import Collected
    from pcg_plugin.core.views import viewer
    from pcg_plugin.problems.science_birds.problem import ScienceBirds
    from pcg_plugin.problems.science_birds.records import TrialRecord
    from pcg_plugin.problems.science_birds.report.html import write_report

    t0 = time.perf_counter()
    report = write_report(doc, out)
    shutil.copyfile(report, out / "report-without-viewer.html")  # the same page as before the viewer, to compare
    collected, totals = Collected(), {}
    by_node = {d["nodeid"]: d for d in docs}
    for sub in doc["submissions"]:
        for letter, data in sub["letters"].items():
            for t in data["trials"]:
                collected.add_item(t["nodeid"], {"name": sub["name"], "letter": letter, "trial": t["trial"]})
                collected.add_record(
                    TrialRecord(
                        nodeid=t["nodeid"],
                        submission=sub["name"],
                        letter=letter,
                        trial=t["trial"],
                        sta=t["sta"],
                        sim=t["sim"],
                        reason=t["reason"],
                    )
                )
                totals[t["nodeid"]] = Totals.of([Call.from_dict(c) for c in by_node[t["nodeid"]]["calls"]])
    viewer.add_to_report(report, out, collected, ScienceBirds(), totals, doc["settings"]["letters"])
    return report, time.perf_counter() - t0


def measure(out: Path, report: Path, n: int) -> tuple[float, float, Counter[str]]:
    """Bytes per trial of report.html and of everything beside it (the copy of the page without the viewer's
    part left out), and the bytes of each kind of file beside it."""
    parts: Counter[str] = Counter()
    for path in out.rglob("*"):
        if path.is_file() and path != report and path.name != "report-without-viewer.html":
            top = path.relative_to(out).parts[0]
            kind = top if top in ("trials", "animations", "thumbs", "result", "results.json") else "official files"
            if top == "trials":
                inner = path.relative_to(out / "trials").parts
                kind = f"trials/{inner[0]}/*" if len(inner) > 1 else f"trials/*{''.join(path.suffixes)}"
                kind = f"trials/{path.name}" if path.name in ("viewer.css", "view.html") else kind
            parts[kind] += path.stat().st_size
    return report.stat().st_size / n, sum(parts.values()) / n, parts


STAGE_FILES = ("*/similarity/*.json", "*/diversity/*.json", "*/stability/*.json", "trials.jsonl", "result/*")


def sizes(out: Path, report: Path, n: int, run: Path, recorded: int) -> None:
    page, beside, parts = measure(out, report, n)
    base = (out / "report-without-viewer.html").stat().st_size
    print(
        f"{n} trials: report.html {page * n / 1e6:.2f} MB = {page:.0f} B/trial "
        f"(without the viewer's part {base / n:.0f} B/trial); "
        f"beside it {beside * n / 1e6:.2f} MB = {beside / 1e3:.1f} KB/trial"
    )
    for kind, size in parts.most_common():
        print(f"  {kind:24s} {size / 1e6:8.2f} MB  {size / n / 1e3:6.2f} KB/trial")
    stage = sum(p.stat().st_size for pattern in STAGE_FILES for p in run.glob(pattern) if p.is_file())
    print(
        f"not in the grown copy: the official stage files (similarity/diversity/stability JSON, trials.jsonl, "
        f"result/) of the recorded run, {stage / recorded / 1e3:.2f} KB/trial ({recorded} trials)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("-n", default="2", help="xdist workers for the recorded run")
    parser.add_argument("--shot", type=Path, default=None, help="where to keep the screenshot")
    args = parser.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    run = record_run(work, args.n)
    doc, docs = grow(run, work / "grown", args.trials)
    report, took = write_viewer(doc, docs, work / "grown")
    print(f"report and viewer written in {took:.1f} s")
    recorded = sum(1 for line in (run / "trials.jsonl").read_text().splitlines() if line.strip())
    sizes(work / "grown", report, len(docs), run, recorded)
    empty, (base, full) = open_times(
        work / "grown", ["report-without-viewer.html", "report.html"], args.shot.resolve() if args.shot else None
    )
    print(
        f"headless Chromium screenshot of the copied report: {full:.1f} s; the same report without the viewer's "
        f"part: {base:.1f} s; an empty page: {empty:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
