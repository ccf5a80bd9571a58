"""`pcg gameeval replay GAME SCRIPT.jsonl --json` and `pcg gameeval aggregate GAME RESULTS.jsonl [--n N] --json`.

``replay`` plays each script line's episode on its scripted replies and prints one output object per line
(``spec/gameeval-replay.md`` §2); a line that cannot be replayed is named on stderr and the command exits 1.
``aggregate`` prints the reference's compute-script figures over the output objects' ``result`` records
(lines with a null result skipped, as the reference wrote nothing for them); where the reference divides by
zero it names the group on stderr and exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pcg_plugin.problems.gameeval import aggregate, replay

HELP = "GameEval: replay Ask-Guess, SpyFall or TofuKingdom episodes on scripted replies; aggregate their results"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="gameeval_command", required=True, metavar="ACTION")
    rep = sub.add_parser("replay", help="play each script line's episode; print its outcome, rounds, result, calls")
    rep.add_argument("game", choices=replay.GAMES, metavar="GAME", help="askguess, spyfall or tofukingdom")
    rep.add_argument("script", metavar="SCRIPT.jsonl", help="one episode per line: setup and replies in call order")
    rep.add_argument("--json", action="store_true", help="one output object per line (the contract)")
    rep.add_argument(
        "--no-calls",
        action="store_true",
        help="leave each line's calls out (enough for aggregate; large runs print far less)",
    )
    rep.set_defaults(_action=_replay)
    agg = sub.add_parser("aggregate", help="the reference compute script's figures over replay output lines")
    agg.add_argument("game", choices=replay.GAMES, metavar="GAME", help="askguess, spyfall or tofukingdom")
    agg.add_argument("results", metavar="RESULTS.jsonl", help="replay output objects, one per line")
    agg.add_argument(
        "--n",
        type=int,
        default=aggregate.DEFAULT_N,
        help="Ask-Guess: trials per word the rates divide by (default 20, as askguess/compute.py)",
    )
    agg.add_argument("--json", action="store_true", help="print the figures as one JSON object (the contract)")
    agg.set_defaults(_action=_aggregate)


def run(args: argparse.Namespace) -> int:
    return int(args._action(args))


def _lines(path: str, what: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{number}: not a JSON {what} ({err})") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{number}: a {what} is a JSON object, got {type(row).__name__}")
            rows.append((number, row))
    return rows


def _replay(args: argparse.Namespace) -> int:
    try:
        lines = _lines(args.script, "script line")
    except (OSError, ValueError) as err:
        print(f"pcg gameeval replay: {err}", file=sys.stderr)
        return 2
    failed = 0
    for number, line in lines:
        try:
            out = replay.replay_line(args.game, line)
        except (replay.ScriptError, ValueError) as err:
            print(
                f"pcg gameeval replay: {args.script}:{number} (id {line.get('id')!r}): {err}; episode not replayed",
                file=sys.stderr,
            )
            failed += 1
            continue
        if args.no_calls:
            out.pop("calls")
        if args.json:
            print(json.dumps(out))
        else:
            print(f"{out['id']}: {out['outcome']} (rounds {out['rounds']}): {out['why']}")
    return 1 if failed else 0


def figures(game: str, rows: list[dict[str, Any]], n: int) -> dict[str, Any]:
    kept = [r for r in rows if r.get("result") is not None]
    if game == "askguess":
        return aggregate.askguess([r["result"] for r in kept], n)
    if game == "spyfall":
        return aggregate.spyfall([(r["pair"], r["result"]) for r in kept])
    return aggregate.tofukingdom([r["result"] for r in kept])


def _aggregate(args: argparse.Namespace) -> int:
    try:
        rows = [row for _, row in _lines(args.results, "result line")]
        result = figures(args.game, rows, args.n)
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"pcg gameeval aggregate: {args.results}: {err}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0
