"""`pcg site RUN_OR_FOLDER... -o SITE`: a static site over many run folders (docs/site.md)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HELP = (
    "a static site over run folders: an index of runs, each run's report and trial viewer, the model card over "
    "all runs and a leaderboard per problem; run again with more runs to bring it up to date"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "runs", metavar="RUN_OR_FOLDER", nargs="+", help="run folders (a suite's too), or folders of run folders"
    )
    parser.add_argument("-o", "--output", metavar="SITE", required=True, help="the site's folder (new, or a site)")
    parser.add_argument("--title", default="Runs", help="the index page's title (default: Runs)")
    parser.add_argument(
        "-j", "--jobs", type=int, default=os.cpu_count() or 1, help="processes that read new runs (default: the CPUs)"
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=200,
        help="bootstrap resamples of each run's score intervals (default 200, as pcg card): most of a new run's time",
    )


def expand(given: str) -> list[Path]:
    """A run folder (it holds results.json) as itself; any other folder as the run folders directly in it."""
    path = Path(given)
    if path.is_file() or (path / "results.json").is_file() or not path.is_dir():
        return [path]
    found = sorted(p for p in path.iterdir() if (p / "results.json").is_file())
    return found or [path]


def run(args: argparse.Namespace) -> int:
    from pcg_plugin.core.views import site
    from pcg_plugin.errors import ResultsError

    inputs = [p for given in args.runs for p in expand(given)]
    try:
        built = site.build(inputs, args.output, resamples=args.resamples, title=args.title, jobs=args.jobs)
    except ResultsError as exc:
        print(f"pcg site: {exc}", file=sys.stderr)
        return 2
    m = built.mirrored
    how = ", ".join(f"{n} by {kind}" for kind, n in sorted(m.how.items())) or "none"
    print(
        f"site: {built.runs} run(s) of {built.problems} problem(s) -> {built.site / 'index.html'}\n"
        f"  run files: {m.linked} linked, {m.kept} unchanged, {m.removed} removed ({how}); "
        f"runs read {built.read}, from the manifest {built.runs - built.read}\n"
        f"  pages written: {', '.join(built.pages) or 'none (nothing changed)'}\n"
        f"  {built.seconds:.1f} s: linking {built.link_seconds:.1f} s, reading runs {built.read_seconds:.1f} s",
        file=sys.stderr,
    )
    if m.how.get("symbolic link"):
        print(
            "  note: some files are symbolic links to the run folders (no hard links here): copy the site with "
            "links followed (cp -rL, rsync -L) before publishing it",
            file=sys.stderr,
        )
    return 0
