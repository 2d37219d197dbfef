"""P1: how fast N independent views drive down the chance of accepting a false claim.

If each of N conditionally independent views accepts a false claim with probability
``alpha``, the support mass m(c) is Bin(N, alpha) / N, and for ``tau > alpha``

    Pr[m(c) >= tau] <= exp(-N * D(tau || alpha))

with D the Bernoulli KL divergence (the Chernoff-Hoeffding bound). ``binomial_tail``
gives the exact probability the bound is bounding.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

from veritype.errors import InputError

# tau * n is computed in floating point: 0.07 * 100 == 7.000000000000001, whose ceiling
# would wrongly be 8. Products within this distance above an integer count as that integer.
_CEIL_EPS = 1e-9


def _check_n(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise InputError(f"n must be an integer >= 1, got {n!r}")


def _check_tau(tau: float) -> None:
    if not 0.0 < tau <= 1.0:
        raise InputError(f"tau must lie in (0, 1], got {tau!r}")


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}")


def kl_divergence(a: float, b: float) -> float:
    """Bernoulli KL divergence D(a || b), with 0 ln 0 = 0."""
    if not 0.0 <= a <= 1.0:
        raise InputError(f"a must lie in [0, 1], got {a!r}")
    if not 0.0 < b < 1.0:
        raise InputError(f"b must lie in (0, 1), got {b!r}")
    # Differences of logs rather than log of a ratio: a / b overflows for subnormal b.
    head = 0.0 if a == 0.0 else a * (math.log(a) - math.log(b))
    tail = 0.0 if a == 1.0 else (1.0 - a) * (math.log1p(-a) - math.log1p(-b))
    return head + tail


def kl_bound(n: int, tau: float, alpha: float) -> float:
    """The Chernoff bound exp(-n D(tau || alpha)) on Pr[m >= tau]; 1.0 when tau <= alpha."""
    _check_n(n)
    _check_tau(tau)
    _check_alpha(alpha)
    if tau <= alpha:
        return 1.0
    return math.exp(-n * kl_divergence(tau, alpha))


def _min_votes(n: int, tau: float) -> int:
    """ceil(tau * n), robust to floating error; at least 1 because tau > 0."""
    return max(1, math.ceil(tau * n - _CEIL_EPS))


def binomial_tail(n: int, tau: float, alpha: float) -> float:
    """The exact Pr[Bin(n, alpha) >= ceil(tau * n)]."""
    _check_n(n)
    _check_tau(tau)
    _check_alpha(alpha)
    k = _min_votes(n, tau)
    log_alpha = math.log(alpha)
    log_beta = math.log1p(-alpha)
    # Log-space terms: comb(n, j) overflows a float beyond n of about 1000, but math.log
    # of an exact integer does not.
    logs = [
        math.log(math.comb(n, j)) + j * log_alpha + (n - j) * log_beta for j in range(k, n + 1)
    ]
    top = max(logs)
    total = math.exp(top) * math.fsum(math.exp(value - top) for value in logs)
    return min(1.0, total)


@dataclass(frozen=True, slots=True)
class BoundRow:
    """One (n, tau) cell of a scaling table: the bound and the exact tail it bounds."""

    n: int
    tau: float
    alpha: float
    kl_bound: float
    exact_tail: float


def scaling_table(alpha: float, taus: Sequence[float], ns: Sequence[int]) -> list[BoundRow]:
    """Bound and exact tail for every tau (outer) and n (inner) at one false-accept rate."""
    return [
        BoundRow(
            n=n,
            tau=tau,
            alpha=alpha,
            kl_bound=kl_bound(n, tau, alpha),
            exact_tail=binomial_tail(n, tau, alpha),
        )
        for tau in taus
        for n in ns
    ]
