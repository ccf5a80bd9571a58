"""Controller aggregation: grouping, diversity inputs, errored items, usage, and the letters actually run."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from decimal import Decimal

from pcg_plugin.problems.science_birds.scoring.aggregate import (
    diversity_vectors, group, run_letters, scoring_inputs, submissions_meta, trial_entries,
    usage_totals,
)  # fmt: skip
from pcg_plugin.core.controller import Collected
from pcg_plugin.problems.science_birds.records import TrialRecord
from pcg_plugin.problems.science_birds.results import ERROR_REASON, Usage


def rec(sub="a", letter="A", trial=1, **kw):
    return TrialRecord(nodeid=f"submissions/{sub}::{letter}::{trial}", submission=sub, letter=letter, trial=trial,
                       **kw)  # fmt: skip


@given(st.permutations([rec(s, letter, t) for s in "ab" for letter in "AB" for t in (1, 2, 3)]))
def test_group_is_order_independent(shuffled):
    grouped = group(shuffled)
    assert list(grouped) == ["a", "b"]
    assert [r.trial for r in grouped["a"]["B"]] == [1, 2, 3]
    assert grouped == group(reversed(shuffled))


def test_diversity_vectors_only_from_images():
    p = tuple([1 / 26] * 26)
    rs = [rec(trial=1, sim=0.1, probs=p), rec(trial=2, reason="no_code"), rec(trial=3, sta=1.0, reason="no_blocks"),
          rec(trial=4, sim=0.2, probs=p, embedding=(1.0, 0.0))]  # fmt: skip
    assert diversity_vectors(rs, use_embedding=False) == [p, p]
    assert diversity_vectors(rs, use_embedding=True) == [(1.0, 0.0)]


def test_errored_items_are_reported_as_missing_trials():
    col = Collected()
    ok = rec(trial=1, sim=0.5, sta=1.0)
    col.add_record(ok)
    for t in (1, 2):
        col.add_item(f"submissions/a::A::{t}", {"name": "a", "letter": "A", "trial": t, "format": "prompt-2023"})
    col.add_error("submissions/a::A::2", "call: InfrastructureError: model server down")
    rows = trial_entries(col, "a", "A", {1: "0.25"})
    assert [r.trial for r in rows] == [1, 2]
    assert rows[0].trial_score == "0.25" and rows[0].reason is None and rows[0].seed == 0
    assert rows[1].reason == ERROR_REASON and "model server down" in rows[1].message and rows[1].errored
    assert rows[1].trial_score == "0"
    assert "seed" in rows[0].to_dict() and "seed" not in rows[1].to_dict()  # an errored item has no seed


def test_run_letters_follow_what_ran():
    col = Collected()
    assert run_letters(col, ["A", "B"]) == ["A", "B"]
    col.add_item("x", {"name": "a", "letter": "Q", "trial": 1})
    col.add_record(rec(letter="C"))
    assert run_letters(col, ["A", "B"]) == ["C", "Q"]


def test_submissions_meta_from_items_or_records():
    col = Collected()
    col.add_item("n", {"name": "a", "letter": "A", "trial": 1, "format": "program-2024", "team": "Team A"})
    col.add_record(rec(sub="b", format="prompt-2023"))
    meta = submissions_meta(col)
    assert meta["a"]["team"] == "Team A" and meta["b"]["format"] == "prompt-2023"


def test_usage_totals():
    rs = [rec(usage={"prompt_tokens": 10, "completion_tokens": 5, "calls": 1}),
          rec(trial=2, usage={"prompt_tokens": 1, "calls": 2, "replayed_calls": 2, "cost_usd": 0.5})]  # fmt: skip
    total = usage_totals(rs)
    assert total == Usage(prompt_tokens=11, completion_tokens=5, calls=3, replayed_calls=2, cost_usd=0.5)
    assert usage_totals([]).cost_usd is None


def test_several_models_scored_per_model_and_summed():
    """aggregate.score_models equals scoring.score_models on hand-made inputs (weights per model, sums)."""
    from decimal import Decimal
    from types import SimpleNamespace

    from pcg_plugin.problems.science_birds.scoring.aggregate import per_model_document, score_models
    from pcg_plugin.problems.science_birds.scoring.official import LetterInput
    from pcg_plugin.problems.science_birds.scoring.official import score_models as official

    e1, e2 = (1.0, 0.0), (0.0, 1.0)  # two trials with orthogonal embeddings: diversity 1 / (3 - 2) = 1
    col = Collected()
    sims = {("m1", "a"): (0.5, 0.25), ("m1", "b"): (0.75, 0.5), ("m2", "a"): (0.125, 0.5), ("m2", "b"): (0.5, 0.5)}
    for (model, sub), (s1, s2) in sims.items():
        for t, sim, emb in ((1, s1, e1), (2, s2, e2)):
            nodeid = f"submissions/{sub}::{model}::A::{t}"
            col.add_item(nodeid, {"name": sub, "letter": "A", "trial": t, "model": model, "format": "program-2025"})
            col.add_record(TrialRecord(nodeid=nodeid, submission=sub, letter="A", trial=t, sta=1.0, sim=sim,
                                       probs=tuple([0.0] * 26), embedding=emb, model=model))  # fmt: skip
    col.add_item("submissions/b::m2::A::3", {"name": "b", "letter": "A", "trial": 3, "model": "m2"})
    col.add_error("submissions/b::m2::A::3", "call: boom")
    settings = SimpleNamespace(letters=("A",), trials=2, models=("m2", "m1"), disable_weights=False, tie_break=None)
    result, _, letters = score_models(col, settings)
    d = lambda x: Decimal(repr(x))  # noqa: E731
    expected = official({m: {s: {"A": LetterInput(stability=((1, d(1.0)), (2, d(1.0))),
                                                  similarity=((1, d(sims[m, s][0])), (2, d(sims[m, s][1]))),
                                                  diversity=d(1.0))} for s in "ab"} for m in ("m2", "m1")},
                        trials=2, letters=("A",))  # fmt: skip
    assert list(result.per_model) == ["m2", "m1"] and letters == ["A"]
    assert result.totals == expected.totals and result.normalized == expected.normalized
    assert result.per_model_normalized == expected.per_model_normalized
    doc = per_model_document(col, result, letters)
    assert sum(Decimal(doc[m].submissions["a"].normalized_score) for m in doc) == result.normalized["a"]
    trials = doc["m2"].submissions["b"].letters["A"].trials
    assert [t.reason for t in trials] == [None, None, ERROR_REASON]  # the error stays with its model
    assert [t.reason for t in doc["m1"].submissions["b"].letters["A"].trials] == [None, None]


def test_scoring_inputs_by_hand():
    """Records -> the scorer's inputs, values written out by hand: sta per level, sim per image, keyed by trial
    number; diversity from the vectors of the trials with an image over T(T+1)/2 - T; a letter or a submission
    with nothing is all zero, never dropped."""
    x, y = (1.0, 0.0), (0.0, 1.0)  # orthogonal: cosine distance 1
    records = [
        rec(trial=1, sta=1.0, sim=0.5, probs=x, embedding=y), rec(trial=2, sta=0.25, sim=0.125, probs=y, embedding=y),
        rec(trial=3, sta=0.5, reason="no_image"), rec(trial=4, reason="no_code"),
    ]  # fmt: skip
    inputs, numbers = scoring_inputs(group(records), ["a", "b"], ["A", "B"], 4, use_embedding=False)
    a = inputs["a"]["A"]
    assert a.stability == ((1, Decimal("1")), (2, Decimal("0.25")), (3, Decimal("0.5")))
    assert a.similarity == ((1, Decimal("0.5")), (2, Decimal("0.125")))
    assert a.diversity == Decimal(repr(1 / 6))  # one pair at distance 1 over 4·5/2 - 4 = 6, a float as scipy
    assert numbers["a"]["A"]["diversity"] == 1 / 6
    for empty in (inputs["a"]["B"], inputs["b"]["A"], inputs["b"]["B"]):
        assert (empty.stability, empty.similarity, empty.diversity) == ((), (), Decimal(0))
    # 2025: the CLS embeddings (identical here) are the diversity vectors, not the probabilities
    embedded, _ = scoring_inputs(group(records), ["a"], ["A"], 4, use_embedding=True)
    assert embedded["a"]["A"].diversity == 0 and embedded["a"]["A"].similarity == a.similarity
