"""The reference's compute scripts' figures over result records (``spec/gameeval-replay.md`` §3), quirks kept.

- Ask-Guess (``askguess/compute.py``): per word the outcome counts and ``round`` = the sum of rounds > 0 over
  the successes, or 30 when the word was never solved; overall ``round`` = the mean of per-word rounds over the
  words whose round is not 0; each outcome rate = its count / (#words x N), N = ``--n`` (default 20), not the
  number of episodes played, so a rate can exceed 1.
- SpyFall (``spyfall/compute_adversarial.py``): per pair, exits skipped, ``round_avg`` over spy + villager wins,
  ``rate`` = spy wins / (spy + villager wins); the overall averages divide the sums over the 11 pairs by 10.
- TofuKingdom: the reference's ``compute.py`` cannot read the game's records; wins per role and per camp.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pcg_plugin.errors import NoFigure  # re-exported
from pcg_plugin.problems.gameeval.prompts import spyfall_pairs
from pcg_plugin.problems.gameeval.tofukingdom import ROLES, winning_camp

NEVER_SOLVED_ROUND = 30
DEFAULT_N = 20
_WORD_KEYS = ("round", "EndingError", "SuccessfulTrial", "ChatError", "RoundLimitError", "AnswerMentionedError")
_AVG_KEYS = ("round", "EndingError", "ChatError", "SuccessfulTrial", "RoundLimitError", "AnswerMentionedError")


def askguess(records: Iterable[Mapping[str, Any]], n: int = DEFAULT_N) -> dict[str, Any]:
    """``records``: the result objects (``object``, ``round``, ``error_type``) in file order."""
    per: dict[str, dict[str, float]] = {}
    for rec in records:
        name = str(rec["object"]).replace(" ", "_")
        counts = per.setdefault(name, dict.fromkeys(_WORD_KEYS, 0))
        counts[rec["error_type"]] += 1
        if rec["round"] > 0:
            counts["round"] += rec["round"]
    for counts in per.values():
        solved = counts["SuccessfulTrial"]
        counts["round"] = counts["round"] / solved if solved else NEVER_SOLVED_ROUND
    avg = dict.fromkeys(_AVG_KEYS, 0.0)
    rounded = 0
    for counts in per.values():
        rounded += counts["round"] != 0
        for key, value in counts.items():
            avg[key] += value
    if not rounded:
        raise NoFigure(
            "no word has a round other than 0 (every success at round 0, or no record): the reference "
            "divides by zero here"
        )
    for key in avg:
        avg[key] = avg[key] / rounded if key == "round" else avg[key] / (len(per) * n)
    return {**per, "avg": avg}


def spyfall(
    records: Iterable[tuple[Any, Mapping[str, Any]]], pairs: Iterable[tuple[str, str]] | None = None
) -> dict[str, Any]:
    """``records``: (pair, result) in file order; every pair of ``spyfall/labels.txt`` must have a non-exit
    result (the reference divides by zero otherwise)."""
    groups: dict[str, list[Mapping[str, Any]]] = {f"{a}&{b}": [] for a, b in (pairs or spyfall_pairs())}
    for pair, rec in records:
        key = f"{pair[0]}&{pair[1]}"
        if key not in groups:
            raise NoFigure(f"pair {key} is not one of spyfall/labels.txt's")
        groups[key].append(rec)
    out: dict[str, Any] = {}
    for key, recs in groups.items():
        spy = sum(r["winer"] == "spy" for r in recs)
        villager = sum(r["winer"] not in ("exit", "spy") for r in recs)
        if spy + villager == 0:
            raise NoFigure(
                f"pair {key} has no spy or villager win (only exits or no episode): the reference divides by zero here"
            )
        rounds = sum(r["round"] for r in recs if r["winer"] != "exit")
        out[key] = {
            "cnt_spy": spy,
            "cnt_villager": villager,
            "round_avg": rounds / (spy + villager),
            "rate": spy / (spy + villager),
        }
    divisor = len(out) - 1  # the reference's len(res_dict) - 1
    out["avg"] = {
        "round_avg": sum(v["round_avg"] for v in out.values()) / divisor,
        "rate": sum(v["rate"] for v in out.values()) / divisor,
    }
    return out


def tofukingdom(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Wins per named role and per camp; error records counted by their error string."""
    roles = dict.fromkeys(ROLES, 0)
    camps = {"Prince": 0, "Queen": 0, "Spy": 0}
    errors: dict[str, int] = {}
    games = 0
    for rec in records:
        games += 1
        if "winner" in rec:
            roles[rec["winner"]] += 1
            camps[winning_camp(rec["winner"])] += 1
        else:
            errors[rec["error"]] = errors.get(rec["error"], 0) + 1
    return {"games": games, "camps": camps, "roles": roles, "errors": errors}
