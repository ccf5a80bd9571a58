"""`pcg score DIR`: the official scoring and ranking of a folder in the official layout; writes DIR/result/."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pcg_plugin.problems.science_birds.editions import DEFAULT, YEARS
from pcg_plugin.problems.science_birds.letters import LETTERS

HELP = "score a folder in the official layout (one sub-folder per program) and write DIR/result/ like the official scorer"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", help="folder holding <program>/stability|similarity|diversity/<C>.json")
    parser.add_argument("--edition", choices=YEARS, default=DEFAULT,
                        help="2023: no diversity, trials paired by array position; 2024/2025: spec §6.2 (default 2024)")  # fmt: skip
    parser.add_argument("--letters", default="".join(LETTERS),
                        help="letters to score, e.g. AIL or A,I,L (default A..Z; the prompt divisor is their count)")  # fmt: skip
    parser.add_argument("--trials", type=int, default=10, help="T, the trial count of the denominators (default 10)")
    parser.add_argument("--disable-weights", action="store_true", help="all weights 1 (official DISABLE_WEIGHTS)")
    parser.add_argument("--tie-break", choices=("prompt-length",), default=None,
                        help="the site's policy (shorter prompt wins, else co-winners); lengths from "
                             "<program>/prompt.txt when present. The official script has none")  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="print the ranking only; leave DIR/result/ alone")


def _letters(text: str) -> list[str]:
    letters = [c for c in text.upper() if c.isalpha()]
    bad = [c for c in letters if c not in LETTERS]
    if not letters or bad:
        raise ValueError(f"--letters: expected letters A..Z, got {text!r}")
    return sorted(set(letters))


def _prompt_lengths(src: Path, names: list[str]) -> dict[str, int]:
    out = {}
    for name in names:
        prompt = src / name / "prompt.txt"
        if prompt.is_file():
            out[name] = len(prompt.read_text(encoding="utf-8-sig"))
    return out


def run(args: argparse.Namespace) -> int:
    from pcg_plugin.problems.science_birds.report import official_layout
    from pcg_plugin.problems.science_birds.scoring import official as scoring
    from pcg_plugin.errors import PcgError

    src = Path(args.dir)
    if not src.is_dir():
        print(f"pcg score: {src}: not a folder", file=sys.stderr)
        return 2
    try:
        letters = _letters(args.letters)
        programs = official_layout.read_layout(src, letters, edition=args.edition)
        if not programs:
            print(f"pcg score: {src}: no program folders (every sub-folder except logs/ and result/ is one)",
                  file=sys.stderr)  # fmt: skip
            return 2
        lengths = _prompt_lengths(src, list(programs)) if args.tie_break else None
        result = scoring.score(
            programs, edition=args.edition, trials=args.trials, letters=letters,
            disable_weights=args.disable_weights, tie_break=args.tie_break, prompt_lengths=lengths,
        )  # fmt: skip
    except (PcgError, ValueError) as exc:
        print(f"pcg score: {exc}", file=sys.stderr)
        print("pcg score: nothing written (the official scorer writes no result in this case)", file=sys.stderr)
        return 1
    if not args.no_write:
        official_layout.write_results(src / "result", result)
    width = max(len(n) for n in programs)
    print(f"edition {args.edition}, {len(programs)} programs, competition score {scoring.fmt(result.competition_score)}")
    for name, rank in result.ranking:
        prog = result.programs[name]
        print(f"{rank:>3}  {name:<{width}}  {float(prog.normalized_score):8.4f}  {scoring.fmt(prog.prompt_score)}")
    if not args.no_write:
        print(f"wrote {src / 'result'}")
    return 0
