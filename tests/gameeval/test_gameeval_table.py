"""The N-player episode table: histories, snapshots, votes, eliminations."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.episode.table import Call, Crash, Eliminated, Said, Table, tally


def test_tell_reaches_everyone_but_the_speaker_and_ask_snapshots() -> None:
    seen = []
    table = Table(("A", "B", "C"), lambda caller, stage, messages: seen.append(messages) or "ok")
    table.tell("A", "A: hi")
    table.add("A", "assistant", "hi")
    reply = table.ask("B", "describe", table.histories["B"])
    table.tell("host", "later")
    assert reply == "ok" and table.histories["A"] == [
        {"role": "assistant", "content": "hi"},
        {"role": "user", "content": "later"},
    ]
    assert table.calls[0].messages == [{"role": "user", "content": "A: hi"}]  # not touched by "later"
    assert isinstance(table.events[0], Said) and table.events[0].to == ("B", "C")
    assert isinstance(table.events[1], Call)


def test_eliminate_leaves_the_seat_and_logs_it() -> None:
    table = Table(("A", "B"), lambda *a: None)
    table.eliminate(1, "A")
    assert table.living == ["B"] and table.events == [Eliminated(1, "A")]


def test_tally_ties_go_to_the_first_voted() -> None:
    assert tally(["B", "A", "A", "B"]) == "B"
    assert tally([None, None, "A"]) is None
    with pytest.raises(Crash):
        tally(["A", ["A"]])


@given(st.lists(st.sampled_from(["A", "B", "C", None]), min_size=1))
def test_tally_is_a_most_voted_name(votes: list) -> None:
    winner = tally(votes)
    assert votes.count(winner) == max(votes.count(v) for v in votes)
    assert all(votes.index(winner) <= votes.index(v) for v in votes if votes.count(v) == votes.count(winner))
