"""Cross-play (``--pcg-cross-play``): which assignments are played, the tables of results.json and the terminal, and
the ratings, with the scripted models of designed strength in players.py.

Default suite: the assignments' rules, and a small TofuKingdom run (6 assignments x 2 games) whose table has
GameEval's shape. ``-m slow``: GameEval's full table (6 assignments x 20 games), and the designed strengths ranked
in SpyFall, TofuKingdom and the picture game, the ratings equal to choix's own fit of outcomes read back from the
episodes.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import choix  # imported once, before any pytester run snapshots sys.modules (numpy loads once per process)
import pytest

from pcg_plugin.episode import crossplay

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
EXAMPLES = TESTS.parent / "examples"
RULES, RANDOM, SILENT = "scripted/players:rules", "scripted/players:random_player", "scripted/players:silent"
THREE = (RULES, RANDOM, SILENT)


def test_two_roles_take_every_ordered_pair_self_pairs_included() -> None:
    found = crossplay.assignments(("giver", "follower"), ("a", "b", "c"))
    assert [crossplay.level_name(a, ("giver", "follower")) for a in found] == [
        f"{x}--{y}" for x in "abc" for y in "abc"
    ]


def test_three_camps_take_the_permutations_of_three_models_and_every_assignment_of_two() -> None:
    camps = ("prince", "queen", "spy")
    three = crossplay.assignments(camps, ("a", "b", "c"), distinct=True)
    assert [tuple(a.values()) for a in three] == [
        ("a", "b", "c"),
        ("a", "c", "b"),
        ("b", "a", "c"),
        ("b", "c", "a"),
        ("c", "a", "b"),
        ("c", "b", "a"),
    ]
    assert len(crossplay.assignments(camps, ("a", "b", "c", "d"), distinct=True)) == 4 * 3 * 2
    assert len(crossplay.assignments(camps, ("a", "b"), distinct=True)) == 2**3  # too few to be distinct
    pinned = crossplay.assignments(camps, ("a", "b", "c"), {"queen": "z"}, distinct=True)
    assert [tuple(a.values()) for a in pinned] == [(x, "z", y) for x in "abc" for y in "abc" if x != y]


def test_a_level_selects_with_k_by_its_name_and_by_each_of_its_models() -> None:
    assert crossplay.keywords("a--b", {"spy": "a", "villager": "b"}) == ("model_a--b", "model_a", "model_b")
    assert crossplay.keywords("a", None) == ("model_a",)


def test_cross_play_needs_two_models_with_names_that_cannot_be_mistaken_for_pairs() -> None:
    with pytest.raises(ValueError, match="at least two models"):
        crossplay.run_models(("a",), "true", offline=False)
    with pytest.raises(ValueError, match="may not hold '--'"):
        crossplay.run_models(("a--b", "c"), "true", offline=False)
    assert crossplay.run_models(("a", "b"), None, offline=False) is False


def play(pytester: pytest.Pytester, game: str, *extra: str, out: str = "out") -> tuple[Any, dict[str, Any]]:
    """One cross-play run of the examples' self-play entry of ``game`` with the three designed models."""
    folder = {"gameeval/tofukingdom": "gameeval/tofukingdom", "gameeval/spyfall": "gameeval/spyfall"}.get(game)
    src = EXAMPLES / (folder or "imagegame") / "selfplay"
    if not (pytester.path / "subs").exists():
        import shutil

        shutil.copytree(src, pytester.path / "subs" / "selfplay")
    result = pytester.runpytest_subprocess(
        "subs",
        "--pcg-problem",
        game,
        "--pcg-model",
        ",".join(THREE),
        "--pcg-cross-play",
        "true",
        "--pcg-out",
        out,
        "--pcg-store",
        "store",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        *extra,
        timeout=1200,
    )
    return result, json.loads((pytester.path / out / "results.json").read_text())


@pytest.fixture
def arena(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    paths = os.pathsep.join(str(p) for p in (HERE, TESTS / "gameeval", TESTS / "imagegame"))
    monkeypatch.setenv("PYTHONPATH", paths, prepend=os.pathsep)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return pytester


def check_tofukingdom_table(result: Any, doc: dict[str, Any], games: int) -> None:
    """GameEval's TofuKingdom shape: wins per model for each of the 6 assignments of three models to the camps,
    every assignment played ``games`` times, and a Total row that sums to the games with a winner."""
    cp = doc["cross_play"]
    assert [tuple(a["roles"].values()) for a in cp["assignments"]] == [
        tuple(a.values()) for a in crossplay.assignments(("prince", "queen", "spy"), THREE, distinct=True)
    ]
    assert all(a["episodes"] == games for a in cp["assignments"])
    decided = sum(1 for e in doc["episodes"] if e["result"] and "winner" in e["result"])
    assert cp["decided"] == decided == sum(cp["totals"].values())
    for model in THREE:
        assert cp["totals"][model] == sum(a["wins"].get(model, 0) for a in cp["assignments"])
    result.stdout.fnmatch_lines(
        [
            "cross-play: wins per model per assignment (prince / queen / spy)",
            f"  assignment * {'  '.join(THREE)}",
            *(f"  {a['level']} *" for a in cp["assignments"]),
            f"  Total * ({decided} games with a winner)",
            "ratings (choix, Elo scale, 95% bootstrap intervals over episodes):",
        ]
    )


def test_a_small_tofukingdom_cross_play_has_gameevals_table_shape(arena) -> None:
    result, doc = play(arena, "gameeval/tofukingdom", "--pcg-gameeval-targets", "game/0,game/1")
    assert result.ret == 0, result.stdout.str()
    check_tofukingdom_table(result, doc, games=2)
    result.stdout.fnmatch_lines(["pcg: pre-flight estimate: 6 assignments x 2 games = 12 games; ~204 calls at ~17*"])
    assert doc["models"] == list(THREE)
    html = (arena.path / "out" / "report.html").read_text()
    assert 'id="cross-play"' in html and 'aria-label="ratings with 95 % intervals"' in html
    assert '<td class="l"><b>Total</b></td>' in html and "pcg-heatmap" not in html  # three camps: no matrix
    rows = doc["leaderboard"]
    assert len(rows) == 6 and {r["model"] for r in rows} == {a["level"] for a in doc["cross_play"]["assignments"]}
    assert all(r["key"] == f"selfplay @ {r['model']}" and r["rank_in_model"] == 1 for r in rows)
    level = "--".join((SILENT, RULES, RANDOM))
    listed = arena.runpytest(
        *("subs", "--pcg-problem", "gameeval/tofukingdom", "--pcg-model", ",".join(THREE), "--pcg-cross-play"),
        *("true", "--co", "-q", "--pcg-gameeval-targets", "game/0", "-k", f"model_{level}", "-p", "no:cacheprovider"),
    )
    ids = [line for line in listed.stdout.lines if "::" in line]
    assert ids == [f"subs/selfplay::{level}::game/0::1"]  # one assignment of the six


def library_fit(doc: dict[str, Any], roles: tuple[str, ...]) -> dict[str, float]:
    """choix's own fit of the outcomes, read back here from results.json's episodes without the harness's code:
    the winner's model over the other sides' models; a game a side's reply broke, each other side over it."""
    models = doc["models"]
    index = {m: i for i, m in enumerate(models)}
    data = []
    for e in doc["episodes"]:
        side = e["assignment"]
        winner = None
        if doc["problem"] == "gameeval/spyfall" and e["outcome"] in ("spy", "villager"):
            winner = e["outcome"]
        if doc["problem"] == "gameeval/tofukingdom" and e["result"] and "winner" in e["result"]:
            winner = {"Princess": "prince", "Queen": "queen"}.get(e["result"]["winner"], "spy")
        if winner is not None:
            losers = tuple(dict.fromkeys(index[side[r]] for r in roles if r != winner and side[r] != side[winner]))
            data += [(index[side[winner]], losers)] if losers else []
        elif e["forfeit"] is not None:
            lost = side[e["forfeit"]]
            pairs = dict.fromkeys(
                (index[side[r]], (index[lost],)) for r in roles if r != e["forfeit"] and side[r] != lost
            )
            data += list(pairs)
    params = choix.ilsr_top1(len(models), data, alpha=0.01)
    mean = sum(params) / len(params)
    return {m: round(1000 + 400 / math.log(10) * (params[i] - mean), 1) for m, i in index.items()}


def check_strength(doc: dict[str, Any]) -> None:
    """rules > random > silent, and the intervals of the strongest and the weakest apart."""
    ratings = doc["cross_play"]["ratings"]
    assert [r["model"] for r in ratings] == list(THREE), ratings
    assert ratings[0]["low"] > ratings[-1]["high"] and ratings[0]["rank_high"] < ratings[-1]["rank_low"]


@pytest.mark.slow  # 120 games: a minute, more on a loaded machine
def test_gameevals_tofukingdom_table_and_the_designed_strengths(arena) -> None:
    result, doc = play(arena, "gameeval/tofukingdom", "-p", "xdist", "-n", "2")
    assert result.ret == 0, result.stdout.str()
    check_tofukingdom_table(result, doc, games=20)
    check_strength(doc)
    assert {r["model"]: r["rating"] for r in doc["cross_play"]["ratings"]} == library_fit(
        doc, ("prince", "queen", "spy")
    )


@pytest.mark.slow
def test_spyfall_ranks_the_designed_strengths(arena) -> None:
    result, doc = play(arena, "gameeval/spyfall", "--pcg-trials", "2", "-p", "xdist", "-n", "2")
    assert result.ret == 0, result.stdout.str()
    cp = doc["cross_play"]
    assert len(cp["assignments"]) == 9 and cp["matrix"]["rows"]["models"] == list(THREE)
    check_strength(doc)
    assert {r["model"]: r["rating"] for r in cp["ratings"]} == library_fit(doc, ("spy", "villager"))
    result.stdout.fnmatch_lines(["cross-play matrix: spy (rows) x villager (columns), spy win %*"])
    html = (arena.path / "out" / "report.html").read_text()
    assert 'aria-label="cross-play matrix: spy x villager"' in html


@pytest.mark.slow
def test_the_picture_game_ranks_the_designed_strengths(arena) -> None:
    result, doc = play(arena, "imagegame", "--pcg-imagegame-instances", "compact_grids", "-p", "xdist", "-n", "2")
    assert result.ret == 0, result.stdout.str()
    cp = doc["cross_play"]
    assert cp["kind"] == "cooperative" and len(cp["assignments"]) == 9
    assert cp["matrix"]["rows"]["role"] == "giver" and cp["matrix"]["cells"][0][0]["value"] == 100  # rules--rules
    check_strength(doc)
    folders = {e["episode_dir"].split("/")[3] for e in doc["episodes"]}
    assert "players-rules-t0.0--players-silent-t0.0" not in folders  # clembench's pair folders, by the answering model
    assert any(f.startswith("scripted-players-rules-t0.0--scripted-players-silent") for f in folders)
