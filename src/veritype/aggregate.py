"""Aggregators: turn the N view results for one claim into one support score.

Every aggregator also reports whether the claim is *contradicted*: a strong view said so
(or, for a learned aggregator, what its ``Veto`` asks: a quorum of strong views, each sure
enough, or never). That flag is separate from the score because typing lets it override any
amount of support. Abstaining views (nothing to check) cast no vote anywhere.

The default aggregator (``create_aggregator("default")``) is a learned aggregator shipped
in the package, fitted on training-side data only, with the thresholds and the
veto chosen on a validation part of that data; its card,
``veritype/models/aggregator/model_card.md``, states the data and the figures.
"""

from __future__ import annotations

import functools
import json
import math
import os
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, TypeGuard, runtime_checkable

import numpy as np
import numpy.typing as npt

from veritype.evidence import Span
from veritype.views import Verdict, ViewResult

_FORMAT = "veritype.learned-aggregator"
_VERSION = 2
_READABLE_VERSIONS = (1, 2)
# Derived features: a view's 1 − contradiction score ("nli.not_contradicted"), and the
# product of views' scores ("nli*align"), high only when they agree.
NOT_CONTRADICTED = ".not_contradicted"
AGREEMENT = "*"
DEFAULT_AGGREGATOR = Path(__file__).parent / "models" / "aggregator" / "aggregator.json"


def support_mass(results: Sequence[ViewResult]) -> float:
    """m(c): the fraction of voting (non-abstaining) views that said entailed; 0 if none voted."""
    votes = [result for result in results if result.verdict is not Verdict.ABSTAINED]
    if not votes:
        return 0.0
    return sum(result.verdict is Verdict.ENTAILED for result in votes) / len(votes)


def evidence_union(
    results: Sequence[ViewResult], preferred: Collection[str] | None = None
) -> tuple[Span, ...]:
    """sigma(c): the spans of the views that said entailed, deduplicated and sorted.

    With ``preferred`` view names, and one of them among those that said entailed, only the
    preferred views' spans and the other spans that lie inside one of them: a word-overlap
    or number check can point at a passage that shares the claim's words without stating
    it, and a citation must support its claim."""
    entailed = [r for r in results if r.verdict is Verdict.ENTAILED]
    spans = {span for r in entailed for span in r.spans}
    if preferred is not None and any(r.view in preferred for r in entailed):
        kept = {span for r in entailed if r.view in preferred for span in r.spans}
        spans = kept | {span for span in spans if any(
            span.chunk_id == window.chunk_id and window.start <= span.start
            and span.end <= window.end for window in kept)}
    return tuple(sorted(spans))


def _is_strong(view: str, strong: frozenset[str] | None) -> bool:
    return strong is None or view in strong


def is_contradicted(results: Sequence[ViewResult], strong: frozenset[str] | None = None) -> bool:
    """Whether any strong view (every view when ``strong`` is None) said contradicted."""
    return _ANY_STRONG_VIEW.fires(results, strong)


@dataclass(frozen=True, slots=True)
class Veto:
    """When a contradiction overrides the score: at least ``quorum`` of the strong views
    (only those named in ``views``, when given) said contradicted with a contradiction score
    of at least ``floor`` (all of them when fewer than ``quorum`` vote)."""

    quorum: int = 1
    floor: float = 0.0
    views: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.quorum, int) or isinstance(self.quorum, bool) or self.quorum < 1:
            raise ValueError(f"veto quorum must be an integer >= 1, got {self.quorum!r}")
        if not isinstance(self.floor, int | float) or not 0.0 <= self.floor <= 1.0:
            raise ValueError(f"veto floor must lie in [0, 1], got {self.floor!r}")

    def fires(self, results: Sequence[ViewResult], strong: frozenset[str] | None) -> bool:
        voters = [r for r in results if _is_strong(r.view, strong)
                  and (self.views is None or r.view in self.views)
                  and r.verdict is not Verdict.ABSTAINED]
        saying = sum(r.verdict is Verdict.CONTRADICTED and r.contradiction >= self.floor
                     for r in voters)
        return bool(voters) and saying >= max(1, min(self.quorum, len(voters)))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"quorum": self.quorum, "floor": self.floor}
        if self.views is not None:
            data["views"] = list(self.views)
        return data

    @classmethod
    def from_dict(cls, data: object) -> Veto:
        if not isinstance(data, dict) or not {"quorum", "floor"} <= set(data) <= {
                "quorum", "floor", "views"}:
            raise ValueError("veto must be {quorum, floor[, views]} or null")
        views = data.get("views")
        return cls(data["quorum"], data["floor"], None if views is None else tuple(views))


def _strong_set(strong: Collection[str] | None) -> frozenset[str] | None:
    if strong is None:
        return None
    # A bare string is a collection of characters, never what the caller meant.
    if isinstance(strong, str) or not all(isinstance(name, str) for name in strong):
        raise ValueError(f"strong must be a collection of view names or None, got {strong!r}")
    return frozenset(strong)


def _by_view(results: Sequence[ViewResult]) -> dict[str, ViewResult]:
    """Results indexed by view name; a view answering twice for one claim is ambiguous."""
    indexed: dict[str, ViewResult] = {}
    for result in results:
        if result.view in indexed:
            raise ValueError(f"view {result.view!r} appears twice in one claim's results")
        indexed[result.view] = result
    return indexed


def _voted(results: Mapping[str, ViewResult], view: str) -> ViewResult | None:
    """The result of ``view`` if it is present and did not abstain."""
    result = results.get(view)
    if result is None or result.verdict is Verdict.ABSTAINED:
        return None
    return result


@dataclass(frozen=True, slots=True)
class Aggregate:
    """One claim's aggregate: support ``score`` in [0, 1], the contradiction flag, the method."""

    score: float
    contradicted: bool
    method: str


@runtime_checkable
class Aggregator(Protocol):
    """Combines one claim's view results into an ``Aggregate``."""

    def aggregate(self, results: Sequence[ViewResult]) -> Aggregate: ...

    def aggregate_batch(self, results: Sequence[Sequence[ViewResult]]) -> list[Aggregate]: ...


class VoteAggregator:
    """score = support mass m(c)."""

    def __init__(self, strong: Collection[str] | None = None) -> None:
        self.strong = _strong_set(strong)

    def aggregate(self, results: Sequence[ViewResult]) -> Aggregate:
        return Aggregate(support_mass(results), is_contradicted(results, self.strong), "vote")

    def aggregate_batch(self, results: Sequence[Sequence[ViewResult]]) -> list[Aggregate]:
        return [self.aggregate(claim_results) for claim_results in results]


def _is_real(value: object) -> TypeGuard[float]:
    # bool is an int, but True is no weight or threshold.
    return isinstance(value, int | float) and not isinstance(value, bool)


def _sigmoid(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    # exp(-log(1 + exp(-z))) never overflows, whatever the sign of z.
    result: npt.NDArray[np.float64] = np.exp(-np.logaddexp(0.0, -z))
    return result


def _n_features(n_views: int, products: bool = True) -> int:
    return n_views + (n_views * (n_views - 1) // 2 if products else 0)


# Any strong view saying contradicted vetoes: the design's rule, and the vote's.
_ANY_STRONG_VIEW = Veto()


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
        veto: Veto | None = _ANY_STRONG_VIEW,
        products: bool = True,
    ) -> None:
        names = tuple(view_names)
        if isinstance(view_names, str) or not all(isinstance(n, str) and n for n in names):
            raise ValueError(f"view_names must be non-empty strings, got {view_names!r}")
        if len(set(names)) != len(names):
            raise ValueError(f"view_names must be unique, got {list(names)}")
        expected = _n_features(len(names), products)
        if len(weights) != expected:
            raise ValueError(
                f"{len(names)} views need {expected} weights "
                f"({'scores and pairwise products' if products else 'scores'}), "
                f"got {len(weights)}"
            )
        for label, value in [*((f"weights[{i}]", w) for i, w in enumerate(weights)),
                             ("bias", bias)]:
            if not _is_real(value) or not math.isfinite(value):
                raise ValueError(f"{label} must be a finite number, got {value!r}")
        if not _is_real(fill) or not 0.0 <= fill <= 1.0:
            raise ValueError(f"fill must lie in [0, 1], got {fill!r}")
        if thresholds is not None and not (
            len(thresholds) == 2 and all(_is_real(t) for t in thresholds)
            and 0.0 <= thresholds[1] < thresholds[0] <= 1.0
        ):
            raise ValueError(f"thresholds must be (tau, tau_low) with 0 <= tau_low < tau <= 1, "
                             f"got {thresholds!r}")
        self.view_names = names
        self.weights = tuple(float(w) for w in weights)
        self.bias = float(bias)
        self.strong = _strong_set(strong)
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
            raise ValueError(f"unknown settings {unknown}; known: strong, thresholds, veto")
        settings: dict[str, Any] = {"strong": self.strong, "thresholds": self.thresholds,
                                    "veto": self.veto, **changes}
        return LearnedAggregator(self.view_names, self.weights, self.bias, fill=self.fill,
                                 products=self.products, **settings)

    def contradicted(self, results: Sequence[ViewResult]) -> bool:
        """Whether the veto fires on one claim's results."""
        return self.veto is not None and self.veto.fires(results, self.strong)

    def _features(self, results: Sequence[Sequence[ViewResult]]) -> npt.NDArray[np.float64]:
        return _feature_matrix(results, self.view_names, self.fill, self.products)

    def scores(self, results: Sequence[Sequence[ViewResult]]) -> list[float]:
        """Calibrated P(supported) for each claim."""
        z = self._features(results) @ np.asarray(self.weights, dtype=np.float64) + self.bias
        return [float(p) for p in _sigmoid(z)]

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
            raise ValueError(
                f"need one label per claim: {len(results)} result sets, {len(labels)} labels"
            )
        y = np.asarray([bool(label) for label in labels], dtype=np.float64)
        if y.size == 0 or y.min() == y.max():
            raise ValueError("fit needs both supported and unsupported examples")
        if not _is_real(l2) or not 0.0 <= l2 < math.inf:
            raise ValueError(f"l2 must be a finite number >= 0, got {l2!r}")
        if max_iter < 1:
            raise ValueError(f"max_iter must be >= 1, got {max_iter}")
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
        theta = _newton(design, y, penalty, max_iter)
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
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"learned aggregator: not valid JSON ({err})") from None
        if not isinstance(data, dict):
            raise ValueError("learned aggregator: expected a JSON object")
        if data.get("format") != _FORMAT:
            raise ValueError(
                f"learned aggregator: format marker must be {_FORMAT!r}, "
                f"got {data.get('format')!r}"
            )
        version = data.get("version")
        if (not isinstance(version, int) or isinstance(version, bool)
                or version not in _READABLE_VERSIONS):
            raise ValueError(
                f"learned aggregator: unsupported version {version!r} "
                f"(this build reads versions {', '.join(map(str, _READABLE_VERSIONS))})"
            )
        keys = {"format", "version", "view_names", "weights", "bias", "fill", "strong"}
        if missing := sorted(keys - data.keys()):
            raise ValueError(f"learned aggregator: missing keys {missing}")
        if version >= 2:
            keys |= {"thresholds", "veto", "products"}
        if unknown := sorted(data.keys() - keys):
            raise ValueError(f"learned aggregator: unknown keys {unknown}")
        for key in ("view_names", "weights"):
            if not isinstance(data[key], list):
                raise ValueError(f"learned aggregator: {key} must be a list")
        strong = data["strong"]
        if strong is not None and not isinstance(strong, list):
            raise ValueError("learned aggregator: strong must be a list or null")
        thresholds = data.get("thresholds")
        if thresholds is not None and not isinstance(thresholds, list):
            raise ValueError("learned aggregator: thresholds must be a list or null")
        veto = data.get("veto", {"quorum": 1, "floor": 0.0})
        try:
            return cls(data["view_names"], data["weights"], data["bias"],
                       strong=strong, fill=data["fill"],
                       thresholds=None if thresholds is None else tuple(thresholds),
                       veto=None if veto is None else Veto.from_dict(veto),
                       products=bool(data.get("products", True)))
        except ValueError as err:
            raise ValueError(f"learned aggregator: {err}") from None

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> LearnedAggregator:
        try:
            return cls.from_json(Path(path).read_text(encoding="utf-8"))
        except OSError as err:
            raise ValueError(f"{os.fspath(path)}: cannot be read ({err.strerror})") from None
        except ValueError as err:
            raise ValueError(f"{os.fspath(path)}: {err}") from None


def _feature_matrix(
    results: Sequence[Sequence[ViewResult]], view_names: Sequence[str], fill: float,
    products: bool = True,
) -> npt.NDArray[np.float64]:
    base = np.full((len(results), len(view_names)), fill, dtype=np.float64)
    for row, claim_results in enumerate(results):
        indexed = _by_view(claim_results)
        for col, name in enumerate(view_names):
            result = _voted(indexed, name)
            if result is not None:
                base[row, col] = result.score
            elif name.endswith(NOT_CONTRADICTED):
                source = _voted(indexed, name.removesuffix(NOT_CONTRADICTED))
                if source is not None:
                    base[row, col] = 1.0 - source.contradiction
            elif AGREEMENT in name:
                factors = [_voted(indexed, part) for part in name.split(AGREEMENT)]
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
) -> float:
    z = design @ theta
    return float(np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(penalty * theta**2))


def _newton(
    design: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    penalty: npt.NDArray[np.float64],
    max_iter: int,
) -> npt.NDArray[np.float64]:
    """Penalised logistic regression by Newton steps with backtracking (Armijo)."""
    n = design.shape[0]
    theta = np.zeros(design.shape[1], dtype=np.float64)
    current = _objective(design, y, penalty, theta)
    for _ in range(max_iter):
        p = _sigmoid(design @ theta)
        gradient = design.T @ (p - y) / n + penalty * theta
        if float(np.max(np.abs(gradient))) < 1e-10:
            return theta
        hessian = (design.T * (p * (1.0 - p))) @ design / n + np.diag(penalty)
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            raise ValueError(
                "logistic fit is singular (separable data or constant features); use l2 > 0"
            ) from None
        decrease = float(gradient @ step)
        size = 1.0
        # Newton's full step can overshoot far from the optimum; halve until it helps.
        while size > 1e-10:
            candidate = theta - size * step
            value = _objective(design, y, penalty, candidate)
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


@dataclass(frozen=True)
class RuleThresholds:
    """Thresholds of the rule aggregator; every value lies in [0, 1]."""

    contradiction_above: float = 0.8
    support_min: Mapping[str, float] = field(
        default_factory=lambda: {"nli": 0.7, "align": 0.7}, hash=False
    )
    uncertainty_max: Mapping[str, float] = field(
        default_factory=lambda: {"uncertainty": 0.3}, hash=False
    )

    def __post_init__(self) -> None:
        _check_threshold("contradiction_above", self.contradiction_above)
        for label in ("support_min", "uncertainty_max"):
            mapping = getattr(self, label)
            if not isinstance(mapping, Mapping):
                raise ValueError(f"{label} must map view names to thresholds, got {mapping!r}")
            for view, value in mapping.items():
                if not isinstance(view, str):
                    raise ValueError(f"{label}: view names must be strings, got {view!r}")
                _check_threshold(f"{label}[{view!r}]", value)
            # A private read-only copy: the caller's dict may change after construction.
            object.__setattr__(self, label, MappingProxyType(dict(mapping)))
        if not self.support_min:
            # Without a support requirement every uncontradicted claim would pass.
            raise ValueError("support_min must name at least one view")


def _check_threshold(label: str, value: object) -> None:
    if not _is_real(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{label} must be a number in [0, 1], got {value!r}")


class RuleAggregator:
    """Hand-set thresholds: contradicted → 0.0, supported → 1.0, otherwise 0.5.

    Contradicted when a strong view said contradicted or has contradiction score above
    ``contradiction_above``. Supported when every view in ``support_min`` voted with a
    score above its threshold and every view in ``uncertainty_max`` that voted scored
    below its threshold.
    """

    _CONFIG_KEYS = frozenset({"contradiction_above", "support_min", "uncertainty_max", "strong"})

    def __init__(
        self, thresholds: RuleThresholds | None = None, strong: Collection[str] | None = None
    ) -> None:
        self.thresholds = RuleThresholds() if thresholds is None else thresholds
        self.strong = _strong_set(strong)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RuleAggregator:
        """Build from a plain mapping with any of the keys of ``RuleThresholds`` and ``strong``."""
        if unknown := sorted(set(config) - cls._CONFIG_KEYS):
            raise ValueError(
                f"unknown rule aggregator keys {unknown}; known: {sorted(cls._CONFIG_KEYS)}"
            )
        options = {key: value for key, value in config.items() if key != "strong"}
        return cls(RuleThresholds(**options), strong=config.get("strong"))

    def _contradicted(self, results: Sequence[ViewResult]) -> bool:
        limit = self.thresholds.contradiction_above
        return is_contradicted(results, self.strong) or any(
            r.verdict is not Verdict.ABSTAINED
            and _is_strong(r.view, self.strong)
            and r.contradiction > limit
            for r in results
        )

    def _supported(self, results: Sequence[ViewResult]) -> bool:
        indexed = _by_view(results)
        for view, minimum in self.thresholds.support_min.items():
            result = _voted(indexed, view)
            if result is None or not result.score > minimum:
                return False
        for view, maximum in self.thresholds.uncertainty_max.items():
            result = _voted(indexed, view)
            if result is not None and not result.score < maximum:
                return False
        return True

    def aggregate(self, results: Sequence[ViewResult]) -> Aggregate:
        if self._contradicted(results):
            return Aggregate(0.0, True, "rule")
        return Aggregate(1.0 if self._supported(results) else 0.5, False, "rule")

    def aggregate_batch(self, results: Sequence[Sequence[ViewResult]]) -> list[Aggregate]:
        return [self.aggregate(claim_results) for claim_results in results]


def _check_options(name: str, options: Mapping[str, Any], allowed: Collection[str]) -> None:
    if unknown := sorted(set(options) - set(allowed)):
        raise ValueError(
            f"aggregator {name!r}: unknown options {unknown}; known: {sorted(allowed)}"
        )


def _make_vote(**options: Any) -> Aggregator:
    _check_options("vote", options, {"strong"})
    return VoteAggregator(**options)


def _make_learned(**options: Any) -> Aggregator:
    _check_options("learned", options, {"path", "strong"})
    if "path" not in options:
        raise ValueError("aggregator 'learned' needs path= to a saved model (JSON)")
    model = LearnedAggregator.load(options["path"])
    if "strong" not in options:
        return model
    return model.with_settings(strong=options["strong"])


@functools.cache
def _shipped_default() -> LearnedAggregator:
    """The shipped default model, read once per process (it never changes while running)."""
    return LearnedAggregator.load(DEFAULT_AGGREGATOR)


def _make_default(**options: Any) -> Aggregator:
    _check_options("default", options, {"strong"})
    model = _shipped_default()
    return model if "strong" not in options else model.with_settings(strong=options["strong"])


def _make_rule(**options: Any) -> Aggregator:
    return RuleAggregator.from_config(options)


_FACTORIES: dict[str, Callable[..., Aggregator]] = {
    "default": _make_default,
    "learned": _make_learned,
    "rule": _make_rule,
    "vote": _make_vote,
}


def available_aggregators() -> list[str]:
    return sorted(_FACTORIES)


def create_aggregator(name: str, **options: Any) -> Aggregator:
    """Build the aggregator called ``name``; unknown names list the known ones."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(
            f"unknown aggregator {name!r}; known aggregators: {', '.join(available_aggregators())}"
        ) from None
    return factory(**options)


def recommended_thresholds(aggregator: Aggregator) -> tuple[float, float]:
    """The (τ, τ') an aggregator was calibrated for; (0.8, 0.3) when it names none."""
    thresholds = getattr(aggregator, "thresholds", None)
    if isinstance(thresholds, tuple) and len(thresholds) == 2:
        return float(thresholds[0]), float(thresholds[1])
    return 0.8, 0.3


def default_covers(view_names: Collection[str]) -> bool:
    """Whether ``view_names`` include every view the default aggregator reads."""
    needed = {part.removesuffix(NOT_CONTRADICTED) for name in _shipped_default().view_names
              for part in name.split(AGREEMENT)}
    return needed <= set(view_names)


def default_for(view_names: Collection[str], strong: Collection[str] | None) -> Aggregator:
    """The default aggregator for these views: the shipped fitted model when every view it
    reads runs, else the vote (a model fitted on other views would read missing ones as
    ``fill``)."""
    if default_covers(view_names):
        return _make_default(**({} if strong is None else {"strong": strong}))
    return VoteAggregator(strong=strong)
