"""Fig. 2's mean and t interval, Fig. 3's elite counts, the fitness names and the pictures."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import pytest

from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.experiment.figures import curve, elite_counts, mean_interval, summarize, t_quantile
from pcg_plugin.problems.pcgbench.experiment.fitness import FITNESSES, fitness_name
from pcg_plugin.problems.pcgbench.experiment.pictures import fig2, fig2_overview, fig3, fig3_overview

ZELDA_README = get_problem("zelda-v0").examples[0]  # feasible, and meets its README control


@pytest.mark.parametrize(
    ("df", "expected"),  # scipy.stats.t.ppf(0.975, df)
    [(1, 12.706204736174694), (2, 4.302652729749462), (9, 2.262157162798205), (29, 2.045229642132703)],
)
def test_the_t_quantile_is_students(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-9)


def test_the_interval_is_the_t_interval_of_the_mean() -> None:
    mean, low, high = mean_interval([0.2, 0.5, 0.9])  # scipy: t.interval(0.95, 2, loc=mean, scale=sem)
    assert (mean, low, high) == pytest.approx((0.5333333333, -0.3390671602, 1.4057338268))
    assert mean_interval([0.4]) == (0.4, 0.4, 0.4) and mean_interval([0.7, 0.7]) == (0.7, 0.7, 0.7)
    c = curve([[0.1, 0.5], [0.3, 0.5]])
    assert c["runs"] == 2 and c["mean"] == [0.2, 0.5] and c["low"][1] == c["high"][1] == 0.5


def test_fitness_names_in_either_spelling() -> None:
    assert [fitness_name(n) for n in ("q", "QT", "quality_control_diversity", "fitness_quality")] == [
        "q",
        "qt",
        "qtd",
        "q",
    ]
    with pytest.raises(ValueError, match="known: q \\(quality\\)"):
        fitness_name("speed")
    feasible = SimpleNamespace(quality=1.0, controllability=1.0, diversity=0.4)
    half = SimpleNamespace(quality=0.5, controllability=1.0, diversity=1.0)
    assert [FITNESSES[f](feasible) for f in ("q", "qt", "qtd")] == [1.0, 1.0, pytest.approx(2.4 / 3)]
    assert [FITNESSES[f](half) for f in ("q", "qt", "qtd")] == [0.5, 0.25, pytest.approx(0.5 / 3)]


def elite(content: list, quality: float, controllability: float) -> dict:
    return {"content": content, "quality": quality, "controllability": controllability, "diversity": 0.0}


def test_fig3_counts_the_elites_as_one_set() -> None:
    """Two copies of the README level and one other: 2 successful, 1 controlled, 2 unique (the copies are one)."""
    other = [[1] * 11 for _ in range(7)]
    counts = elite_counts(
        "zelda-v0", [elite(ZELDA_README, 1.0, 1.0), elite(ZELDA_README, 1.0, 0.5), elite(other, 0.2, 0.0)]
    )
    assert counts == {"successful": 2, "controlled": 1, "unique": 2, "runs": 3}


def record(gen: str, seed: int, best: list[float]) -> dict:
    return {
        "variant": "zelda-v0",
        "generator": gen,
        "fitness": "q",
        "seed": seed,
        "best": best,
        "final": {"feasible": seed, "controlled": 0, "unique": 2},
        "final_population": [elite(ZELDA_README, 1.0, 1.0)],
        "seconds": 1.5,
        "cpu_seconds": 0.5,
        "evaluated": 100,
    }


def test_summary_and_pictures() -> None:
    summary = summarize([record("random", 1, [0.2, 0.4]), record("random", 2, [0.4, 0.6]), record("ga", 1, [0.5, 1])])
    zelda = summary["zelda-v0"]
    assert zelda["fig2"]["random-q"]["mean"] == pytest.approx([0.3, 0.5]) and zelda["fig2"]["ga-q"]["runs"] == 1
    assert zelda["final"]["random-q"] == {"feasible": 1.5, "controlled": 0, "unique": 2}
    assert zelda["fig3"]["random-q"] == {"successful": 2, "controlled": 2, "unique": 1, "runs": 2}
    assert zelda["seconds"]["random-q"] == 3.0
    assert zelda["cost"] == {  # 1.5 CPU s over 300 evaluations; the paper's protocol is 1,809,000 of them
        "evaluations": 300,
        "cpu_seconds": 1.5,
        "ms_per_evaluation": 5.0,
        "paper_protocol_cpu_hours": 2.51,
    }
    line = fig2("zelda-v0", zelda["fig2"])
    assert line.startswith("<svg") and line.count("<polyline") == 2 and "best Q" in line
    bars = fig3("zelda-v0", zelda["fig3"])
    heights = [float(h) for h in re.findall(r'height="([^"]+)" fill="[^"]+" fill-opacity', bars)]
    assert len(heights) == 6  # 3 counts x 2 generators
    assert sum(1 for h in heights if math.isclose(h, 118.0)) == 2  # Random: 2 successful, 2 controlled of 2 runs
    overview = fig2_overview(summary)
    assert overview.count("<polyline") == 2 and "zelda-v0: best Q" in overview
    assert fig3_overview(summary).count("fill-opacity") == 3 * 2  # 3 counts x (Random Q, GA Q) for zelda
