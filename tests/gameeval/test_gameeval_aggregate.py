"""`pcg gameeval aggregate` equals the reference's compute scripts (run on the same records), quirks included."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from ge_helpers import FIXTURES

from pcg_plugin.problems.gameeval import aggregate
from pcg_plugin.problems.gameeval.command import figures
from pcg_plugin.problems.gameeval.prompts import spyfall_pairs

AGG = FIXTURES / "reference" / "aggregate"


def rows(game: str) -> list[dict]:
    return [json.loads(x) for x in (AGG / f"{game}.results.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("game", ["askguess", "spyfall"])
def test_figures_equal_the_reference_compute_script(game: str) -> None:
    want = json.loads((AGG / f"{game}.figures.json").read_text())
    got = figures(game, rows(game), 20)
    assert list(got) == list(want)
    for key in want:
        for field, value in want[key].items():
            assert got[key][field] == pytest.approx(value, abs=1e-9), (key, field)


def test_command_line_prints_one_object(tmp_path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pcg_plugin",
            "gameeval",
            "aggregate",
            "spyfall",
            str(AGG / "spyfall.results.jsonl"),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(proc.stdout.splitlines()[-1]) == json.loads((AGG / "spyfall.figures.json").read_text())


def rec(word: str, error: str, round_: int) -> dict:
    return {"object": word, "round": round_, "error_type": error, "log": "0.log"}


def test_askguess_never_solved_counts_30_and_round_zero_words_drop_out() -> None:
    out = aggregate.askguess(
        [
            rec("apple", "SuccessfulTrial", 4),
            rec("apple", "SuccessfulTrial", 2),
            rec("lawn mower", "EndingError", -1),
            rec("bear", "SuccessfulTrial", 0),
        ],
        n=1,
    )
    assert out["apple"]["round"] == 3 and out["lawn_mower"]["round"] == 30 and out["bear"]["round"] == 0
    assert out["avg"]["round"] == (3 + 30) / 2  # bear's 0 is neither added nor counted
    assert out["avg"]["SuccessfulTrial"] == 3 / 3  # divided by #words x N, N=1


def test_askguess_rates_divide_by_n_not_by_episodes() -> None:
    out = aggregate.askguess([rec("apple", "SuccessfulTrial", 1)] * 3, n=2)
    assert out["avg"]["SuccessfulTrial"] == 1.5  # 3 episodes / (1 word x 2): above 1


def test_askguess_all_round_zero_is_the_references_division_by_zero() -> None:
    with pytest.raises(aggregate.NoFigure):
        aggregate.askguess([rec("apple", "SuccessfulTrial", 0)])


def sf(winner: str, round_: int) -> dict:
    return {"winer": winner, "round": round_}


def test_spyfall_divides_the_pair_sums_by_ten_and_skips_exits() -> None:
    records = [(p, sf("spy", 3)) for p in spyfall_pairs()] + [(spyfall_pairs()[0], sf("exit", -1))]
    out = aggregate.spyfall(records)
    assert out["ipad&iphone"] == {"cnt_spy": 1, "cnt_villager": 0, "round_avg": 3.0, "rate": 1.0}
    assert out["avg"] == {"round_avg": 3 * 11 / 10, "rate": 11 / 10}


def test_spyfall_pair_without_a_win_is_named() -> None:
    records = [(p, sf("villager", 1)) for p in spyfall_pairs()[1:]] + [(spyfall_pairs()[0], sf("exit", -1))]
    with pytest.raises(aggregate.NoFigure, match="ipad&iphone"):
        aggregate.spyfall(records)


def test_tofukingdom_counts_camps_with_the_chef_for_the_spy_camp() -> None:
    out = aggregate.tofukingdom(
        [
            {"winner": "Princess"},
            {"winner": "Chef"},
            {"winner": "Queen"},
            {"winner": "Guard"},
            {"error": "Answer is None."},
        ]
    )
    assert out["camps"] == {"Prince": 1, "Queen": 1, "Spy": 2}
    assert out["errors"] == {"Answer is None.": 1} and out["games"] == 5
