import re

import numpy as np
import pytest
from bench_golden import check_golden, check_item, variants
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.evaluate import evaluate_item
from pcg_plugin.problems.pcgbench.bench.problem import reason_code
from pcg_plugin.problems.pcgbench.bench.registry import get_problem
from pcg_plugin.problems.pcgbench.games.elimination import problem as elimination
from pcg_plugin.problems.pcgbench.games.elimination.problem import dictionary, spelt_words

VARIANTS = variants("elimination")
V0 = VARIANTS["elimination-v0"]


def codes(text: str) -> list[int]:
    return [ord(c) - ord("a") for c in text]


def test_golden_vectors_from_the_reference():
    assert check_golden("elimination", VARIANTS.__getitem__) >= 30


def test_word_lists_load_as_measured():
    """Spec §5 (measured): 178,589 dictionary words ("ZZZ" becomes "zz" and is dropped), 60,177 common words."""
    words, ranks = elimination.dictionary(), elimination.common_ranks()
    assert len(words) == 178_589 and "zz" not in words and "zzz" not in words
    assert len(ranks) == 60_177 and ranks["the"] == 0.0


def test_stranger_measured_values():
    """Spec §10b: total 31 (11/9/7/4 words of length 3..6), quality 0.6452, controllability(sequence 4) 0.3333."""
    inf = V0.info(codes("stranger"))
    assert inf["total"] == 31
    assert [len(inf[f"words_{n}"]) for n in range(3, 9)] == [11, 9, 7, 4, 0, 0]
    assert V0.quality(inf) == pytest.approx(0.645161290221991, abs=1e-12)
    assert V0.controllability(inf, {"sequence": 4}) == pytest.approx(0.33333333277777777, abs=1e-12)


def test_no_words_measured_values():
    """Spec §10b: "aaaaaaaa" spells nothing: common 1, constraints 1/3, quality 0.4444, controllability 1.0."""
    inf = V0.info([0] * 8)
    assert inf["total"] == 0
    assert V0.quality(inf) == pytest.approx(4 / 9, abs=1e-12)
    assert V0.controllability(inf, {"sequence": 2}) == 1.0


def test_readme_example_lkisdets():
    """The README's example row ("LKISDETS"); values measured on the reference."""
    inf = V0.info([11, 10, 8, 18, 3, 4, 19, 18])
    assert inf["word"] == "lkisdets" and inf["total"] == 27
    assert V0.quality(inf) == pytest.approx(0.6419753085276635, abs=1e-12)
    assert [V0.controllability(inf, {"sequence": s}) for s in (2, 3)] == [0.0, 1.0]


def test_the_same_word_from_different_letters_counts_each_time():
    inf = V0.info(codes("ttaaeexx"))
    assert inf["total"] == 18 and sum(w[0] == "tax" for w in inf["words_3"]) == 8


def test_diversity_is_difflib_on_the_letters():
    a, b = V0.info(codes("stranger")), V0.info(codes("strangex"))
    assert V0.diversity(a, a) == 0.0
    assert V0.diversity(a, b) == pytest.approx((1 - 14 / 16) / (0.6 + 1e-8), abs=1e-12)


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("stranger", "not letters"),
        ([0] * 7, "wrong shape: 7 letters, expected 8"),
        ([0] * 7 + [26], "wrong alphabet: letter 7"),
        ([0] * 7 + [-1], "wrong alphabet"),
        ([0] * 7 + [False], "wrong alphabet"),
        ([0] * 7 + [1.0], "wrong alphabet"),
    ],
)
def test_check_names_the_problem(bad, reason):
    assert reason in V0.content.check(bad)


def test_sample_is_n_uniform_draws():
    kind = VARIANTS["elimination-hard-v0"].content
    rng = np.random.default_rng(7)
    assert kind.sample(np.random.default_rng(7)) == [int(rng.integers(0, 26)) for _ in range(10)]


@pytest.mark.parametrize("name", sorted(VARIANTS))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_any_letters_score_in_unit_range(name, data):
    bench = VARIANTS[name]
    n = bench.content.letters
    content = data.draw(st.lists(st.integers(0, 25), min_size=n, max_size=n))
    check_item(bench, content, {"sequence": data.draw(st.integers(2, 6))})


def _reason(message: str) -> str:
    return message.split(":", 1)[0].strip().lower().replace(" ", "_")


@settings(max_examples=50, deadline=None)
@given(content=st.lists(st.integers(0, 25), min_size=8, max_size=8))
def test_show_parses_back_and_matches_the_answer_grammar(content):
    kind = V0.content
    reply = "My letters:\n" + kind.show(content)
    assert kind.parse(reply) == (content, None)
    assert re.fullmatch(kind.answer_regex(), reply)


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("```\nS T R A N G E R\n```", codes("stranger")),
        ("```text\ns,t,r,a,n,g,e,r\n```", codes("stranger")),
        ("```json\n[18, 19, 17, 0, 13, 6, 4, 17]\n```", codes("stranger")),
    ],
)
def test_parse_accepts_the_written_forms(reply, expected):
    assert V0.content.parse(reply) == (expected, None)


@pytest.mark.parametrize(
    "reply, code",
    [
        ("stranger", "no_block"),
        ("```\nstr4nger\n```", "not_letters"),
        ("```\n\n```", "not_letters"),
        ("```\n[1, 2\n```", "not_letters"),
        ("```\n[[1], 2, 3, 4, 5, 6, 7, 8]\n```", "wrong_alphabet"),
        ("```\nstrange\n```", "wrong_shape"),
        ("```\n" + "s" * 21 + "\n```", "too_long"),
    ],
)
def test_a_bad_reply_is_a_named_zero(reply, code):
    content, message = V0.content.parse(reply)
    if message is None:
        message = V0.content.check(content)
    assert _reason(message) == code and code in V0.content.reasons


def test_extra_letters_are_scored_as_the_benchmark_scores_them():
    """The benchmark's space takes more letters than the variant's and its evaluation reads them all; where they
    spell a word longer than the variant keeps, it raises IndexError: a named zero here."""
    easy = get_problem("elimination-easy-v0")
    assert evaluate_item(easy, codes("capitals"))["valid"]  # 8 letters on the 6-letter variant
    failed = evaluate_item(easy, codes("xcapitalsx"))  # spells "capital" (7) and "capitals" (8)
    assert not failed["valid"] and reason_code(failed["reason"]) == "benchmark_fails"
    assert "benchmark_fails" in easy.content.reasons


@settings(max_examples=30, deadline=None)
@given(st.text(alphabet="etaoinshrdlucmpbgx", max_size=12))
def test_the_pruned_search_finds_what_trying_every_subset_finds(letters):
    n, words, found = len(letters), dictionary(), []
    for mask in range(2**n):  # the benchmark's own enumeration
        bits = format(mask, f"0{n}b")
        if bits.count("1") > n - 2:
            continue
        word = "".join(c for c, b in zip(letters, bits, strict=True) if b == "1")
        if word in words:
            found.append((word, max(len(run) for run in bits.split("0"))))
    assert spelt_words(letters) == found


def test_drawing_shows_the_letters():
    svg = V0.content.draw(codes("stranger"))
    assert svg.startswith("<svg") and [svg.count(f">{c}<") for c in "SRG"] == [1, 2, 1]


@pytest.mark.parametrize("name", ["elimination-v0", "elimination-hard-v0"])
def test_examples_are_feasible(name):
    bench = VARIANTS[name]
    assert len(bench.examples) == 3
    for content in bench.examples:
        assert bench.content.check(content) is None and bench.quality(bench.info(content)) == 1.0


def test_easy_variant_can_never_be_feasible():
    """6 letters spell words of at most 4 letters, so the long-word constraint is never met: quality ≤ 5/9."""
    bench = VARIANTS["elimination-easy-v0"]
    rng = np.random.default_rng(0)
    assert max(bench.quality(bench.info(bench.content.sample(rng))) for _ in range(300)) == pytest.approx(5 / 9)
    assert "never be fully feasible" in bench.goal and bench.examples == ()
