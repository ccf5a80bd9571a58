import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.reward import range_reward


def test_plateau_and_ramps():
    assert range_reward(5, 0, 4, 6, 10) == 1.0
    assert range_reward(2, 0, 4, 6, 10) == pytest.approx(0.5)
    assert range_reward(8, 0, 4, 6, 10) == pytest.approx(0.5)
    assert range_reward(0, 0, 4, 6, 10) == 0.0
    assert range_reward(10, 0, 4, 6, 10) == 0.0


def test_three_value_args_is_a_single_point_plateau():
    """The pitfall: R(v; lo, a) is 1 only at a and 0 above it."""
    assert range_reward(28, 0, 28) == 1.0
    assert range_reward(29, 0, 28) == 0.0
    assert range_reward(14, 0, 28) == pytest.approx(0.5)


def test_four_value_args_max_defaults_to_plateau_high():
    assert range_reward(100, 0, 28, 196) == 1.0
    assert range_reward(196, 0, 28, 196) == 1.0
    assert range_reward(197, 0, 28, 196) == 0.0


def test_epsilon_of_the_benchmark_is_kept():
    assert range_reward(27, 0, 28, 196) == pytest.approx(27 / (28 + 1e-8), abs=0)


@given(st.floats(-100, 300), st.integers(0, 10), st.integers(11, 50), st.integers(51, 100), st.integers(101, 200))
def test_always_in_unit_interval(v, lo, a, b, hi):
    assert 0.0 <= range_reward(v, lo, a, b, hi) <= 1.0
