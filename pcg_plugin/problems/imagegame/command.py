"""`pcg imagegame score EPISODE_DIR...`: clembench v2.0 episode folders scored as clembench 2.0.0 scored them.

With ``--json`` each episode prints one line, the ``scores.json`` object clembench wrote for it (``json.dumps``
as clembench's ``json.dump``: NaN prints as ``NaN``), in the order the folders resolve. A folder above episodes
(a run's ``imagegame`` folder, an experiment folder) stands for every ``episode_*`` folder under it. An episode
that cannot be scored is named on stderr with the reason, and the command exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pcg_plugin.problems.imagegame import clembench_io, instances, scoring

HELP = "clembench imagegame: score v2.0 episode folders (interactions.json) exactly as clembench 2.0.0 did"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="imagegame_command", required=True, metavar="ACTION")
    score = sub.add_parser("score", help="print each episode's scores.json object (turn scores, episode scores)")
    score.add_argument("episodes", nargs="+", metavar="EPISODE_DIR", help="episode folders, or folders above them")
    score.add_argument(
        "--instances", metavar="INSTANCES.json", help="clembench instances file (default: the packaged v2.0 set)"
    )
    score.add_argument("--json", action="store_true", help="one scores.json object per line (the contract)")
    score.add_argument(
        "--aggregate", action="store_true", help="then print %% Played, Quality Score (std) and clemscore"
    )
    score.set_defaults(_action=_score)


def run(args: argparse.Namespace) -> int:
    return int(args._action(args))


def episode_folders(paths: list[str]) -> list[Path]:
    """Each path that holds interactions.json, else every ``episode_*`` folder below it (sorted by experiment
    folder, then game id)."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if (path / clembench_io.INTERACTIONS).is_file() or not path.is_dir():
            found.append(path)
            continue
        below = [p.parent for p in path.rglob(clembench_io.INTERACTIONS) if p.parent.name.startswith("episode_")]
        if not below:
            found.append(path)  # reported as "no interactions.json" by the reader
        found.extend(sorted(below, key=lambda p: (str(p.parent), int(p.name.split("_")[1]))))
    return found


def _score(args: argparse.Namespace) -> int:
    try:
        known = instances.load_instances(args.instances)
    except (OSError, ValueError) as err:
        print(f"pcg imagegame score: cannot read --instances: {err}", file=sys.stderr)
        return 2
    failed = 0
    episodes = []
    for folder in episode_folders(args.episodes):
        try:
            scores = clembench_io.score_folder(folder, known)
        except (clembench_io.EpisodeFolderError, scoring.NotScorable) as err:
            print(f"pcg imagegame score: {err} (not scored)", file=sys.stderr)
            failed += 1
            continue
        episodes.append(scores["episode scores"])
        if args.json:
            print(json.dumps(scores))
        else:
            e = scores["episode scores"]
            print(
                f"{folder}: Main Score {e['Main Score']} Success {e['Success']} Aborted {e['Aborted']}"
                f" requests {e['Parsed Request Count']}/{e['Request Count']} parsed"
            )
    if args.aggregate and episodes:
        summary = scoring.aggregate(episodes)
        print(json.dumps(summary) if args.json else "  ".join(f"{k} {v}" for k, v in summary.items()))
    return 1 if failed else 0
