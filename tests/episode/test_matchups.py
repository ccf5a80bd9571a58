"""The outcomes cross-play's ratings are fitted on (``episode.matchups.choices``), its tables, and the ratings'
fit and intervals (``episode.ratings``), on hand-made games."""

from __future__ import annotations

import choix
import pytest

from pcg_plugin.episode import charts, ratings
from pcg_plugin.episode.matchups import Game, choices, summarise

SPY = ("spy", "villager")
CAMPS = ("prince", "queen", "spy")


def game(group: int, spy: str, villager: str, **kw) -> Game:
    return Game(group, {"spy": spy, "villager": villager}, **kw)


def test_a_winner_beats_the_other_sides_and_a_self_pair_tells_nothing() -> None:
    found = choices(
        [game(1, "a", "b", winner="villager"), game(2, "a", "a", winner="spy"), game(3, "a", "b")], SPY, True
    )
    assert list(found.values()) == [[ratings.Choice("b", ("a",))]]


def test_a_camp_that_wins_is_chosen_among_the_three_and_a_forfeit_loses_to_each_other_side() -> None:
    won = Game(1, {"prince": "a", "queen": "b", "spy": "c"}, winner="queen")
    broke = Game(2, {"prince": "a", "queen": "b", "spy": "c"}, forfeit="prince")
    found = choices([won, broke], CAMPS, True)
    assert list(found.values()) == [
        [ratings.Choice("b", ("a", "c"))],
        [ratings.Choice("b", ("a",)), ratings.Choice("c", ("a",))],
    ]


def test_cooperative_episodes_compare_only_where_one_role_differs() -> None:
    roles = ("giver", "follower")
    eps = [
        Game("t1", {"giver": "a", "follower": "x"}, score=90),
        Game("t1", {"giver": "b", "follower": "x"}, score=40),  # vs the first: giver a beats b
        Game("t1", {"giver": "b", "follower": "y"}, score=40),  # vs the second: a tie, nothing
        Game("t2", {"giver": "b", "follower": "x"}, score=99),  # another target: never compared with t1's
    ]
    assert choices(eps, roles, False) == {"t1": [ratings.Choice("a", ("b",))]}


def test_the_tables_total_the_games_with_a_winner_and_the_matrix_has_the_means() -> None:
    eps = [game(i, "a", "b", winner="spy") for i in range(3)] + [game(9, "a", "b")]
    eps += [game(10 + i, "b", "a", winner="villager") for i in range(2)]
    doc = summarise(eps, SPY, ["a", "b"], adversarial=True, score_name="wins", reps=20)
    assert [a["wins"] for a in doc["assignments"]] == [{"a": 3, "b": 0}, {"b": 0, "a": 2}]
    assert doc["totals"] == {"a": 5, "b": 0} and doc["decided"] == 5
    m = doc["matrix"]
    assert m["rows"]["models"] == ["a", "b"] and m["cells"][0][1]["value"] == 100 and m["cells"][1][0]["value"] == 0
    assert m["cells"][0][0] is None and m["row_means"] == [100, 0]


def test_the_rating_is_chooses_fit_on_the_elo_scale() -> None:
    picked = [ratings.Choice("a", ("b", "c"))] * 3 + [ratings.Choice("b", ("c",))] * 2 + [ratings.Choice("c", ("a",))]
    got = ratings.fit(["a", "b", "c"], picked)
    params = choix.ilsr_top1(3, [(0, (1, 2))] * 3 + [(1, (2,))] * 2 + [(2, (0,))], alpha=ratings.ALPHA)
    centred = params - params.mean()
    assert [got[m] for m in "abc"] == pytest.approx([1000 + 400 / 2.302585092994046 * p for p in centred])


def test_intervals_narrow_with_more_games_and_bracket_the_rating() -> None:
    def spread(n: int) -> float:
        groups = {i: [ratings.Choice("a", ("b",))] for i in range(n)}
        groups.update({n + i: [ratings.Choice("b", ("a",))] for i in range(n // 2)})
        a = ratings.ratings(["a", "b"], groups, reps=50)[0]
        assert a["model"] == "a" and a["low"] <= a["rating"] <= a["high"]
        return a["high"] - a["low"]

    assert spread(60) < spread(6)


def test_chart_labels_drop_what_every_name_shares() -> None:
    assert charts.labels(["scripted/players:rules", "scripted/players:silent"]) == {
        "scripted/players:rules": "rules",
        "scripted/players:silent": "silent",
    }
    assert charts.labels(["openai/gpt-4o", "openai/gpt-4o-mini"]) == {
        "openai/gpt-4o": "gpt-4o",
        "openai/gpt-4o-mini": "gpt-4o-mini",
    }
