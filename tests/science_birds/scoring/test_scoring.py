"""Official scoring in exact Decimal: unit cases, editions, tie-break, 2025 per-model totals and invariants."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.science_birds.scoring.official import (
    LetterInput,
    div,
    fmt,
    letter_weight,
    rank,
    score,
    score_models,
    to_decimal,
)

D = Decimal
FLOOR = div(D(1), D(26))

unit = st.floats(0, 1, allow_nan=False)
LETTERS = ("A", "B", "C")
TRIALS = 3


@st.composite
def letter_inputs(draw) -> LetterInput:  # type: ignore[no-untyped-def]
    sta = draw(st.lists(st.tuples(st.integers(1, TRIALS), unit), max_size=TRIALS + 1))
    sim = draw(st.lists(st.tuples(st.integers(1, TRIALS), unit), max_size=TRIALS))
    return LetterInput(
        stability=tuple((i, to_decimal(v)) for i, v in sta),
        similarity=tuple((i, to_decimal(v)) for i, v in sim),
        diversity=to_decimal(draw(unit)),
    )


programs_st = st.dictionaries(
    st.text("abcdefgh", min_size=1, max_size=4),
    st.fixed_dictionaries({c: letter_inputs() for c in LETTERS}),
    min_size=1,
    max_size=4,
)


def test_to_decimal_shortest_repr() -> None:
    assert to_decimal(0.1) == D("0.1")  # not 0.1000000000000000055511151231257827...
    assert to_decimal(0.1 + 0.2) == D("0.30000000000000004")
    assert to_decimal("0.25") == D("0.25") and to_decimal(3) == D(3) and to_decimal(D("1.5")) == D("1.5")
    for bad in (float("nan"), float("inf"), "x", None, True):
        with pytest.raises((ValueError, TypeError)):
            to_decimal(bad)


def test_division_rounds_to_20_places_half_up() -> None:
    assert fmt(div(D(1), D(26))) == "0.03846153846153846154"
    assert fmt(div(D(2), D(3))) == "0.66666666666666666667"
    assert fmt(div(D("5e-21"), D(1))) == "0.00000000000000000001"  # half up, away from zero
    assert fmt(div(D(1), D(4))) == "0.25"  # no trailing zeros, like toFixed()
    assert fmt(div(D(0), D(7))) == "0"


def test_negative_zero_prints_as_zero() -> None:
    """bignumber.js prints negative zero as "0" (only valueOf() keeps the sign): a -0.0 in a stage file must not
    print "-0" in the official outputs."""
    assert fmt(to_decimal(-0.0)) == "0" and fmt(D("-0E-5")) == "0"
    li = LetterInput(((1, D(1)),), ((1, to_decimal(-0.0)),), D(1))
    res = score({"p": {"A": li}}, letters=["A"], trials=1, disable_weights=True)
    assert fmt(res.programs["p"].letters["A"].trials[0].score) == "0"


def test_weight_floor_and_all_raws_summed() -> None:
    perfect = LetterInput(((1, D(1)),) * 10, ((1, D(1)),) * 10, D(1))
    w = letter_weight([perfect], trials=10, with_diversity=True)
    assert (w.w_sta, w.w_sim, w.w_div) == (FLOOR, FLOOR, FLOOR)
    extra = LetterInput(((1, D("0.5")),) * 12)  # 12 raws: all summed over P·T = 10 -> avg 0.6
    assert letter_weight([extra], trials=10, with_diversity=True).w_sta == D("0.4")
    over = LetterInput(((1, D(1)),) * 12)  # avg 1.2: 1 - avg < 0, floored
    assert letter_weight([over], trials=10, with_diversity=True).w_sta == FLOOR
    w23 = letter_weight([LetterInput(((1, D("0.5")),))], trials=10, with_diversity=False)
    assert w23.w_div is None and w23.weight == D("0.95") * 1


def test_2024_hand_computed() -> None:
    """Two programs, one letter, T=2: every step by hand."""
    a = LetterInput(((2, D(1)), (1, D("0.5"))), ((1, D("0.5")), (2, D("0.5"))), D("0.25"))
    b = LetterInput((), ((7, D(1)),), D(0))  # trial 7 is outside 1..T: counts in the weight, not in the score
    res = score({"a": {"A": a}, "b": {"A": b}}, letters=["A"], trials=2)
    w = res.weights["A"]
    assert (fmt(w.w_sta), fmt(w.w_sim), fmt(w.w_div)) == ("0.625", "0.5", "0.875")
    assert fmt(w.weight) == "0.2734375"
    ch = res.programs["a"].letters["A"]
    assert [fmt(t.score) for t in ch.trials] == ["0.068359375", "0.13671875"]
    assert fmt(ch.char_score) == fmt(div(D("0.205078125"), D(2)) * D("0.25"))
    assert fmt(ch.sta_mean) == "0.75" and fmt(ch.sim_mean) == "0.5"
    assert res.programs["b"].prompt_score == 0
    assert fmt(res.normalized["a"]) == "100" and res.ranking == (("a", 1), ("b", 2))


def test_2023_pairs_by_position_2024_by_index() -> None:
    li = LetterInput(((3, D(1)), (1, D("0.5"))), ((1, D(1)), (3, D(1))))
    by_pos = score({"p": {"A": li}}, edition="2023", letters=["A"], trials=3, disable_weights=True)
    by_idx = score({"p": {"A": li}}, edition="2024", letters=["A"], trials=3, disable_weights=True)
    assert [t.sta for t in by_pos.programs["p"].letters["A"].trials] == [D(1), D("0.5"), D(0)]
    assert [t.sta for t in by_idx.programs["p"].letters["A"].trials] == [D("0.5"), D(0), D(1)]
    assert by_pos.programs["p"].letters["A"].diversity is None


def test_missing_letter_and_failed_read_score_zero() -> None:
    good = LetterInput(((1, D(1)),), ((1, D(1)),), D(1))
    res = score({"p": {"A": good}, "q": {"A": LetterInput.failed()}}, letters=["A", "B"], trials=1)
    assert res.programs["q"].prompt_score == 0
    assert res.programs["p"].letters["B"].char_score == 0
    # q still counts in P: avg sta = 1/(2·1)
    assert res.weights["A"].w_sta == D("0.5")


def test_competition_zero_divides_by_one() -> None:
    res = score({"p": {}, "q": {}}, letters=["A"])
    assert res.competition_score == 0 and set(res.normalized.values()) == {D(0)}
    assert [r for _, r in res.ranking] == [1, 2]


def test_tie_break_prompt_length() -> None:
    norm = {"long": D(50), "short": D(50), "other": D(0)}
    assert rank(norm) == (("long", 1), ("short", 2), ("other", 3))  # official: unique ranks, input order
    assert rank(norm, tie_break="prompt-length", prompt_lengths={"long": 90, "short": 10}) == (
        ("short", 1),
        ("long", 2),
        ("other", 3),
    )
    co = rank(norm, tie_break="prompt-length", prompt_lengths={"long": 10, "short": 10})
    assert co == (("long", 1), ("short", 1), ("other", 3))


def test_tie_break_unknown_length_never_wins() -> None:
    """A program whose prompt length is unknown (no prompt text) cannot win a tie over one whose length is known."""
    norm = {"no_prompt": D(50), "known": D(50)}
    assert rank(norm, tie_break="prompt-length", prompt_lengths={"known": 900}) == (("known", 1), ("no_prompt", 2))
    assert rank(norm, tie_break="prompt-length", prompt_lengths={}) == (("no_prompt", 1), ("known", 1))


def test_bad_settings_are_clear() -> None:
    with pytest.raises(ValueError, match="edition"):
        score({}, edition="2022")
    with pytest.raises(ValueError, match="tie-break"):
        score({}, tie_break="coin")


def test_2025_per_model_totals() -> None:
    li = LetterInput(((1, D(1)),), ((1, D("0.5")),), D("0.5"))
    per_model = {"m1": {"a": {"A": li}, "b": {}}, "m2": {"a": {}, "b": {"A": li}}, "m3": {"a": {"A": li}}}
    res = score_models(per_model, letters=["A"], trials=1)
    prompt = {m: r.prompt_scores for m, r in res.per_model.items()}
    assert "b" not in prompt["m3"]  # absent under a model: 0 there, still in the total
    assert res.totals["a"] == prompt["m1"]["a"] + prompt["m2"]["a"] + prompt["m3"]["a"]
    assert res.totals["b"] == prompt["m1"]["b"] + prompt["m2"]["b"]
    assert res.competition_score == res.totals["a"] + res.totals["b"]
    assert res.normalized["a"] == div(res.totals["a"], res.competition_score) * 100
    for name in ("a", "b"):
        assert sum(res.per_model_normalized[m][name] for m in per_model) == pytest.approx(res.normalized[name])
    assert res.ranking[0] == ("a", 1)


@settings(max_examples=40)
@given(programs_st, st.booleans())
def test_invariants(programs: dict[str, dict[str, LetterInput]], disable: bool) -> None:
    res = score(programs, letters=LETTERS, trials=TRIALS, disable_weights=disable)
    for w in res.weights.values():
        assert FLOOR**3 <= w.weight <= 1
        assert all(FLOOR <= x <= 1 for x in (w.w_sta, w.w_sim, w.w_div))
    total = sum(res.normalized.values())
    if any(v > 0 for v in res.normalized.values()):
        assert abs(total - 100) < D("1e-15")
    assert sorted(r for _, r in res.ranking) == list(range(1, len(programs) + 1))
    norms = [res.normalized[n] for n, _ in res.ranking]
    assert norms == sorted(norms, reverse=True)


@settings(max_examples=25)
@given(programs_st, st.randoms(use_true_random=False))
def test_permuting_programs_permutes_results(programs: dict[str, dict[str, LetterInput]], rnd) -> None:  # type: ignore[no-untyped-def]
    names = list(programs)
    rnd.shuffle(names)
    a = score(programs, letters=LETTERS, trials=TRIALS)
    b = score({n: programs[n] for n in names}, letters=LETTERS, trials=TRIALS)
    assert a.weights == b.weights and a.competition_score == b.competition_score
    for n in programs:
        assert a.programs[n].letters == b.programs[n].letters
        assert a.programs[n].normalized_score == b.programs[n].normalized_score


@settings(max_examples=40)
@given(st.fixed_dictionaries({c: letter_inputs() for c in LETTERS}))
def test_one_program_no_weights_is_plain_mean(letters: dict[str, LetterInput]) -> None:
    """Weights disabled, one program: prompt = mean over letters of div·mean(sta·sim) (up to 20 dp roundings)."""
    res = score({"p": letters}, letters=LETTERS, trials=TRIALS, disable_weights=True)

    def first(entries: tuple[tuple[int, Decimal], ...], i: int) -> Decimal:
        return next((v for idx, v in entries if idx == i), D(0))

    expected = sum(
        li.diversity * sum(first(li.stability, i) * first(li.similarity, i) for i in range(1, TRIALS + 1)) / TRIALS
        for li in letters.values()
    ) / len(LETTERS)
    assert abs(res.programs["p"].prompt_score - expected) < D("1e-19")
    assert res.normalized["p"] == (100 if res.programs["p"].prompt_score > 0 else 0)


def test_2025_every_score_zero_normalises_to_zero() -> None:
    """All levels failed under every model: competition 0, the official divisor 1, every share 0 (no 0/0)."""
    failed = {"a": {"A": LetterInput.failed()}, "b": {}}
    res = score_models({"m1": failed, "m2": failed}, letters=["A"], trials=1)
    assert res.competition_score == 0 and set(res.normalized.values()) == {D(0)}
    assert {v for per in res.per_model_normalized.values() for v in per.values()} == {D(0)}


def test_2025_uses_the_run_trial_count() -> None:
    """T is the run's trial count for every model: one perfect trial of T = 2 is a char score of 1/2."""
    li = LetterInput(((1, D(1)),), ((1, D(1)),), D(1))
    res = score_models({"m": {"p": {"A": li}}}, letters=["A"], trials=2, disable_weights=True)
    assert res.per_model["m"].prompt_scores["p"] == D("0.5") == res.totals["p"]


def test_2025_tie_break_uses_prompt_lengths_on_the_totals() -> None:
    li = LetterInput(((1, D(1)),), ((1, D("0.5")),), D("0.5"))
    per_model = {"m1": {"long": {"A": li}, "short": {"A": li}}, "m2": {"long": {"A": li}, "short": {"A": li}}}
    res = score_models(
        per_model, letters=["A"], trials=1, tie_break="prompt-length", prompt_lengths={"long": 90, "short": 10}
    )
    assert res.totals["long"] == res.totals["short"]
    assert res.ranking == (("short", 1), ("long", 2))
