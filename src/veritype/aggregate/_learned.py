"""The learned aggregator: a logistic model over the views' scores, fitted by Newton steps."""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype._text import json_object
from veritype.aggregate._base import (
    AGREEMENT,
    ANY_STRONG_VIEW,
    NOT_CONTRADICTED,
    Aggregate,
    Veto,
    by_view,
    is_real,
    read_model,
    strong_set,
    voted,
)
from veritype.errors import ConfigurationError, InputError
from veritype.verdicts import ViewResult

_FORMAT = "veritype.learned-aggregator"
_VERSION = 2
_READABLE_VERSIONS = (1, 2)


def sigmoid(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    # exp(-log(1 + exp(-z))) never overflows, whatever the sign of z.
    result: npt.NDArray[np.float64] = np.exp(-np.logaddexp(0.0, -z))
    return result


def _n_features(n_views: int, products: bool = True) -> int:
    return n_views + (n_views * (n_views - 1) // 2 if products else 0)


class LearnedAggregator:
    """Logistic regression over view scores and their pairwise products.

    Features, in order: the score of each of ``view_names`` (``fill`` when the view is
    missing or abstained), then, unless ``products`` is false, ``x_i * x_j`` for i < j.
    score = sigmoid(w·x + b). A name
    ``<view>.not_contradicted`` reads 1 − that view's contradiction score, and ``a*b`` the
    product of the scores of views ``a`` and ``b``.

    ``thresholds`` are the (τ, τ') the model was calibrated for, if any, and ``veto`` when
    a contradiction overrides the score (None: never; the score alone decides).
    """

    def __init__(
        self,
        view_names: Sequence[str],
        weights: Sequence[float],
        bias: float,
        *,
        strong: Collection[str] | None = None,
        fill: float = 0.5,
        thresholds: tuple[float, float] | None = None,
        veto: Veto | None = ANY_STRONG_VIEW,
        products: bool = True,
    ) -> None:
        names = tuple(view_names)
        if isinstance(view_names, str) or not all(isinstance(n, str) and n for n in names):
            raise ConfigurationError(f"view_names must be non-empty strings, got {view_names!r}")
        if len(set(names)) != len(names):
            raise ConfigurationError(f"view_names must be unique, got {list(names)}")
        expected = _n_features(len(names), products)
        if len(weights) != expected:
            raise ConfigurationError(
                f"{len(names)} views need {expected} weights "
                f"({'scores and pairwise products' if products else 'scores'}), "
                f"got {len(weights)}"
            )
        for label, value in [*((f"weights[{i}]", w) for i, w in enumerate(weights)),
                             ("bias", bias)]:
            if not is_real(value) or not math.isfinite(value):
                raise ConfigurationError(f"{label} must be a finite number, got {value!r}")
        if not is_real(fill) or not 0.0 <= fill <= 1.0:
            raise ConfigurationError(f"fill must lie in [0, 1], got {fill!r}")
        if thresholds is not None and not (
            len(thresholds) == 2 and all(is_real(t) for t in thresholds)
            and 0.0 <= thresholds[1] < thresholds[0] <= 1.0
        ):
            raise ConfigurationError(
                f"thresholds must be (tau, tau_low) with 0 <= tau_low < tau <= 1, "
                f"got {thresholds!r}"
            )
        self.view_names = names
        self.weights = tuple(float(w) for w in weights)
        self.bias = float(bias)
        self.strong = strong_set(strong)
        self.fill = float(fill)
        self.thresholds = None if thresholds is None else (float(thresholds[0]),
                                                           float(thresholds[1]))
        self.veto = veto
        self.products = products

    def __repr__(self) -> str:
        return (
            f"LearnedAggregator(view_names={list(self.view_names)}, weights={list(self.weights)}, "
            f"bias={self.bias}, strong={self.strong}, fill={self.fill}, "
            f"thresholds={self.thresholds}, veto={self.veto}, products={self.products})"
        )

    def with_settings(self, **changes: Any) -> LearnedAggregator:
        """The same fitted model with other ``strong`` views, ``thresholds`` or ``veto``."""
        if unknown := sorted(set(changes) - {"strong", "thresholds", "veto"}):
            raise ConfigurationError(f"unknown settings {unknown}; known: strong, thresholds, veto")
        settings: dict[str, Any] = {"strong": self.strong, "thresholds": self.thresholds,
                                    "veto": self.veto, **changes}
        return LearnedAggregator(self.view_names, self.weights, self.bias, fill=self.fill,
                                 products=self.products, **settings)

    def contradicted(self, results: Sequence[ViewResult]) -> bool:
        """Whether the veto fires on one claim's results."""
        return self.veto is not None and self.veto.fires(results, self.strong)

    def _features(self, results: Sequence[Sequence[ViewResult]]) -> npt.NDArray[np.float64]:
        return feature_matrix(results, self.view_names, self.fill, self.products)

    def scores(self, results: Sequence[Sequence[ViewResult]]) -> list[float]:
        """Calibrated P(supported) for each claim."""
        z = self._features(results) @ np.asarray(self.weights, dtype=np.float64) + self.bias
        return [float(p) for p in sigmoid(z)]

    def aggregate(self, results: Sequence[ViewResult]) -> Aggregate:
        # Through the batch path so one claim scores identically alone or in a batch.
        return self.aggregate_batch([results])[0]

    def aggregate_batch(self, results: Sequence[Sequence[ViewResult]]) -> list[Aggregate]:
        return [
            Aggregate(score, self.contradicted(claim_results), "learned")
            for score, claim_results in zip(self.scores(results), results, strict=True)
        ]

    @classmethod
    def fit(
        cls,
        results: Sequence[Sequence[ViewResult]],
        labels: Sequence[bool],
        *,
        view_names: Sequence[str] | None = None,
        l2: float = 1e-2,
        strong: Collection[str] | None = None,
        fill: float = 0.5,
        max_iter: int = 100,
        products: bool = True,
    ) -> LearnedAggregator:
        """Fit on a labelled calibration split by Newton's method (IRLS).

        Minimises the mean log-loss plus ``l2 / 2 * |w|^2``; the bias is not penalised,
        so on the fitting data the mean prediction equals the fraction of positives.
        """
        if len(results) != len(labels):
            raise InputError(
                f"need one label per claim: {len(results)} result sets, {len(labels)} labels"
            )
        y = np.asarray([bool(label) for label in labels], dtype=np.float64)
        if y.size == 0 or y.min() == y.max():
            raise InputError("fit needs both supported and unsupported examples")
        if not is_real(l2) or not 0.0 <= l2 < math.inf:
            raise ConfigurationError(f"l2 must be a finite number >= 0, got {l2!r}")
        if max_iter < 1:
            raise ConfigurationError(f"max_iter must be >= 1, got {max_iter}")
        if view_names is None:
            view_names = sorted({r.view for claim_results in results for r in claim_results})
        # An all-zero model validates the arguments before any work is done.
        template = cls(view_names, [0.0] * _n_features(len(view_names), products), 0.0,
                       strong=strong, fill=fill, products=products)
        design = np.hstack(
            [template._features(results), np.ones((len(results), 1), dtype=np.float64)]
        )
        penalty = np.full(design.shape[1], float(l2))
        penalty[-1] = 0.0
        theta = newton(design, y, penalty, max_iter)
        return cls(template.view_names, theta[:-1].tolist(), float(theta[-1]),
                   strong=strong, fill=fill, products=products)

    def to_json(self) -> str:
        """The model as JSON; floats survive the round trip bit for bit."""
        payload = {
            "format": _FORMAT,
            "version": _VERSION,
            "view_names": list(self.view_names),
            "weights": list(self.weights),
            "bias": self.bias,
            "fill": self.fill,
            "strong": None if self.strong is None else sorted(self.strong),
            "thresholds": None if self.thresholds is None else list(self.thresholds),
            "veto": None if self.veto is None else self.veto.to_dict(),
            "products": self.products,
        }
        return json.dumps(payload, indent=2, allow_nan=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> LearnedAggregator:
        """Rebuild a model written by ``to_json``; malformed input raises ValueError."""
        data = json_object(text, "learned aggregator", ConfigurationError)
        if data.get("format") != _FORMAT:
            raise ConfigurationError(
                f"learned aggregator: format marker must be {_FORMAT!r}, "
                f"got {data.get('format')!r}"
            )
        version = data.get("version")
        if (not isinstance(version, int) or isinstance(version, bool)
                or version not in _READABLE_VERSIONS):
            raise ConfigurationError(
                f"learned aggregator: unsupported version {version!r} "
                f"(this build reads versions {', '.join(map(str, _READABLE_VERSIONS))})"
            )
        keys = {"format", "version", "view_names", "weights", "bias", "fill", "strong"}
        if missing := sorted(keys - data.keys()):
            raise ConfigurationError(f"learned aggregator: missing keys {missing}")
        if version >= 2:
            keys |= {"thresholds", "veto", "products"}
        if unknown := sorted(data.keys() - keys):
            raise ConfigurationError(f"learned aggregator: unknown keys {unknown}")
        for key in ("view_names", "weights"):
            if not isinstance(data[key], list):
                raise ConfigurationError(f"learned aggregator: {key} must be a list")
        strong = data["strong"]
        if strong is not None and not isinstance(strong, list):
            raise ConfigurationError("learned aggregator: strong must be a list or null")
        thresholds = data.get("thresholds")
        if thresholds is not None and not isinstance(thresholds, list):
            raise ConfigurationError("learned aggregator: thresholds must be a list or null")
        veto = data.get("veto", {"quorum": 1, "floor": 0.0})
        try:
            return cls(data["view_names"], data["weights"], data["bias"],
                       strong=strong, fill=data["fill"],
                       thresholds=None if thresholds is None else tuple(thresholds),
                       veto=None if veto is None else Veto.from_dict(veto),
                       products=bool(data.get("products", True)))
        except ValueError as err:
            raise ConfigurationError(f"learned aggregator: {err}") from None

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> LearnedAggregator:
        return read_model(path, cls.from_json)


def feature_matrix(
    results: Sequence[Sequence[ViewResult]], view_names: Sequence[str], fill: float,
    products: bool = True,
) -> npt.NDArray[np.float64]:
    base = np.full((len(results), len(view_names)), fill, dtype=np.float64)
    for row, claim_results in enumerate(results):
        indexed = by_view(claim_results)
        for col, name in enumerate(view_names):
            result = voted(indexed, name)
            if result is not None:
                base[row, col] = result.score
            elif name.endswith(NOT_CONTRADICTED):
                source = voted(indexed, name.removesuffix(NOT_CONTRADICTED))
                if source is not None:
                    base[row, col] = 1.0 - source.contradiction
            elif AGREEMENT in name:
                factors = [voted(indexed, part) for part in name.split(AGREEMENT)]
                base[row, col] = math.prod(fill if factor is None else factor.score
                                           for factor in factors)
    if not products:
        return base
    left, right = np.triu_indices(len(view_names), k=1)
    return np.hstack([base, base[:, left] * base[:, right]])


def _objective(
    design: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    penalty: npt.NDArray[np.float64],
    theta: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
) -> float:
    z = design @ theta
    loss = np.logaddexp(0.0, z) - y * z
    return float(np.sum(weights * loss) + 0.5 * np.sum(penalty * theta**2))


def newton(
    design: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    penalty: npt.NDArray[np.float64],
    max_iter: int,
    sample_weight: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """Penalised logistic regression by Newton steps with backtracking (Armijo); the loss is
    the mean over rows, or the ``sample_weight``-weighted mean."""
    n = design.shape[0]
    weights = (np.full(n, 1.0 / n) if sample_weight is None
               else np.asarray(sample_weight, dtype=np.float64) / float(np.sum(sample_weight)))
    theta = np.zeros(design.shape[1], dtype=np.float64)
    current = _objective(design, y, penalty, theta, weights)
    for _ in range(max_iter):
        p = sigmoid(design @ theta)
        gradient = design.T @ (weights * (p - y)) + penalty * theta
        if float(np.max(np.abs(gradient))) < 1e-10:
            return theta
        hessian = (design.T * (weights * p * (1.0 - p))) @ design + np.diag(penalty)
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            raise ConfigurationError(
                "logistic fit is singular (separable data or constant features); use l2 > 0"
            ) from None
        decrease = float(gradient @ step)
        size = 1.0
        # Newton's full step can overshoot far from the optimum; halve until it helps.
        while size > 1e-10:
            candidate = theta - size * step
            value = _objective(design, y, penalty, candidate, weights)
            if value <= current - 1e-4 * size * decrease:
                break
            size /= 2.0
        else:
            return theta
        theta, current = candidate, value
    warnings.warn(
        f"logistic fit did not converge in {max_iter} iterations", RuntimeWarning, stacklevel=3
    )
    return theta


