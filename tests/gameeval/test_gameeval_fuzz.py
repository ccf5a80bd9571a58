"""Any reply text (empty, huge, binary, malformed JSON, null) ends an episode with a named outcome, never an
exception, and every reply is used by exactly one call."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.gameeval import askguess, replay, spyfall, tofukingdom
from pcg_plugin.problems.gameeval.episode import CRASH

_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.dictionaries(st.sampled_from(["thought", "speak", "name", "question", "answer", "x"]), kids, max_size=4)
    ),
    max_leaves=8,
)
REPLY = st.one_of(
    st.none(),
    st.text(max_size=40),
    st.just(""),
    st.binary(max_size=30).map(lambda b: b.decode("latin-1")),
    _JSONISH.map(lambda v: json.dumps(v, allow_nan=True)),
    _JSONISH.map(lambda v: json.dumps(v)[:-1]),
    st.sampled_from(["gameover", "Is it an apple?", "no", "x" * 100_000, "[" * 5000, '{"thought":' * 3000]),
    st.sampled_from(spyfall.PLAYERS + tofukingdom.NAMES).map(
        lambda n: json.dumps({"thought": "t", "speak": "s", "name": n, "question": "q", "answer": "a"})
    ),
)
LABELS = {
    "askguess": set(askguess.OUTCOMES),
    "spyfall": {"spy", "villager", "exit", CRASH},
    "tofukingdom": {
        *tofukingdom.ROLES,
        CRASH,
        "Question is None.",
        "Answer is None.",
        "Extra name is None.",
        "Extra answer is None.",
        "Fianl answer is None.",
    },
}


def play(game: str, setup: object, data: st.DataObject) -> None:
    used = []

    def model(caller: str, stage: str, messages: list) -> str | None:
        reply = data.draw(REPLY)
        used.append(reply)
        return reply

    played = replay.play(game, setup, model)
    assert played.outcome in LABELS[game]
    assert len(played.calls) == len(used) and played.why
    assert (played.result is None) == (played.outcome == CRASH)


@settings(max_examples=40)
@given(st.data(), st.sampled_from(["apple", "lawn_mower", "cra"]), st.sampled_from(askguess.MODES))
def test_askguess_any_reply(data: st.DataObject, word: str, mode: str) -> None:
    play("askguess", askguess.Setup(word, mode), data)


@settings(max_examples=40)
@given(st.data(), st.integers(0, 2**32))
def test_spyfall_any_reply(data: st.DataObject, seed: int) -> None:
    play("spyfall", spyfall.draw(random.Random(seed), ("tiger", "lion")), data)


@settings(max_examples=40)
@given(st.data(), st.integers(0, 2**32))
def test_tofukingdom_any_reply(data: st.DataObject, seed: int) -> None:
    play("tofukingdom", tofukingdom.draw(random.Random(seed)), data)
