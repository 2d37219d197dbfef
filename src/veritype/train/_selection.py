"""What a fit chooses by: sources weighing the same, the precision a threshold or a rule must
reach on every source, and which sources a view read in training."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.evaluation.metrics import Bools, Floats
from veritype.train.fitting_data import READ_BY

UNSUPPORTED_PRECISION = 0.95
CONTRADICTION_PRECISION = 0.95
SETTLED_PRECISION = 0.95
MIN_FIRED = 30
MIN_PER_SOURCE = 10


def source_weights(sources: npt.NDArray[np.str_]) -> npt.NDArray[np.float64]:
    """Weights giving every source the same total, so no one source's size decides."""
    _, inverse, counts = np.unique(sources, return_inverse=True, return_counts=True)
    weights: npt.NDArray[np.float64] = 1.0 / counts[inverse]
    return weights


def highest_tau_low(support: Floats, truth: Bools, sources: npt.NDArray[np.str_],
                    tau: float) -> float:
    """The highest τ' < τ at or below which claims are unsupported with
    ``UNSUPPORTED_PRECISION``, every source weighing the same (0 when none)."""
    return _highest_reliable_no(support, np.zeros_like(truth), truth, source_weights(sources),
                                tau, UNSUPPORTED_PRECISION)


def verified_precision(support: Floats, blocked: Bools, truth: Bools,
                       sources: npt.NDArray[np.str_], tau: float) -> float:
    """The share of supported claims among those typed Verified at ``tau`` (P ≥ τ and not
    ``blocked``), every source weighing the same (nan when none is)."""
    return _balanced_share(truth, (support >= tau) & ~blocked, source_weights(sources))


def matched_tau_low(support: Floats, blocked: Bools, truth: Bools,
                    sources: npt.NDArray[np.str_], tau: float) -> float:
    """The highest τ' < τ at or below which claims (with the ``blocked`` ones) are not
    supported at least as often as the Verified ones at τ are supported, every source
    weighing the same: Unsupported is as reliable a "no" as Verified is a "yes", and
    Uncertain holds only the claims neither would type as reliably (0 when none)."""
    weights = source_weights(sources)
    target = _balanced_share(truth, (support >= tau) & ~blocked, weights)
    if math.isnan(target):
        return 0.0
    return _highest_reliable_no(support, blocked, truth, weights, tau, target)


def lowest_precise_tau(support: Floats, blocked: Bools, truth: Bools,
                       sources: npt.NDArray[np.str_], tau: float) -> float:
    """The lowest P(supported) ≥ τ at or above which claims are supported with
    ``SETTLED_PRECISION``, every source weighing the same (1 when none is)."""
    weights = source_weights(sources)
    for threshold in np.unique(np.round(support[support >= tau], 4)):
        if _balanced_share(truth, (support >= threshold) & ~blocked,
                           weights) >= SETTLED_PRECISION:
            return float(threshold)
    return 1.0


def _highest_reliable_no(support: Floats, blocked: Bools, truth: Bools,
                         weights: npt.NDArray[np.float64], tau: float, target: float) -> float:
    """The highest P(supported) below τ (rounded to 4 places) at or below which the claims,
    with the ``blocked`` ones, are not supported with at least ``target`` (0 when none)."""
    candidates = np.unique(np.round(support, 4))
    best = 0.0
    for threshold in candidates[candidates < tau]:
        if _balanced_share(~truth, (support <= threshold) | blocked, weights) >= target:
            best = float(threshold)
    return best


def _balanced_share(hits: Bools, where: Bools, weights: npt.NDArray[np.float64]) -> float:
    """The share of ``hits`` among the rows ``where``, each row weighted."""
    total = float(np.sum(weights[where]))
    return float(np.sum(weights[where & hits])) / total if total else float("nan")


def lowest_precise_floor(scores: Floats, fired: Bools, truth: Bools,
                         sources: npt.NDArray[np.str_], floors: Sequence[float]
                         ) -> tuple[float | None, list[dict[str, Any]]]:
    """The lowest floor at which claims with ``fired`` and a score ≥ floor are not supported
    with ``CONTRADICTION_PRECISION`` in every source where at least ``MIN_PER_SOURCE`` of them
    fire (and ≥ ``MIN_FIRED`` fire in all), and the precision and count at every floor. Per
    source, since one source's many firings would drown another's misses in a pooled share."""
    table = []
    chosen = None
    for floor in floors:
        hit = fired & (scores >= floor)
        per_source: dict[str, dict[str, Any]] = {
            str(s): {"fired": int(np.sum(hit & (sources == s))),
                     "precision": _share(~truth[hit & (sources == s)])}
            for s in np.unique(sources)}
        measured = [float(v["precision"]) for v in per_source.values()
                    if v["fired"] >= MIN_PER_SOURCE and v["precision"] is not None]
        table.append({"floor": floor, "fired": int(hit.sum()), "precision": _share(~truth[hit]),
                      "per_source": per_source})
        if (chosen is None and hit.sum() >= MIN_FIRED and measured
                and min(measured) >= CONTRADICTION_PRECISION):
            chosen = float(floor)
    return chosen, table


def _share(values: Bools) -> float | None:
    return float(values.mean()) if values.size else None


def seen_sources(views: Sequence[str]) -> frozenset[str]:
    """The fitting sources one of ``views`` read in training."""
    return frozenset().union(*(READ_BY.get(view, frozenset()) for view in views))
