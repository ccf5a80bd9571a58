import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ig_helpers import TARGET_N, make_instance

from pcg_plugin.problems.imagegame import grid, scoring

EMPTY = grid.empty_grid(5)
CELL = st.sampled_from(["▢", "▢", "X", "x", "A"])
GRID5 = st.lists(st.lists(CELL, min_size=5, max_size=5), min_size=5, max_size=5).map(grid.from_cells)


def drawn(*cells: tuple[int, int], letter: str = "X") -> str:
    rows = [["▢"] * 5 for _ in range(5)]
    for r, c in cells:
        rows[r][c] = letter
    return grid.from_cells(rows)


def test_identical_grids_score_100() -> None:
    assert scoring.evaluate(TARGET_N, TARGET_N) == (100.0, 100.0, 100.0)


def test_rounding_follows_the_four_places_then_percent_rule() -> None:
    # target N has 13 filled cells; drawing 10 of them right and 2 wrong: P = 10/12, R = 10/13
    cells = [(0, 0), (0, 4), (1, 0), (1, 1), (1, 4), (2, 0), (2, 2), (2, 4), (3, 0), (3, 3), (0, 1), (0, 2)]
    p, r, f1 = scoring.evaluate(TARGET_N, drawn(*cells))
    assert (p, r) == (83.0, 77.0)
    pr, rr = round(10 / 12, 4), round(10 / 13, 4)
    assert f1 == round(100 * round(2 * pr * rr / (pr + rr), 4), 0) == 80.0


def test_case_is_ignored_when_comparing_cells() -> None:
    assert scoring.evaluate(TARGET_N, TARGET_N.lower().replace("▢".lower(), "▢")) == (100.0, 100.0, 100.0)


def test_shape_mismatch_scores_zero_floats() -> None:
    assert scoring.evaluate(TARGET_N, "X X X X X X\n" * 5) == (0.0, 0.0, 0.0)
    assert scoring.evaluate(TARGET_N, "X X X X X\n" * 4) == (0.0, 0.0, 0.0)


def test_no_hit_gives_the_int_zero_f1() -> None:
    p, r, f1 = scoring.evaluate(TARGET_N, drawn((0, 1)))
    assert (p, r, f1) == (0.0, 0.0, 0) and type(f1) is int and type(p) is float


def test_an_empty_drawing_and_a_short_row_raise_as_in_clembench() -> None:
    with pytest.raises(ZeroDivisionError):
        scoring.evaluate(TARGET_N, EMPTY)
    short_row = TARGET_N.replace("X X ▢ ▢ X", "X X ▢ ▢")  # only the first row's width is compared
    with pytest.raises(IndexError):
        scoring.evaluate(TARGET_N, short_row)


@given(GRID5, GRID5)
def test_scores_are_percentages(target, other) -> None:
    try:
        p, r, f1 = scoring.evaluate(target, other)
    except ZeroDivisionError:
        assert grid.filled_count(target) == 0 or grid.filled_count(other) == 0
        return
    assert all(0 <= v <= 100 and v == int(v) for v in (p, r, f1))
    assert min(p, r) - 1 <= f1 <= max(p, r) + 1


@given(GRID5)
def test_a_grid_scores_100_against_itself(g) -> None:
    if grid.filled_count(g):
        assert scoring.evaluate(g, g) == (100.0, 100.0, 100.0)


@given(GRID5, GRID5)
def test_changed_cells_is_a_symmetric_count(a, b) -> None:
    assert scoring.changed_cells(a, b) == scoring.changed_cells(b, a) <= 25
    assert scoring.changed_cells(a, a) == 0


def _turns(*pairs):
    return list(pairs)


def test_perfect_one_turn_episode() -> None:
    inst = make_instance()
    out = scoring.score_episode(_turns(("Command: draw an N", TARGET_N), ("Command: DONE", None)), inst)
    assert out["turn scores"] == {
        "0": {
            "Generated Expression Length": len("Command: draw an N"),
            "Generated Expression Number of Tokens": 4,
            "Precision": 100.0,
            "Recall": 100.0,
            "F1": 100.0,
            "Changed Cell Count": 13,
            "Request Count": 2,
            "Parsed Request Count": 2,
            "Violated Request Count": 0,
        }
    }
    e = out["episode scores"]
    assert (e["Main Score"], e["Success"], e["Lose"], e["Aborted"]) == (100.0, 1, 0, 0)
    assert (e["Request Count"], e["Parsed Request Count"], e["Violated Request Count"]) == (2, 2, 0)
    assert e["Request Success Ratio"] == 1.0
    assert list(e) == [
        "Precision",
        "Recall",
        "F1",
        "Main Score",
        "Average Changed Cell Count",
        "Average Generated Instruction Length",
        "Average Generated Expression Number of Tokens",
        "Success",
        "Lose",
        "Aborted",
        "Request Count",
        "Violated Request Count",
        "Parsed Request Count",
        "Request Success Ratio",
    ]


def test_only_instruction_tag_is_removed_from_the_expression() -> None:
    out = scoring.score_episode(_turns(("Command: Instruction:  a  b", TARGET_N)), make_instance())
    turn = out["turn scores"]["0"]
    assert turn["Generated Expression Length"] == len("Command:   a  b")
    assert turn["Generated Expression Number of Tokens"] == len(["Command:", "", "", "a", "", "b"])


def test_an_empty_drawing_keeps_the_previous_turns_scores() -> None:
    inst = make_instance()
    first = drawn((0, 0), (0, 4))
    out = scoring.score_episode(_turns(("Command: a", first), ("Command: b", EMPTY), ("Command: DONE", None)), inst)
    t0, t1 = out["turn scores"]["0"], out["turn scores"]["1"]
    assert (t1["Precision"], t1["Recall"], t1["F1"]) == (t0["Precision"], t0["Recall"], t0["F1"]) == (100.0, 15.0, 27.0)
    assert t1["Changed Cell Count"] == 2
    assert out["episode scores"]["F1"] == 27.0


def test_an_empty_first_drawing_keeps_the_initial_int_zeros() -> None:
    out = scoring.score_episode(_turns(("Command: a", EMPTY)), make_instance())
    t0 = out["turn scores"]["0"]
    assert (t0["Precision"], t0["Recall"], t0["F1"]) == (0, 0, 0) and type(t0["Precision"]) is int
    assert out["episode scores"]["Success"] == 0 and out["episode scores"]["Lose"] == 1


def test_a_short_row_keeps_scores_and_counts_no_change() -> None:
    """A tab between cells passes the grid regex; the row then splits into 4 cells on spaces: evaluate and the
    changed-cell count raise, so the previous P/R/F1 stand and the change is 0 (the drawing still becomes
    "previous"). In the first row the same tab is a shape mismatch instead (only that row's width is compared)."""
    inst = make_instance()
    second_row_tabbed = TARGET_N.replace("\nX X ▢ ▢ X", "\nX\tX ▢ ▢ X", 1)
    out = scoring.score_episode(_turns(("Command: a", drawn((0, 0))), ("Command: b", second_row_tabbed)), inst)
    t0, t1 = out["turn scores"]["0"], out["turn scores"]["1"]
    assert (t1["Precision"], t1["Recall"], t1["F1"]) == (t0["Precision"], t0["Recall"], t0["F1"]) == (100.0, 8.0, 14.0)
    assert t1["Changed Cell Count"] == 0
    first_row_tabbed = TARGET_N.replace("X ▢", "X\t▢", 1)
    out = scoring.score_episode(_turns(("Command: a", drawn((0, 0))), ("Command: b", first_row_tabbed)), inst)
    assert out["turn scores"]["1"]["F1"] == 0.0


def test_invalid_command_aborts_with_nan_and_counts_the_violation() -> None:
    out = scoring.score_episode(_turns(("Command: a", TARGET_N), ("I think the grid...", None)), make_instance())
    e = out["episode scores"]
    assert list(out["turn scores"]) == ["0"]
    assert all(math.isnan(e[k]) for k in ("Precision", "Recall", "F1", "Main Score", "Average Changed Cell Count"))
    assert (e["Success"], e["Lose"], e["Aborted"]) == (0, 0, 1)
    assert (e["Request Count"], e["Violated Request Count"], e["Parsed Request Count"]) == (3, 1, 2)
    assert e["Request Success Ratio"] == round(2 / 3, 4)


def test_invalid_grid_aborts() -> None:
    out = scoring.score_episode(_turns(("Command: a", "X X X X X X\n" * 5)), make_instance())
    e = out["episode scores"]
    assert out["turn scores"] == {}
    assert (e["Aborted"], e["Request Count"], e["Violated Request Count"], e["Parsed Request Count"]) == (1, 2, 1, 1)


def test_a_turn_without_the_followers_reply_aborts() -> None:
    e = scoring.score_episode(_turns(("Command: a", None)), make_instance())["episode scores"]
    assert (e["Aborted"], e["Request Count"], e["Parsed Request Count"]) == (1, 1, 1)


def test_done_on_the_first_turn_is_not_scorable() -> None:
    with pytest.raises(scoring.NotScorable, match="DONE before any turn"):
        scoring.score_episode(_turns(("Command: DONE", None)), make_instance())


def test_invalid_first_reply_gives_a_zero_success_ratio_free_abort() -> None:
    e = scoring.score_episode(_turns(("hello", None)), make_instance())["episode scores"]
    assert (e["Aborted"], e["Request Count"], e["Violated Request Count"], e["Request Success Ratio"]) == (1, 1, 1, 0.0)


def test_no_turn_at_all_has_ratio_zero_and_is_not_scorable() -> None:
    with pytest.raises(scoring.NotScorable):
        scoring.score_episode([], make_instance())


@pytest.mark.parametrize(("f1", "success"), [(99.0, 1), (98.0, 0), (100.0, 1)])
def test_success_threshold_is_f1_99(monkeypatch, f1, success) -> None:
    """No 5×5 drawing scores F1 99 (2k/(2k+1) ≥ 0.985 needs 33 cells), so evaluate is stubbed at the boundary."""
    assert scoring.SUCCESS_F1 == 99
    monkeypatch.setattr(scoring, "evaluate", lambda target, drawn: (98.0, 100.0, f1))
    e = scoring.score_episode(_turns(("Command: a", TARGET_N), ("Command: DONE", None)), make_instance())
    assert (e["episode scores"]["Success"], e["episode scores"]["Lose"], e["episode scores"]["Main Score"]) == (
        success,
        1 - success,
        f1,
    )


def test_averages_round_to_four_places() -> None:
    inst = make_instance()
    out = scoring.score_episode(
        _turns(("Command: a", drawn((0, 0))), ("Command: bb", drawn((0, 0), (0, 4))), ("Command: c d", TARGET_N)),
        inst,
    )
    e = out["episode scores"]
    assert e["Average Changed Cell Count"] == round((1 + 1 + 11) / 3.0, 4) == 4.3333
    assert e["Average Generated Instruction Length"] == round((10 + 11 + 12) / 3.0, 4)
    assert e["Average Generated Expression Number of Tokens"] == round((2 + 2 + 3) / 3.0, 4)
    assert e["Main Score"] == 100.0 and e["Success"] == 1


def test_aggregate_played_quality_std_and_clemscore() -> None:
    nan = math.nan
    eps = [{"Aborted": 0, "Main Score": 85.0}, {"Aborted": 0, "Main Score": 100.0}, {"Aborted": 1, "Main Score": nan}]
    out = scoring.aggregate(eps)
    assert out["% Played"] == 66.67 and out["Quality Score"] == 92.5
    assert out["Quality Score (std)"] == round(((7.5**2) * 2 / 1) ** 0.5, 2) == 10.61
    assert out["clemscore"] == round(66.67 / 100 * 92.5, 2) == 61.67


def test_aggregate_matches_the_published_llama_8b_row() -> None:
    """38 played of 59 (Llama-3.1-8B v2.0): % Played 64.41; clemscore of the published row's figures."""
    eps = [{"Aborted": 0, "Main Score": 50.0}] * 38 + [{"Aborted": 1, "Main Score": math.nan}] * 21
    assert scoring.aggregate(eps)["% Played"] == 64.41
    assert scoring.clemscore(56.8, 49.46) == 28.09
    assert scoring.clemscore(89.83, 87.28) == 78.4


def test_aggregate_edge_cases() -> None:
    one = scoring.aggregate([{"Aborted": 0, "Main Score": 70.0}])
    assert one["Quality Score"] == 70.0 and math.isnan(one["Quality Score (std)"])
    none_played = scoring.aggregate([{"Aborted": 1, "Main Score": math.nan}])
    assert none_played["% Played"] == 0.0 and math.isnan(none_played["clemscore"])
    with pytest.raises(ValueError):
        scoring.aggregate([])


def test_pandas_round_is_half_even_on_the_scaled_value() -> None:
    assert scoring.pandas_round(0.125, 2) == 0.12 and scoring.pandas_round(0.375, 2) == 0.38
    assert math.isnan(scoring.pandas_round(math.nan, 2))


@pytest.mark.parametrize(
    ("filled", "drawn_filled", "hits", "want"),
    [(11, 11, 5, (45.0, 45.0, 45.0)), (12, 19, 10, (53.0, 83.0, 65.0))],
)
def test_four_places_not_three_decide_these_counts(filled, drawn_filled, hits, want) -> None:
    """5/11 = 0.4545 (→ 45, not 0.455 → 46); 10/12 with 10/19 gives F1 65 (64 if P or R were rounded to 3 places)."""
    cells = [(r, c) for r in range(5) for c in range(5)]
    target = drawn(*cells[:filled])
    ours = drawn(*cells[:hits], *cells[filled : filled + drawn_filled - hits])
    assert scoring.evaluate(target, ours) == want
