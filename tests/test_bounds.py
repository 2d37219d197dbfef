"""P1: the KL (Chernoff) bound, the exact binomial tail it bounds, and the scaling table."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from veritype.bounds import BoundRow, binomial_tail, kl_bound, kl_divergence, scaling_table


def _brute_tail(n: int, k: int, alpha: float) -> float:
    """Pr[Bin(n, alpha) >= k] in exact rational arithmetic."""
    a = Fraction(alpha)
    return float(sum(math.comb(n, j) * a**j * (1 - a) ** (n - j) for j in range(k, n + 1)))


_taus = st.floats(min_value=0.0, max_value=1.0, exclude_min=True)
_alphas = st.floats(min_value=0.0, max_value=1.0, exclude_min=True, exclude_max=True)


# --- kl_divergence -------------------------------------------------------------------


def test_kl_divergence_at_a_zero_is_minus_log_one_minus_b() -> None:
    assert kl_divergence(0.0, 0.2) == pytest.approx(-math.log(0.8), rel=1e-15)


def test_kl_divergence_at_a_one_is_minus_log_b() -> None:
    assert kl_divergence(1.0, 0.2) == pytest.approx(-math.log(0.2), rel=1e-15)


def test_kl_divergence_matches_the_formula_and_is_asymmetric() -> None:
    expected = 0.7 * math.log(0.7 / 0.2) + 0.3 * math.log(0.3 / 0.8)
    assert kl_divergence(0.7, 0.2) == pytest.approx(expected, rel=1e-12)
    assert kl_divergence(0.2, 0.7) != pytest.approx(kl_divergence(0.7, 0.2))


def test_kl_divergence_is_finite_for_a_subnormal_b() -> None:
    assert kl_divergence(1.0, 5e-324) == pytest.approx(-math.log(5e-324))


@given(a=st.floats(0.0, 1.0), b=_alphas)
def test_kl_divergence_is_nonnegative_and_zero_only_at_a_equals_b(a: float, b: float) -> None:
    value = kl_divergence(a, b)
    assert value >= -1e-15
    assert kl_divergence(b, b) == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [(-0.1, 0.5, "a must"), (1.1, 0.5, "a must"), (0.5, 0.0, "b must"), (0.5, 1.0, "b must"),
     (math.nan, 0.5, "a must"), (0.5, math.nan, "b must")],
)
def test_kl_divergence_rejects_out_of_range_arguments(a: float, b: float, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        kl_divergence(a, b)


# --- kl_bound -------------------------------------------------------------------------


def test_kl_bound_is_one_when_tau_does_not_exceed_alpha() -> None:
    assert kl_bound(10, 0.3, 0.3) == 1.0
    assert kl_bound(10, 0.2, 0.3) == 1.0


def test_kl_bound_at_tau_one_is_alpha_to_the_n() -> None:
    assert kl_bound(5, 1.0, 0.2) == pytest.approx(0.2**5, rel=1e-12)


def test_kl_bound_matches_exp_of_minus_n_d() -> None:
    assert kl_bound(12, 0.7, 0.2) == pytest.approx(math.exp(-12 * kl_divergence(0.7, 0.2)))


@given(n=st.integers(1, 199), tau=_taus, alpha=_alphas)
def test_kl_bound_does_not_grow_with_n(n: int, tau: float, alpha: float) -> None:
    assert kl_bound(n + 1, tau, alpha) <= kl_bound(n, tau, alpha)


@pytest.mark.parametrize(
    ("n", "tau", "alpha", "match"),
    [(0, 0.5, 0.1, "n must"), (True, 0.5, 0.1, "n must"), (2.0, 0.5, 0.1, "n must"),
     (3, 0.0, 0.1, "tau must"), (3, 1.5, 0.1, "tau must"), (3, math.nan, 0.1, "tau must"),
     (3, 0.5, 0.0, "alpha must"), (3, 0.5, 1.0, "alpha must")],
)
def test_bounds_reject_bad_arguments_by_name(n: int, tau: float, alpha: float, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        kl_bound(n, tau, alpha)
    with pytest.raises(ValueError, match=match):
        binomial_tail(n, tau, alpha)


def test_error_message_carries_the_bad_value() -> None:
    with pytest.raises(ValueError, match=r"got 1\.5"):
        kl_bound(3, 1.5, 0.1)


# --- binomial_tail --------------------------------------------------------------------


def test_binomial_tail_known_values() -> None:
    # Pr[Bin(10, 1/2) >= 7] = (120 + 45 + 10 + 1) / 1024.
    assert binomial_tail(10, 0.7, 0.5) == pytest.approx(176 / 1024, rel=1e-13)
    assert binomial_tail(1, 1.0, 0.3) == pytest.approx(0.3, rel=1e-13)
    assert binomial_tail(4, 1.0, 0.5) == pytest.approx(1 / 16, rel=1e-13)
    # Any tau > 0 needs at least one vote.
    assert binomial_tail(3, 0.01, 0.2) == pytest.approx(1 - 0.8**3, rel=1e-13)


@pytest.mark.parametrize(
    ("n", "tau", "k"),
    [(10, 0.7, 7), (100, 0.07, 7), (10, 0.1 + 0.2, 3), (3, 1 / 3, 1), (3, 2 / 3, 2),
     (10, 0.71, 8), (7, 1.0, 7), (10, 1e-12, 1)],
)
def test_binomial_tail_uses_the_intended_ceiling(n: int, tau: float, k: int) -> None:
    # 0.07 * 100 == 7.000000000000001 in floating point: a naive ceil would give 8.
    assert binomial_tail(n, tau, 0.06) == pytest.approx(_brute_tail(n, k, 0.06), rel=1e-12)
    if k < n:
        assert binomial_tail(n, tau, 0.06) != pytest.approx(_brute_tail(n, k + 1, 0.06), rel=1e-3)


# The brute-force sum is slow for large n on a loaded machine; the result, not the time, is
# what this test checks.
@settings(deadline=None)
@given(n=st.integers(1, 60), tau=_taus, alpha=_alphas)
def test_binomial_tail_matches_brute_force(n: int, tau: float, alpha: float) -> None:
    k = max(1, math.ceil(Fraction(tau) * n))
    # Only where float tau * n is unambiguous: the ambiguous cases are tested above.
    assume(abs(tau * n - round(tau * n)) > 1e-6)
    expected = _brute_tail(n, k, alpha)
    assert binomial_tail(n, tau, alpha) == pytest.approx(expected, rel=1e-10, abs=1e-300)


def test_binomial_tail_is_stable_for_large_n() -> None:
    # comb(2000, 1000) overflows a float; the log-space sum must not.
    value = binomial_tail(2000, 0.5, 0.5)
    assert value == pytest.approx(_brute_tail(2000, 1000, 0.5), rel=1e-10)
    assert 0.5 < value < 0.51


# --- P1: the bound bounds the tail ----------------------------------------------------


@given(n=st.integers(1, 200), tau=_taus, alpha=_alphas)
def test_kl_bound_is_at_least_the_exact_tail(n: int, tau: float, alpha: float) -> None:
    assume(tau > alpha)
    # At tau = 1 both are alpha ** n exactly, so allow rounding error only.
    assert kl_bound(n, tau, alpha) >= binomial_tail(n, tau, alpha) * (1 - 1e-9)


def test_kl_bound_is_tight_at_tau_one() -> None:
    assert kl_bound(8, 1.0, 0.35) == pytest.approx(binomial_tail(8, 1.0, 0.35), rel=1e-12)


# --- scaling_table --------------------------------------------------------------------


def test_scaling_table_rows_are_tau_major_and_consistent() -> None:
    rows = scaling_table(0.2, [0.5, 0.8], [1, 5, 20])
    assert [(row.tau, row.n) for row in rows] == [
        (0.5, 1), (0.5, 5), (0.5, 20), (0.8, 1), (0.8, 5), (0.8, 20)
    ]
    for row in rows:
        assert isinstance(row, BoundRow)
        assert row.alpha == 0.2
        assert row.kl_bound == kl_bound(row.n, row.tau, 0.2)
        assert row.exact_tail == binomial_tail(row.n, row.tau, 0.2)
        assert row.kl_bound >= row.exact_tail
    # The point of P1: more views, exponentially smaller false-accept probability.
    assert rows[2].kl_bound < rows[1].kl_bound < rows[0].kl_bound


def test_scaling_table_validates_its_inputs() -> None:
    with pytest.raises(ValueError, match="alpha"):
        scaling_table(1.0, [0.5], [3])
    assert scaling_table(0.2, [], [3]) == []
