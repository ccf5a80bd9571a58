"""Diversity: scipy's cosine distance and the official pair sum over a denominator fixed by T."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.science_birds.scoring.diversity import cosine_distance, denominator, diversity, pair_distances


def _softmax(logits: list[float]) -> list[float]:
    m = max(logits)
    e = [math.exp(x - m) for x in logits]
    s = sum(e)
    return [x / s for x in e]


prob_vectors = st.lists(st.floats(-20, 20), min_size=26, max_size=26).map(_softmax)


def test_cosine_known_values() -> None:
    assert cosine_distance([1, 0], [0, 1]) == 1.0
    assert cosine_distance([1, 0], [-1, 0]) == 2.0  # embeddings (2025) can exceed 1
    assert cosine_distance([1, 2, 3], [2, 4, 6]) == pytest.approx(0.0, abs=1e-15)
    assert cosine_distance([1, 1], [1, 0]) == pytest.approx(1 - 1 / math.sqrt(2))


def test_cosine_rejects_bad_vectors() -> None:
    with pytest.raises(ValueError, match="zero vector"):
        cosine_distance([0, 0], [1, 0])
    with pytest.raises(ValueError, match="different lengths"):
        cosine_distance([1, 0], [1, 0, 0])


def test_denominator_fixed_by_trials() -> None:
    assert denominator(10) == 45
    # two available trials out of 10: one pair over 45, not over 1
    assert diversity([[1, 0], [0, 1]], 10) == pytest.approx(1 / 45)
    assert diversity([[1, 0]], 10) == 0.0
    assert diversity([], 10) == 0.0


def test_pairs_unordered_and_duplicates_kept() -> None:
    pairs = pair_distances([[1, 0], [1, 0], [0, 1]])
    assert [(i, j) for i, j, _ in pairs] == [(0, 1), (0, 2), (1, 2)]
    assert pairs[0][2] == 0.0


@settings(max_examples=40)
@given(st.lists(prob_vectors, min_size=0, max_size=10))
def test_diversity_in_unit_interval_for_probabilities(vectors: list[list[float]]) -> None:
    d = diversity(vectors, 10)
    assert 0.0 <= d <= 1.0 + 1e-12


@settings(max_examples=30)
@given(prob_vectors, st.integers(2, 10))
def test_identical_trials_give_zero(vector: list[float], n: int) -> None:
    assert diversity([vector] * n, 10) == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=30)
@given(st.lists(prob_vectors, min_size=2, max_size=6), st.randoms(use_true_random=False))
def test_order_does_not_matter(vectors: list[list[float]], rnd) -> None:  # type: ignore[no-untyped-def]
    shuffled = list(vectors)
    rnd.shuffle(shuffled)
    assert diversity(shuffled, 10) == pytest.approx(diversity(vectors, 10), abs=1e-12)


def test_two_trials_have_one_pair_over_a_denominator_of_one():
    """T = 2 (a short run): 2·3/2 - 2 = 1, so the one pair's distance is the diversity (not 0)."""
    assert diversity([(1.0, 0.0), (0.0, 1.0)], 2) == 1.0
    assert diversity([(1.0, 0.0)], 2) == 0.0  # one image: no pair


GOLDEN_KERNEL = "Haswell"  # the OpenBLAS dot kernel scripts/data/cosine_golden.py ran scipy under (an AVX2 machine)


def test_cosine_distance_equals_scipy_to_the_last_bit():
    """tests/data/cosine_golden.json: scipy's cosine (the official diversity script's function) on probability
    vectors, CLS-sized embeddings and near-identical pairs (scripts/data/cosine_golden.py); an exactly rounded sum
    would differ in the last digits on many of them.

    Both scipy and we take numpy's dot, i.e. OpenBLAS's, whose kernel is picked per CPU: on an AVX-512 machine its
    SkylakeX kernel sums in another order and 6 of the 55 distances move by one unit in the last place, for scipy as
    for us. So the comparison runs in a child process pinned to the kernel the golden file was made with.
    """
    import json
    import math
    import os
    import subprocess
    import sys
    from pathlib import Path

    doc = json.loads((Path(__file__).parents[2] / "data" / "cosine_golden.json").read_text())
    child = (
        "import json, sys\n"
        "from pcg_plugin.problems.science_birds.scoring.diversity import cosine_distance\n"
        "cases = json.load(sys.stdin)\n"
        "print(json.dumps([cosine_distance([float.fromhex(x) for x in c['u']],"
        " [float.fromhex(x) for x in c['v']]).hex() for c in cases]))\n"
    )
    env = {**os.environ, "OPENBLAS_CORETYPE": GOLDEN_KERNEL}
    done = subprocess.run(
        [sys.executable, "-c", child],
        input=json.dumps(doc["cases"]),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    ours = [float.fromhex(x) for x in json.loads(done.stdout)]
    fsum_differs = 0
    for case, got in zip(doc["cases"], ours, strict=True):
        u, v = [float.fromhex(x) for x in case["u"]], [float.fromhex(x) for x in case["v"]]
        assert got == float.fromhex(case["distance"]), case["distance"]
        exact = 1.0 - math.fsum(a * b for a, b in zip(u, v, strict=True)) / math.sqrt(
            math.fsum(a * a for a in u) * math.fsum(b * b for b in v)
        )
        fsum_differs += min(max(exact, 0.0), 2.0) != float.fromhex(case["distance"])
    assert len(doc["cases"]) == 55 and fsum_differs > 10  # the golden set tells the two summations apart
