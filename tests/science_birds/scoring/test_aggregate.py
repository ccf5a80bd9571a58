"""Controller aggregation: grouping, diversity inputs, errored items, usage, and the letters actually run."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.core.session.controller import Collected
from pcg_plugin.problems.science_birds.records import TrialRecord
from pcg_plugin.problems.science_birds.results import ERROR_REASON, Usage
from pcg_plugin.problems.science_birds.scoring.aggregate import (
    diversity_vectors,
    group,
    run_letters,
    scoring_inputs,
    submissions_meta,
    trial_entries,
    usage_totals,
)


def rec(sub="a", letter="A", trial=1, **kw):
    return TrialRecord(nodeid=f"submissions/{sub}::{letter}::{trial}", submission=sub, letter=letter, trial=trial, **kw)


@given(st.permutations([rec(s, letter, t) for s in "ab" for letter in "AB" for t in (1, 2, 3)]))
def test_group_is_order_independent(shuffled):
    grouped = group(shuffled)
    assert list(grouped) == ["a", "b"]
    assert [r.trial for r in grouped["a"]["B"]] == [1, 2, 3]
    assert grouped == group(reversed(shuffled))


def test_diversity_vectors_only_from_images():
    p = tuple([1 / 26] * 26)
    rs = [
        rec(trial=1, sim=0.1, probs=p),
        rec(trial=2, reason="no_code"),
        rec(trial=3, sta=1.0, reason="no_blocks"),
        rec(trial=4, sim=0.2, probs=p, embedding=(1.0, 0.0)),
    ]
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
    rs = [
        rec(usage={"prompt_tokens": 10, "completion_tokens": 5, "calls": 1}),
        rec(trial=2, usage={"prompt_tokens": 1, "calls": 2, "replayed_calls": 2, "cost_usd": 0.5}),
    ]
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
            col.add_record(
                TrialRecord(
                    nodeid=nodeid,
                    submission=sub,
                    letter="A",
                    trial=t,
                    sta=1.0,
                    sim=sim,
                    probs=tuple([0.0] * 26),
                    embedding=emb,
                    model=model,
                )
            )
    col.add_item("submissions/b::m2::A::3", {"name": "b", "letter": "A", "trial": 3, "model": "m2"})
    col.add_error("submissions/b::m2::A::3", "call: boom")
    settings = SimpleNamespace(letters=("A",), trials=2, models=("m2", "m1"), disable_weights=False, tie_break=None)
    result, _, letters = score_models(col, settings)

    def d(x: float) -> Decimal:
        return Decimal(repr(x))

    expected = official(
        {
            m: {
                s: {
                    "A": LetterInput(
                        stability=((1, d(1.0)), (2, d(1.0))),
                        similarity=((1, d(sims[m, s][0])), (2, d(sims[m, s][1]))),
                        diversity=d(1.0),
                    )
                }
                for s in "ab"
            }
            for m in ("m2", "m1")
        },
        trials=2,
        letters=("A",),
    )
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
        rec(trial=1, sta=1.0, sim=0.5, probs=x, embedding=y),
        rec(trial=2, sta=0.25, sim=0.125, probs=y, embedding=y),
        rec(trial=3, sta=0.5, reason="no_image"),
        rec(trial=4, reason="no_code"),
    ]
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


# -- the run's options reach the scorer: what a user reads in results.json and the terminal table -------------


def _one_hot(k: int) -> tuple[float, ...]:
    return tuple(1.0 if i == k else 0.0 for i in range(26))


def _competition(entries, fmt="program-2024"):  # type: ignore[no-untyped-def]
    """A finished run's collected items: {name: (prompt_length, {letter: [(sta, sim, probs, embedding), ...]})}."""
    col = Collected()
    for name, (length, per_letter) in entries.items():
        for letter, trials in per_letter.items():
            for t, (sta, sim, probs, emb) in enumerate(trials, 1):
                nodeid = f"submissions/{name}::{letter}::{t}"
                col.add_item(
                    nodeid,
                    {"name": name, "letter": letter, "trial": t, "format": fmt, "prompt_length": length, "team": name},
                )
                col.add_record(
                    TrialRecord(
                        nodeid=nodeid,
                        submission=name,
                        letter=letter,
                        trial=t,
                        format=fmt,
                        sta=sta,
                        sim=sim,
                        probs=probs,
                        embedding=emb,
                    )
                )
    return col


def _user_view(col, tmp_path, **options):  # type: ignore[no-untyped-def]
    """Score ``col`` as the controller does under these ``--pcg-*`` options (resolved as the command line's),
    write results.json, and return (results.json read back, the terminal ranking table)."""
    import json

    from pcg_plugin.problems.science_birds import results
    from pcg_plugin.problems.science_birds.outputs import settings_document
    from pcg_plugin.problems.science_birds.report.terminal import ranking_table
    from pcg_plugin.problems.science_birds.scoring.aggregate import results_document, score
    from pcg_plugin.problems.science_birds.settings import resolve

    raw = {"pcg_" + key: value for key, value in options.items()}
    settings = resolve({"pcg_backend": "scripted", **raw}, rootdir=tmp_path, env={})
    result, _numbers, letters = score(col, settings)
    doc = results_document(
        col,
        settings,
        run=results.Run(id="r"),
        settings_doc=settings_document(settings, {}),
        provenance={},
        result=result,
        letters=letters,
    )
    results.write(tmp_path / results.FILE, doc)
    table = ranking_table(doc.submissions)
    return json.loads((tmp_path / results.FILE).read_text(encoding="utf-8")), table


def _ranking(doc) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    return [(s["name"], s["rank"]) for s in doc["submissions"]]


def _table_order(table: list[str]) -> list[str]:
    """The submissions in the table's order: each row's first cell after the rank and its 95 % interval."""
    import re

    return [next(t for t in line.split()[1:] if not re.fullmatch(r"[-–\d]+", t)) for line in table[1:]]


def test_2025_diversity_compares_the_cls_embeddings_not_the_probabilities(tmp_path):
    """2025 (spec §6.1): diversity is the cosine distance of the images' CLS embeddings. Here the embeddings of
    `emb_varied`'s two images are orthogonal and its probabilities equal; `probs_varied` is the other way round.
    So `emb_varied` has diversity 1 and the whole score, `probs_varied` diversity 0 and nothing; read from
    probabilities the ranking would be the reverse."""
    same, x, y = _one_hot(0), (1.0, 0.0), (0.0, 1.0)
    col = _competition(
        {
            "emb_varied": (10, {"A": [(1.0, 0.5, same, x), (1.0, 0.5, same, y)]}),
            "probs_varied": (10, {"A": [(1.0, 0.5, _one_hot(0), x), (1.0, 0.5, _one_hot(1), x)]}),
        },
        fmt="program-2025",
    )
    doc, table = _user_view(col, tmp_path, edition="2025", letters="A", trials="2")
    assert doc["settings"]["diversity_vector"] == "embedding"
    assert _ranking(doc) == [("emb_varied", 1), ("probs_varied", 2)]
    by_name = {s["name"]: s for s in doc["submissions"]}
    numbers = {
        (n, key): Decimal(s[key] if key != "diversity" else s["letters"]["A"][key])
        for n, s in by_name.items()
        for key in ("diversity", "normalized_score")
    }
    assert numbers == {
        ("emb_varied", "diversity"): 1,
        ("emb_varied", "normalized_score"): 100,
        ("probs_varied", "diversity"): 0,
        ("probs_varied", "normalized_score"): 0,
    }
    assert _table_order(table) == ["emb_varied", "probs_varied"]


def test_tie_break_option_ranks_the_shorter_prompt_first(tmp_path):
    """Two 2023 prompts with identical answers tie. --pcg-tie-break prompt-length ranks the shorter one first
    although its name sorts last; without the option the official order (folder order) stands. The score is
    2023's (spec §6.4, no diversity): per letter mean sta 0.75 and sim 0.375 give the weight 0.25 · 0.625 =
    0.15625, trials 0.15625 · 0.5 and 0.15625 · 0.125, char = prompt = their mean 0.048828125."""
    trials = [(1.0, 0.5, _one_hot(0), None), (0.5, 0.25, _one_hot(1), None)]
    entries = {"aa_long": (60, {"A": trials, "B": trials}), "zz_short": (15, {"A": trials, "B": trials})}
    doc, table = _user_view(
        _competition(entries, fmt="prompt-2023"),
        tmp_path,
        edition="2023",
        letters="A,B",
        trials="2",
        tie_break="prompt-length",
    )
    assert doc["settings"]["tie_break"] == "prompt-length"
    assert [Decimal(s["prompt_score"]) for s in doc["submissions"]] == [Decimal("0.048828125")] * 2
    assert _ranking(doc) == [("zz_short", 1), ("aa_long", 2)]
    assert _table_order(table) == ["zz_short", "aa_long"]
    plain, _ = _user_view(
        _competition(entries, fmt="prompt-2023"), tmp_path / "plain", edition="2023", letters="A,B", trials="2"
    )
    assert _ranking(plain) == [("aa_long", 1), ("zz_short", 2)]


def test_disable_weights_option_scores_every_letter_alike(tmp_path):
    """2024, three submissions: `a` and `c` draw A well, `b` draws B. Weighted, the hard letter B counts about
    twice the easy A and `b` wins; with --pcg-disable-weights true every weight is 1 and the prompt score is the
    plain mean (a: (0.9 + 0) / 2 = 0.45), so `a` wins. Every letter's two images have orthogonal probabilities
    (diversity 1)."""

    def letter(sim: float) -> list:
        return [(1.0, sim, _one_hot(0), None), (1.0, sim, _one_hot(1), None)]

    entries = {
        "a": (10, {"A": letter(0.9), "B": letter(0.0)}),
        "b": (10, {"A": letter(0.0), "B": letter(0.5)}),
        "c": (10, {"A": letter(0.75), "B": letter(0.0)}),
    }
    doc, table = _user_view(
        _competition(entries), tmp_path, edition="2024", letters="A,B", trials="2", disable_weights="true"
    )
    assert doc["settings"]["disable_weights"] is True
    assert {c: w["weight"] for c, w in doc["weights"].items()} == {"A": "1", "B": "1"}
    assert [(s["name"], s["rank"], s["prompt_score"]) for s in doc["submissions"]] == [
        ("a", 1, "0.45"),
        ("c", 2, "0.375"),
        ("b", 3, "0.25"),
    ]
    assert _table_order(table) == ["a", "c", "b"]
    weighted, _ = _user_view(_competition(entries), tmp_path / "weighted", edition="2024", letters="A,B", trials="2")
    assert _ranking(weighted) == [("b", 1), ("a", 2), ("c", 3)]
