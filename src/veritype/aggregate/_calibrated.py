"""The calibrated aggregator: two questions, two calibrated scores.

Per claim it gives P(supported) and P(contradicted), each a logistic model over features of
the views that voted: the log-odds of a view's support and contradiction scores, and
whether its verdict was entailed or contradicted. A view that abstained or did not run
contributes nothing (every one of its features is 0), so it casts no vote; signs are
constrained when fitting, so a view's contradiction never raises P(supported) and its
support never raises P(contradicted).

Typing uses both: Unsupported when P(contradicted) ≥ κ, or a decisive rule fires (a rule
view's contradiction of a kind measured precise on the fitting data), or P(supported) ≤ τ';
Verified when P(supported) ≥ τ and neither of those; Uncertain in between. A claim no view
of the model found stated (none said entailed) has no span to cite, so its P(supported) is
held at τ' at most: it cannot be Verified. The aggregate's
``contradicted`` flag carries the first two, its ``score`` P(supported).

A model may have *heads*: the first head whose views all voted scores the claim. A head that
reads the judge's answer is used once the judge has voted, so the judge can move a claim
either way. The *ask* band is where the encoders leave a claim unsettled: a costly view
(``borderline_only``, the judge) is asked about the claims whose P(supported) falls inside
it and that no contradiction has decided, which may be more than the Uncertain ones.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.aggregate._base import Aggregate, by_view, is_real, model_object, read_model
from veritype.errors import ConfigurationError
from veritype.verdicts import Verdict, ViewResult

_FORMAT = "veritype.calibrated-aggregator"
_VERSION = 1

# Feature suffixes: what each reads from a view's result (0 when it did not vote).
ENTAILMENT = "entailment"        # the log-odds of the view's support score
CONTRADICTION = "contradiction"  # the log-odds of the view's contradiction score
ENTAILED = "entailed"            # 1 when its verdict is entailed
CONTRADICTED = "contradicted"    # 1 when its verdict is contradicted
SUFFIXES = (ENTAILMENT, CONTRADICTION, ENTAILED, CONTRADICTED)
# Which features may only raise P(supported) (+1) or only lower it (−1).
SUPPORT_SIGN = {ENTAILMENT: 1, ENTAILED: 1, CONTRADICTION: -1, CONTRADICTED: -1}

# A verdict's code is its place in the enum, as in evaluation score tables.
VERDICT_CODES = {verdict: code for code, verdict in enumerate(Verdict)}
ABSTAINED_CODE = VERDICT_CODES[Verdict.ABSTAINED]
LOG_ODDS_EDGE = 1e-3

Array = npt.NDArray[np.float64]


def split_feature(name: str) -> tuple[str, str]:
    view, _, suffix = name.rpartition(".")
    if not view or suffix not in SUFFIXES:
        raise ConfigurationError(
            f"feature {name!r} must be <view>.<{'|'.join(SUFFIXES)}>")
    return view, suffix


def features_from_arrays(
    names: Sequence[str], views: Sequence[str], score: Array, contradiction: Array,
    verdict: npt.NDArray[np.int8],
) -> Array:
    """The feature matrix for claims given each view's (score, contradiction, verdict code)
    as arrays of shape (claims, views); a view missing from ``views`` reads as abstained."""
    column = {view: index for index, view in enumerate(views)}
    matrix = np.zeros((score.shape[0], len(names)), dtype=np.float64)
    for j, name in enumerate(names):
        view, suffix = split_feature(name)
        if view not in column:
            continue
        c = column[view]
        voted = verdict[:, c] != ABSTAINED_CODE
        if suffix == ENTAILMENT:
            values = log_odds(score[:, c])
        elif suffix == CONTRADICTION:
            values = log_odds(contradiction[:, c])
        elif suffix == ENTAILED:
            values = (verdict[:, c] == VERDICT_CODES[Verdict.ENTAILED]).astype(np.float64)
        else:
            values = (verdict[:, c] == VERDICT_CODES[Verdict.CONTRADICTED]).astype(np.float64)
        matrix[:, j] = np.where(voted, values, 0.0)
    return matrix


def log_odds(p: Array) -> Array:
    """log(p / (1 − p)), with p kept within [LOG_ODDS_EDGE, 1 − LOG_ODDS_EDGE]: a model's
    0.99 and 0.6 are far apart in evidence, and a view that did not vote reads 0 (even odds)."""
    clipped = np.clip(p, LOG_ODDS_EDGE, 1.0 - LOG_ODDS_EDGE)
    result: Array = np.log(clipped / (1.0 - clipped))
    return result


def arrays_of(results: Sequence[Sequence[ViewResult]], views: Sequence[str]
              ) -> tuple[Array, Array, npt.NDArray[np.int8]]:
    """(score, contradiction, verdict code) arrays of ``views`` for each claim's results."""
    score = np.zeros((len(results), len(views)))
    contradiction = np.zeros_like(score)
    verdict = np.full(score.shape, ABSTAINED_CODE, dtype=np.int8)
    for row, claim_results in enumerate(results):
        indexed = by_view(claim_results)
        for col, view in enumerate(views):
            result = indexed.get(view)
            if result is not None:
                score[row, col] = result.score
                contradiction[row, col] = result.contradiction
                verdict[row, col] = VERDICT_CODES[result.verdict]
    return score, contradiction, verdict


def _sigmoid(z: Array) -> Array:
    result: Array = np.exp(-np.logaddexp(0.0, -z))
    return result


@dataclass(frozen=True, slots=True)
class Logistic:
    """sigmoid(w·x + b) over named features."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float

    def __post_init__(self) -> None:
        for name in self.features:
            split_feature(name)
        if len(self.weights) != len(self.features):
            raise ConfigurationError(
                f"{len(self.features)} features need as many weights, got {len(self.weights)}")
        for value in (*self.weights, self.bias):
            if not is_real(value) or not math.isfinite(value):
                raise ConfigurationError(f"weights and bias must be finite numbers, got {value!r}")

    @property
    def views(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(split_feature(name)[0] for name in self.features))

    def predict(self, matrix: Array) -> Array:
        return _sigmoid(matrix @ np.asarray(self.weights, dtype=np.float64) + self.bias)

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(self.features), "weights": list(self.weights),
                "bias": self.bias}

    @classmethod
    def from_dict(cls, data: object) -> Logistic:
        if not isinstance(data, dict) or set(data) != {"features", "weights", "bias"}:
            raise ConfigurationError("a model must be {features, weights, bias}")
        if not isinstance(data["features"], list) or not isinstance(data["weights"], list):
            raise ConfigurationError("features and weights must be lists")
        return cls(tuple(data["features"]), tuple(data["weights"]), data["bias"])


@dataclass(frozen=True, slots=True)
class Head:
    """The two models used when every view of ``requires`` voted."""

    requires: tuple[str, ...]
    support: Logistic
    contradiction: Logistic

    def to_dict(self) -> dict[str, Any]:
        return {"requires": list(self.requires), "support": self.support.to_dict(),
                "contradiction": self.contradiction.to_dict()}

    @classmethod
    def from_dict(cls, data: object) -> Head:
        if not isinstance(data, dict) or set(data) != {"requires", "support", "contradiction"}:
            raise ConfigurationError("a head must be {requires, support, contradiction}")
        if not isinstance(data["requires"], list):
            raise ConfigurationError("requires must be a list of view names")
        return cls(tuple(data["requires"]), Logistic.from_dict(data["support"]),
                   Logistic.from_dict(data["contradiction"]))


@dataclass(frozen=True, slots=True)
class Decisive:
    """A rule view whose contradiction decides Unsupported: its verdict is contradicted with
    a contradiction score of at least ``floor`` (measured precise on the fitting data)."""

    view: str
    floor: float

    def fires(self, result: ViewResult | None) -> bool:
        return (result is not None and result.verdict is Verdict.CONTRADICTED
                and result.contradiction >= self.floor)


class CalibratedAggregator:
    """P(supported) and P(contradicted) from the first head whose views all voted.

    ``thresholds`` are (τ, τ'); ``kappa`` the P(contradicted) at which a claim is typed
    Unsupported (contradicted); ``decisive`` the rule contradictions that type it so alone.
    """

    def __init__(self, heads: Sequence[Head], *, thresholds: tuple[float, float],
                 kappa: float, decisive: Sequence[Decisive] = (),
                 ask: tuple[float, float] | None = None) -> None:
        if not heads:
            raise ConfigurationError("a calibrated aggregator needs at least one head")
        if not heads[-1].requires == ():
            raise ConfigurationError("the last head must require no view (the fallback)")
        tau, tau_low = thresholds
        if not (is_real(tau) and is_real(tau_low) and 0.0 <= tau_low < tau <= 1.0):
            raise ConfigurationError(
                f"thresholds must be (tau, tau_low) with 0 <= tau_low < tau <= 1, "
                f"got {thresholds!r}")
        if not is_real(kappa) or not 0.0 < kappa <= 1.0:
            raise ConfigurationError(f"kappa must lie in (0, 1], got {kappa!r}")
        if ask is not None and not (
                len(ask) == 2 and is_real(ask[0]) and is_real(ask[1])
                and 0.0 <= ask[0] <= tau_low and tau <= ask[1] <= 1.0):
            raise ConfigurationError(
                f"ask must be (low, high) with 0 <= low <= tau_low and tau <= high <= 1, "
                f"got {ask!r}")
        self.heads = tuple(heads)
        # The views whose "entailed" gives a claim a span to cite (see ``cited``).
        self._reads = frozenset(view for head in self.heads for view in head.support.views)
        self.thresholds = (float(tau), float(tau_low))
        self.ask = None if ask is None else (float(ask[0]), float(ask[1]))
        self.kappa = float(kappa)
        self.decisive = tuple(decisive)

    def __repr__(self) -> str:
        return (f"CalibratedAggregator(heads={self.heads!r}, thresholds={self.thresholds}, "
                f"kappa={self.kappa}, decisive={self.decisive!r}, ask={self.ask!r})")

    @property
    def view_names(self) -> tuple[str, ...]:
        """Every view the fallback head reads: the views a claim needs for this model."""
        return self.heads[-1].support.views + tuple(
            v for v in self.heads[-1].contradiction.views
            if v not in self.heads[-1].support.views)

    @property
    def strong(self) -> frozenset[str]:
        """The views whose contradiction can close a claim early: the decisive ones and
        every view the contradiction models read."""
        return frozenset({d.view for d in self.decisive}
                         | {v for head in self.heads for v in head.contradiction.views})

    def with_settings(self, **changes: Any) -> CalibratedAggregator:
        """The same models with other ``thresholds``, ``kappa`` or ``decisive`` rules."""
        if unknown := sorted(set(changes) - {"thresholds", "kappa", "decisive", "strong"}):
            raise ConfigurationError(
                f"unknown settings {unknown}; known: thresholds, kappa, decisive")
        # ``strong`` is read by every aggregator factory; this model's own say which
        # contradictions count, so it is accepted and has no effect.
        return CalibratedAggregator(
            self.heads, thresholds=changes.get("thresholds", self.thresholds),
            kappa=changes.get("kappa", self.kappa),
            decisive=changes.get("decisive", self.decisive), ask=self.ask)

    def probabilities(self, results: Sequence[Sequence[ViewResult]]) -> tuple[Array, Array]:
        """P(supported) and P(contradicted) of each claim."""
        support = np.zeros(len(results))
        contradiction = np.zeros(len(results))
        chosen = [self._head(claim_results) for claim_results in results]
        for index, head in enumerate(self.heads):
            rows = [row for row, h in enumerate(chosen) if h == index]
            if not rows:
                continue
            subset = [results[row] for row in rows]
            for model, out in ((head.support, support), (head.contradiction, contradiction)):
                views = model.views
                matrix = features_from_arrays(model.features, views, *arrays_of(subset, views))
                out[rows] = model.predict(matrix)
        return support, contradiction

    def _head(self, results: Sequence[ViewResult]) -> int:
        voted = {r.view for r in results if r.verdict is not Verdict.ABSTAINED}
        return next(index for index, head in enumerate(self.heads)
                    if set(head.requires) <= voted)

    def decided(self, results: Sequence[ViewResult]) -> bool:
        """Whether a decisive rule fires on one claim's results."""
        indexed = {r.view: r for r in results}
        return any(rule.fires(indexed.get(rule.view)) for rule in self.decisive)

    def aggregate(self, results: Sequence[ViewResult]) -> Aggregate:
        return self.aggregate_batch([results])[0]

    def unsettled(self, results: Sequence[ViewResult]) -> bool:
        """Whether a costly view should be asked about this claim: no contradiction decided
        it and its P(supported) lies strictly inside the ask band (without one, whether it
        is Uncertain). P(supported) is read before a claim no view cites is held at τ': the
        costly view may find the span to cite."""
        support, contradiction = self.probabilities([results])
        if self._contradicted(float(contradiction[0]), results):
            return False
        low, high = self.ask or (self.thresholds[1], self.thresholds[0])
        return low < float(support[0]) < high

    def aggregate_batch(self, results: Sequence[Sequence[ViewResult]]) -> list[Aggregate]:
        support, contradiction = self.probabilities(results)
        return [
            Aggregate(s if self.cited(claim_results) else min(s, self.thresholds[1]),
                      self._contradicted(c, claim_results), "calibrated", float(c))
            for s, c, claim_results in zip(support.tolist(), contradiction.tolist(), results,
                                           strict=True)
        ]

    def _contradicted(self, contradiction: float, results: Sequence[ViewResult]) -> bool:
        """Whether a claim of P(contradicted) ``contradiction`` is contradicted: from κ, or
        when a decisive rule fires on its ``results``."""
        return bool(contradiction >= self.kappa or self.decided(results))

    def cited(self, results: Sequence[ViewResult]) -> bool:
        """Whether a view this model reads found the claim stated (said entailed), so a
        Verified claim has a span to cite; without one, P(supported) is held at τ'."""
        return any(r.verdict is Verdict.ENTAILED and r.view in self._reads for r in results)

    def to_json(self) -> str:
        payload = {
            "format": _FORMAT, "version": _VERSION,
            "heads": [head.to_dict() for head in self.heads],
            "thresholds": list(self.thresholds), "kappa": self.kappa,
            "decisive": [{"view": d.view, "floor": d.floor} for d in self.decisive],
            **({} if self.ask is None else {"ask": list(self.ask)}),
        }
        return json.dumps(payload, indent=2, allow_nan=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> CalibratedAggregator:
        data = model_object(text, "calibrated aggregator", _FORMAT, _VERSION)
        expected = {"format", "version", "heads", "thresholds", "kappa", "decisive"}
        if not expected <= set(data) <= expected | {"ask"}:
            raise ConfigurationError(
                f"calibrated aggregator: keys must be {', '.join(sorted(expected))}, "
                f"and optionally ask")
        ask = data.get("ask")
        if ask is not None and (not isinstance(ask, list) or len(ask) != 2):
            raise ConfigurationError("calibrated aggregator: ask must be [low, high]")
        if not isinstance(data["heads"], list) or not isinstance(data["decisive"], list):
            raise ConfigurationError("calibrated aggregator: heads and decisive must be lists")
        thresholds = data["thresholds"]
        if not isinstance(thresholds, list) or len(thresholds) != 2:
            raise ConfigurationError("calibrated aggregator: thresholds must be [tau, tau_low]")
        decisive = []
        for rule in data["decisive"]:
            if not isinstance(rule, dict) or set(rule) != {"view", "floor"}:
                raise ConfigurationError("a decisive rule must be {view, floor}")
            decisive.append(Decisive(str(rule["view"]), float(rule["floor"])))
        return cls([Head.from_dict(head) for head in data["heads"]],
                   thresholds=(thresholds[0], thresholds[1]), kappa=data["kappa"],
                   decisive=decisive, ask=None if ask is None else (ask[0], ask[1]))

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> CalibratedAggregator:
        return read_model(path, cls.from_json)
