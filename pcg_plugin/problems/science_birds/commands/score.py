"""`pcg score DIR`: the official scoring and ranking of a folder in the official layout; writes DIR/result/."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

from pcg_plugin.problems.science_birds.editions import DEFAULT, YEARS
from pcg_plugin.problems.science_birds.letters import LETTERS

HELP = (
    "score a folder in the official layout (one sub-folder per program) and write DIR/result/ like the official scorer"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir",
        help="folder holding <program>/stability|similarity|diversity/<C>.json, or a run "
        "folder (with results.json: its submissions are the programs, its settings "
        "the defaults)",
    )
    parser.add_argument(
        "--edition",
        choices=YEARS,
        default=None,
        help=f"2023: no diversity, trials paired by array position; 2024/2025: spec §6.2 "
        f"(default: the run's, else {DEFAULT})",
    )
    parser.add_argument(
        "--letters",
        default=None,
        help="letters to score, e.g. AIL or A,I,L (default: the run's, else A..Z; the prompt divisor is their count)",
    )
    parser.add_argument(
        "--trials", type=int, default=None, help="T, the trial count of the denominators (default: the run's, else 10)"
    )
    parser.add_argument(
        "--disable-weights",
        action="store_true",
        default=None,
        help="all weights 1 (official DISABLE_WEIGHTS; default: the run's, else off)",
    )
    parser.add_argument(
        "--tie-break",
        choices=("prompt-length",),
        default=None,
        help="the site's policy (shorter prompt wins, else co-winners); lengths from results.json "
        "or <program>/prompt.txt. The official script has none (default: the run's)",
    )
    parser.add_argument("--no-write", action="store_true", help="print the ranking only; leave DIR/result/ alone")


def _letters(text: str) -> list[str]:
    letters = [c for c in text.upper() if c.isalpha()]
    bad = [c for c in letters if c not in LETTERS]
    if not letters or bad:
        raise ValueError(f"--letters: expected letters A..Z, got {text!r}")
    return sorted(set(letters))


def _prompt_lengths(src: Path) -> dict[str, int]:
    """Each program's ``prompt.txt`` length, by the name ``read_layout`` gives the program."""
    from pcg_plugin._util.names import shown
    from pcg_plugin.problems.science_birds.report.official_layout import program_dirs

    out = {}
    for folder in program_dirs(src):
        prompt = folder / "prompt.txt"
        if prompt.is_file():
            out[shown(folder.name)] = len(prompt.read_text(encoding="utf-8-sig"))
    return out


def _official_folder(src: Path, args: argparse.Namespace) -> int:
    """Every sub-folder but logs/ and result/ is a program, as the official scorer counts them."""
    from pcg_plugin.problems.science_birds.report import official_layout
    from pcg_plugin.problems.science_birds.scoring import official as scoring

    edition = args.edition or DEFAULT
    letters = _letters(args.letters or "".join(LETTERS))
    programs = official_layout.read_layout(src, letters, edition=edition)
    if not programs:
        print(
            f"pcg score: {src}: no program folders (every sub-folder except logs/ and result/ is one)", file=sys.stderr
        )
        return 2
    lengths = _prompt_lengths(src) if args.tie_break else None
    result = scoring.score(
        programs,
        edition=edition,
        trials=args.trials or 10,
        letters=letters,
        disable_weights=bool(args.disable_weights),
        tie_break=args.tie_break,
        prompt_lengths=lengths,
    )
    if not args.no_write:
        official_layout.write_results(src / "result", result)
    _print(
        f"edition {edition}, {len(programs)} programs",
        result.competition_score,
        [(n, r, result.programs[n].normalized_score, result.programs[n].prompt_score) for n, r in result.ranking],
    )
    if not args.no_write:
        print(f"wrote {src / 'result'}")
    return 0


def _run_folder(src: Path, args: argparse.Namespace) -> int:
    """A pytest-pcg run folder: the submissions its results.json names are the programs (thumbs/ and the rest
    are not), scored with the run's settings unless an option says otherwise; several models as the run did."""
    from pcg_plugin.problems.science_birds.editions import edition as edition_record
    from pcg_plugin.problems.science_birds.report import official_layout, run_layout
    from pcg_plugin.problems.science_birds.scoring import official as scoring

    run = run_layout.read_run_folder(src)
    edition = args.edition or run.edition
    letters = _letters(args.letters) if args.letters else list(run.letters)
    trials = args.trials or run.trials
    weights_off = run.disable_weights if args.disable_weights is None else args.disable_weights
    tie_break = args.tie_break or run.tie_break
    lengths = dict(run.prompt_lengths) if tie_break else None
    head = (
        f"run folder: {len(run.names)} programs from results.json, edition {edition}, letters "
        f"{','.join(letters)}, {trials} trials"
    )
    if run.models is None or not edition_record(edition).several_models:
        # one official tree, or (2023, 2024 with several models) one per model, each scored alone
        trees = {None: src} if run.models is None else {m: src / f for m, f in run.models.items()}
        for model, tree in trees.items():
            programs = official_layout.read_layout(tree, letters, edition=edition, names=run.names)
            result = scoring.score(
                programs,
                edition=edition,
                trials=trials,
                letters=letters,
                disable_weights=weights_off,
                tie_break=tie_break,
                prompt_lengths=lengths or None,
            )
            if not args.no_write:
                official_layout.write_results(tree / "result", result)
            rows = [
                (n, r, result.programs[n].normalized_score, result.programs[n].prompt_score) for n, r in result.ranking
            ]
            alone = f", model {model} (scored alone: the {edition} edition ran one model)" if model else ""
            _print(head + alone, result.competition_score, rows)
            if not args.no_write:
                print(f"wrote {tree / 'result'}")
        return 0
    else:  # one official tree per model, scored per model and summed, as the run scored them
        per_model = {
            m: official_layout.read_layout(src / f, letters, edition=edition, names=run.names)
            for m, f in run.models.items()
        }
        multi = scoring.score_models(
            per_model,
            trials=trials,
            letters=letters,
            disable_weights=weights_off,
            tie_break=tie_break,
            prompt_lengths=lengths or None,
        )
        competition = multi.competition_score
        rows = [(n, r, multi.normalized[n], multi.totals[n]) for n, r in multi.ranking]
        written = {src / run.models[m] / "result": res for m, res in multi.per_model.items()}
        head += f", {len(run.models)} models"
    if not args.no_write:
        for folder, res in written.items():
            official_layout.write_results(folder, res)
    _print(head, competition, rows)
    if not args.no_write:
        for folder in written:
            print(f"wrote {folder}")
    return 0


def _print(head: str, competition: Decimal, rows: Sequence[tuple[str, int, Decimal, Decimal]]) -> None:
    from pcg_plugin.problems.science_birds.scoring import official as scoring

    print(f"{head}, competition score {scoring.fmt(competition)}")
    width = max((len(n) for n, *_ in rows), default=0)
    for name, rank, normalized, prompt in rows:
        print(f"{rank:>3}  {name:<{width}}  {float(normalized):8.4f}  {scoring.fmt(prompt)}")


def run(args: argparse.Namespace) -> int:
    from pcg_plugin.errors import PcgError
    from pcg_plugin.problems.science_birds.report import run_layout

    src = Path(args.dir)
    if not src.is_dir():
        print(f"pcg score: {src}: not a folder", file=sys.stderr)
        return 2
    try:
        if run_layout.is_run_folder(src):
            return _run_folder(src, args)
        return _official_folder(src, args)
    except (PcgError, ValueError) as exc:
        print(f"pcg score: {exc}", file=sys.stderr)
        print("pcg score: nothing written (the official scorer writes no result in this case)", file=sys.stderr)
        return 1
