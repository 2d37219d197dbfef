"""What a fit chooses by: sources weighing the same, the precision a threshold or a rule must
reach on every source, and which sources a view read in training."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.evaluation.metrics import Bools, Floats
from veritype.train.fitting_data import READ_BY

VERIFIED_PRECISION = 0.95
UNSUPPORTED_PRECISION = 0.95
CONTRADICTION_PRECISION = 0.95
MIN_FIRED = 30
MIN_PER_SOURCE = 10


def source_weights(sources: npt.NDArray[np.str_]) -> npt.NDArray[np.float64]:
    """Weights giving every source the same total, so no one source's size decides."""
    _, inverse, counts = np.unique(sources, return_inverse=True, return_counts=True)
    weights: npt.NDArray[np.float64] = 1.0 / counts[inverse]
    return weights


def precise_tau(support: Floats, blocked: Bools, truth: Bools,
                sources: npt.NDArray[np.str_]) -> float:
    """τ: the lowest P(supported) at or above which the claims typed Verified (not
    ``blocked``) are supported with ``VERIFIED_PRECISION`` in every source where at least
    ``MIN_PER_SOURCE`` of them are (1 when no threshold is)."""
    verified = ~blocked
    for threshold in np.unique(np.round(support, 4)):
        if _precise_everywhere(truth, (support >= threshold) & verified, sources,
                               VERIFIED_PRECISION):
            return float(threshold)
    return 1.0


def precise_tau_low(support: Floats, blocked: Bools, truth: Bools,
                    sources: npt.NDArray[np.str_], tau: float) -> float:
    """τ': the highest P(supported) below τ at or below which the claims typed Unsupported
    (with the ``blocked`` ones) are not supported with ``UNSUPPORTED_PRECISION`` in every
    source where at least ``MIN_PER_SOURCE`` of them are (0 when none is). The claims
    between τ' and τ are Uncertain: neither answer is that reliable for them."""
    candidates = np.unique(np.round(support, 4))
    best = 0.0
    for threshold in candidates[candidates < tau]:
        if _precise_everywhere(~truth, (support <= threshold) | blocked, sources,
                               UNSUPPORTED_PRECISION):
            best = float(threshold)
    return best


def _precise_everywhere(hits: Bools, where: Bools, sources: npt.NDArray[np.str_],
                        precision: float) -> bool:
    """Whether the share of ``hits`` among the rows ``where`` reaches ``precision`` in every
    source with at least ``MIN_PER_SOURCE`` such rows (and in one source at least)."""
    measured = [float(hits[where & (sources == s)].mean()) for s in np.unique(sources)
                if np.sum(where & (sources == s)) >= MIN_PER_SOURCE]
    return bool(measured) and min(measured) >= precision


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
