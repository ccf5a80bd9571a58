from pcg_plugin.problems.pcgbench.bench.random_baseline import random_baseline, random_run
from pcg_plugin.problems.pcgbench.bench.registry import get_problem


def test_best_quality_is_a_non_decreasing_running_max_and_seeded():
    zelda = get_problem("zelda-v0")
    run = random_run(zelda, generations=3, seed=1, report=(0, 1, 3))
    assert list(run.best) == [0, 1, 3] and run.samples == 400
    assert run.best[0] <= run.best[1] <= run.best[3] < 1
    assert random_run(zelda, generations=3, seed=1, report=(0, 1, 3)) == run


def test_baseline_summary_shape():
    result = random_baseline(get_problem("sokoban-v0"), runs=2, generations=1, seed=5, report=(0, 1, 50))
    assert set(result["mean_best"]) == {"0", "1"}  # generations beyond the run are not reported
    assert len(result["per_run_best"]["1"]) == 2 and result["samples"] == 400
    assert result["feasible_samples"] == 0
