"""clembench 2.0.0's imagegame scores, quirks included, and clemeval's aggregate (clemscore).

Per turn (every turn before the Giver's DONE): Precision, Recall and F1 of the drawn grid against the target,
the changed cells, the command's length and tokens, and the request counts; per episode the last counted turn's
P/R/F1 (Main Score = F1), averages, Success iff F1 ≥ 99, or NaN everywhere when the episode aborted. The object
``score_episode`` returns is the one clembench wrote to ``scores.json`` (same keys, same order, same int/float
types, NaN where clembench has NaN).

Quirks kept on purpose (``../shared/spec/other-problems.md`` §2.3):
- ``evaluate`` rounds P and R to 4 places, F1 from the rounded values, then ×100 to 0 places; a shape mismatch
  (row count, or the *first row's* width) gives (0.0, 0.0, 0.0); F1 is the int 0 when P or R is 0.
- ``evaluate`` raises on a drawing with no filled cell (division by zero) or a short row (index error); the
  scorer's bare ``except`` then keeps the previous turn's P/R/F1 (0 before the first turn).
- The changed-cell count raises the same way; the count is then 0 but the drawing still becomes "previous".
- The command's length and tokens remove "Instruction:" (the v1 tag), not "Command:".
- DONE on the first turn leaves no counted turn: the averages divide by zero and clembench wrote no scores.json
  (``NotScorable`` here).
"""

from __future__ import annotations

import contextlib
import math
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from pcg_plugin.errors import NotScorable
from pcg_plugin.problems.imagegame import grid, rules

SUCCESS_F1 = 99
"""An episode succeeds iff its last F1 is at least this (F1 is in percent)."""
_REMOVED_TAG = "Instruction:"


def evaluate(target: str, drawn: str) -> tuple[float, float, float]:
    """(precision, recall, F1) in percent, as clembench's evaluator computes them; raises where it raises."""
    if grid.size(target) != grid.size(drawn):
        return 0.0, 0.0, 0.0
    target_rows, drawn_rows = grid.rows(target), grid.rows(drawn)
    hits_recall = total_recall = hits_precision = total_precision = 0
    for target_cells, drawn_cells in zip(target_rows, drawn_rows, strict=False):
        for c, target_cell in enumerate(target_cells):
            same = target_cell.lower() == drawn_cells[c].lower()  # IndexError on a short drawn row, as there
            if target_cell != grid.EMPTY:
                total_recall += 1
                hits_recall += same
            if drawn_cells[c] != grid.EMPTY:
                total_precision += 1
                hits_precision += same
    recall = round(hits_recall / float(total_recall), 4)
    precision = round(hits_precision / float(total_precision), 4)  # ZeroDivisionError on an empty drawing
    f1: float = 0 if precision == 0 or recall == 0 else (2 * precision * recall) / (precision + recall)
    f1 = round(f1, 4)
    return round(100 * precision, 0), round(100 * recall, 0), round(100 * f1, 0)


def changed_cells(previous: str, current: str) -> int:
    """Cells that differ (ignoring case) from the previous drawing, walking the previous drawing's shape."""
    current_rows = grid.rows(current)
    return sum(
        cell.lower() != current_rows[r][c].lower()
        for r, row in enumerate(grid.rows(previous))
        for c, cell in enumerate(row)
    )


def _expression(command: str) -> str:
    return command.replace(_REMOVED_TAG, "").strip()


def score_episode(turns: Sequence[tuple[str, str | None]], instance: rules.Instance) -> dict[str, Any]:
    """The scores.json object of one episode.

    ``turns`` holds, per logged turn, the Giver's raw reply and the Follower's raw reply (None when the turn
    ended before the Follower was asked). Validity is re-derived from the instance's regexes, as the 2.0.0
    scorer did; the first DONE ends the reading.
    """
    turn_scores: dict[str, dict[str, Any]] = {}
    precision: float = 0
    recall: float = 0
    f1: float = 0
    previous = grid.empty_grid(instance.grid_dimension)
    changed_sum = length_sum = tokens_sum = counted = 0
    requests = parsed = violated = 0
    aborted = False
    for index, (giver_reply, follower_reply) in enumerate(turns):
        move = rules.parse_giver(giver_reply, instance)
        if move.kind == "done":
            break
        requests += 1
        if move.kind == "invalid":
            violated += 1
            aborted = True
            break
        parsed += 1
        if follower_reply is None:
            aborted = True
            break
        requests += 1
        if rules.parse_follower(follower_reply, instance).kind == "invalid":
            violated += 1
            aborted = True
            break
        parsed += 1
        with contextlib.suppress(ZeroDivisionError, IndexError):  # clembench's bare except: the previous P/R/F1 stand
            precision, recall, f1 = evaluate(instance.target_grid, follower_reply)
        try:
            changed = changed_cells(previous, follower_reply)
        except IndexError:
            changed = 0
        previous = follower_reply
        counted += 1
        expression = _expression(move.command or "")
        length, tokens = len(expression), len(expression.split(" "))
        length_sum += length
        tokens_sum += tokens
        changed_sum += changed
        turn_scores[str(index)] = {
            "Generated Expression Length": length,
            "Generated Expression Number of Tokens": tokens,
            "Precision": precision,
            "Recall": recall,
            "F1": f1,
            "Changed Cell Count": changed,
            "Request Count": 2,
            "Parsed Request Count": 2,
            "Violated Request Count": 0,
        }
    if aborted:
        nan = math.nan
        episode: dict[str, Any] = {
            "Precision": nan,
            "Recall": nan,
            "F1": nan,
            "Main Score": nan,
            "Average Changed Cell Count": nan,
            "Average Generated Instruction Length": nan,
            "Average Generated Expression Number of Tokens": nan,
            "Success": 0,
            "Lose": 0,
            "Aborted": 1,
        }
    else:
        if counted == 0:
            raise NotScorable(
                f"{instance.experiment} episode {instance.game_id}: the Giver said DONE before any turn was played;"
                " clembench's scorer divides by zero here and writes no scores.json"
            )
        success = 1 if f1 >= SUCCESS_F1 else 0
        episode = {
            "Precision": precision,
            "Recall": recall,
            "F1": f1,
            "Main Score": f1,
            "Average Changed Cell Count": round(changed_sum / float(counted), 4),
            "Average Generated Instruction Length": round(length_sum / float(counted), 4),
            "Average Generated Expression Number of Tokens": round(tokens_sum / float(counted), 4),
            "Success": success,
            "Lose": 1 - success,
            "Aborted": 0,
        }
    episode["Request Count"] = requests
    episode["Violated Request Count"] = violated
    episode["Parsed Request Count"] = parsed
    episode["Request Success Ratio"] = 0 if requests == 0 else round(parsed / float(requests), 4)
    return {"turn scores": turn_scores, "episode scores": episode}


def pandas_round(value: float, places: int) -> float:
    """numpy/pandas rounding (``rint(value·10^places)/10^places``), which clemeval's ``.round(2)`` applies."""
    if math.isnan(value):
        return value
    scale = 10.0**places
    return round(value * scale) / scale


def aggregate(episodes: Iterable[dict[str, Any]]) -> dict[str, float]:
    """clemeval's per game × model figures from episode scores: % Played, Quality Score and its std, clemscore.

    Played = 1 − Aborted; Quality Score = mean Main Score of the played episodes (NaN skipped), its std the
    sample std (ddof 1, NaN under two played episodes); each rounded to 2 places; clemscore = round(% Played
    / 100 × Quality Score, 2) from the rounded values (what clemeval does for one game).
    """
    episodes = list(episodes)
    if not episodes:
        raise ValueError("aggregate needs at least one episode's scores")
    played = [1 - e["Aborted"] for e in episodes]
    quality = [e["Main Score"] for e in episodes if not math.isnan(e["Main Score"])]
    played_pct = pandas_round(100 * sum(played) / len(played), 2)
    mean_quality = pandas_round(statistics.fmean(quality), 2) if quality else math.nan
    std = pandas_round(statistics.stdev(quality), 2) if len(quality) > 1 else math.nan
    return {
        "% Played": played_pct,
        "Quality Score": mean_quality,
        "Quality Score (std)": std,
        "clemscore": clemscore(played_pct, mean_quality),
    }


def clemscore(played_pct: float, quality: float) -> float:
    """round(% Played / 100 × Quality Score, 2); NaN quality (nothing played) stays NaN."""
    return pandas_round(played_pct / 100 * quality, 2)
