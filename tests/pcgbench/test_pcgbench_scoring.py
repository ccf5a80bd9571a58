"""The scoring rule: per instance feasible/controlled/unique counts, score = mean of (all three)/trials, ranks."""

from dataclasses import replace

import pytest

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.bench.examples import BINARY_README, mirrored
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.records import BenchRecord
from pcg_plugin.problems.pcgbench.scoring import rank, score_instance, score_submission

BINARY = get_problem("binary-v0")


def record(trial, grid=None, instance="path57", control=57, sub="s", reason=None):
    rec = BenchRecord(
        nodeid=f"{sub}::{instance}::{trial}",
        submission=sub,
        instance=instance,
        control={"path": control},
        trial=trial,
        format="pcgbench-prompt",
        reason=reason,
    )
    if grid is None:
        return replace(rec, message="no block: the reply has no fenced block (```...```)")
    ev = evaluate_item(BINARY, grid, {"path": control})
    info = {k: v for k, v in ev["info"].items() if k != "content"}
    return replace(rec, content=grid, info=info, quality=ev["quality"], controllability=ev["controllability"])


ORIG, LR, UD = mirrored(BINARY_README)


def test_counts_and_score_of_one_instance():
    """orig, LR, UD, orig again, no level: HEAD's greedy drops the most similar first (orig, then the LR mirror,
    which is under 79 cells from orig), keeping trials 3 and 4; all four levels are feasible and path 60 is within
    57±7, so 2 of 5 trials pass."""
    recs = [record(1, ORIG), record(2, LR), record(3, UD), record(4, ORIG), record(5, reason="no_block")]
    s = score_instance(BINARY, "path57", recs, trials=5)
    assert (s.valid, s.feasible, s.controlled, s.unique, s.passed) == (4, 4, 4, 2, 2)
    assert s.unique_trials == (3, 4) and s.diversity == pytest.approx(0.5) and s.score == pytest.approx(2 / 5)


def test_missing_trials_count_as_zeros_and_uncontrolled_levels_do_not_pass():
    s = score_instance(BINARY, "path87", [record(1, ORIG, "path87", 87)], trials=3)  # path 60 is not 87±7
    assert (s.valid, s.feasible, s.controlled, s.unique, s.passed, s.score) == (1, 1, 0, 1, 0, 0.0)


def test_submission_score_is_the_mean_over_instances_and_ranks_share_ties():
    a = [record(1, ORIG, sub="a"), record(2, LR, sub="a"), record(1, ORIG, "path87", 87, sub="a")]
    a_score = score_submission(BINARY, "a", a, ["path57", "path87"], trials=2)
    # path57: orig and LR are too similar, one kept: 1/2; path87: not controlled: 0 -> mean 1/4
    assert a_score.score == pytest.approx(0.25) and a_score.fraction("feasible") == pytest.approx(3 / 4)
    assert a_score.fraction("controlled") == pytest.approx(2 / 4) and a_score.reasons == {}
    b = [record(1, ORIG, sub="b"), record(2, reason="wrong_shape", sub="b")]
    b_score = score_submission(BINARY, "b", b, ["path57", "path87"], trials=2)
    assert b_score.score == pytest.approx(0.25) and b_score.reasons == {"wrong_shape": 1}
    c_score = score_submission(BINARY, "c", [], ["path57", "path87"], trials=2)
    assert c_score.score == 0 and c_score.diversity_all == 0
    ranked = rank([c_score, b_score, a_score])
    assert [(s.rank, s.name) for s in ranked] == [(1, "a"), (1, "b"), (3, "c")]
