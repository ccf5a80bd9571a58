"""``--pcg-problem``'s names (``pcg_plugin.core.contract.selection``): one plain name is a run of one problem, a list
or a
pattern a suite; the names come in the order given, each once; an unknown one is answered with the closest."""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.core.contract import selection
from pcg_plugin.core.contract.selection import UnknownProblem, select

NAMES = sorted(
    [
        "science-birds",
        "imagegame",
        "gameeval/askguess-easy",
        "gameeval/askguess-hard",
        "gameeval/spyfall",
        "gameeval/tofukingdom",
        *(f"pcgbench/{v}" for v in ("binary-v0", "zelda-v0", "zelda-large-v0", "sokoban-v0", "smb-v0", "lode-v0")),
    ]
)
name = st.sampled_from(NAMES)
pattern = st.sampled_from(["pcgbench/*", "gameeval/*", "*-v0", "gameeval/askguess-?ard", "pcgbench/[sz]*", "all"])
entry = st.one_of(name, pattern)


def test_a_family_pattern_takes_every_variant_in_name_order() -> None:
    assert select("gameeval/*", NAMES) == (
        "gameeval/askguess-easy",
        "gameeval/askguess-hard",
        "gameeval/spyfall",
        "gameeval/tofukingdom",
    )
    assert select("all", NAMES) == tuple(NAMES)


def test_a_list_keeps_its_order_and_drops_repeats_and_blanks() -> None:
    assert select(" imagegame, pcgbench/zelda-v0,,imagegame ", NAMES) == ("imagegame", "pcgbench/zelda-v0")


@given(st.lists(entry, min_size=1, max_size=5))
def test_every_selected_name_is_named_or_matched_and_each_once(entries: list[str]) -> None:
    got = select(",".join(entries), NAMES)
    assert len(got) == len(set(got))
    assert all(n in NAMES for n in got)
    for e in entries:  # nothing an entry names is left out
        wanted = NAMES if e == "all" else [n for n in NAMES if fnmatchcase(n, e)]
        assert set(wanted) <= set(got)
    named = {n for e in entries for n in (NAMES if e == "all" else [n for n in NAMES if fnmatchcase(n, e)])}
    assert set(got) == named  # and nothing more


@given(st.lists(name, min_size=1, max_size=5))
def test_plain_names_come_in_the_order_given(names: list[str]) -> None:
    assert select(",".join(names), NAMES) == tuple(dict.fromkeys(names))


@given(name)
def test_one_plain_name_is_not_a_suite_a_list_or_pattern_is(one: str) -> None:
    assert not selection.is_suite(one)
    assert selection.is_suite(f"{one},{one}")
    assert selection.is_suite(one.split("/")[0] + "/*")
    assert selection.is_suite("all")


def test_an_unknown_name_gets_the_closest_names_not_the_whole_list() -> None:
    with pytest.raises(UnknownProblem) as caught:
        select("imagegame,pcgbench/zelda", NAMES)
    assert caught.value.name == "pcgbench/zelda"
    assert caught.value.closest[0] == "pcgbench/zelda-v0"
    assert "science-birds" not in str(caught.value)
    assert f"{len(NAMES)} installed" in str(caught.value)


def test_a_misspelt_family_pattern_matches_nothing_and_suggests_the_family() -> None:
    with pytest.raises(UnknownProblem, match="no problem matches 'pcgbnch/\\*'") as caught:
        select("pcgbnch/*", NAMES)
    assert "pcgbench/*" in caught.value.closest


def test_a_plain_name_a_conftest_supplies_is_accepted() -> None:
    assert select("spell,imagegame", NAMES, accept=lambda n: n == "spell") == ("spell", "imagegame")
    with pytest.raises(UnknownProblem):
        select("spel,imagegame", NAMES, accept=lambda n: n == "spell")


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz-/", min_size=1, max_size=20).filter(lambda t: t not in NAMES))
def test_closest_names_are_at_most_three_and_installed_or_a_family(text: str) -> None:
    found = selection.closest(text, NAMES)
    assert len(found) <= 3
    assert all(n in NAMES or n in selection.families(NAMES) for n in found)


def test_a_name_near_nothing_gets_no_suggestion() -> None:
    with pytest.raises(UnknownProblem, match="nothing close") as caught:
        select("xyzzy", NAMES)
    assert caught.value.closest == ()
