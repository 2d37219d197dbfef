"""Aggregators: turn the N view results for one claim into one support score.

Every aggregator also reports whether the claim is *contradicted*: a strong view said so
(or, for a learned aggregator, what its ``Veto`` asks: a quorum of strong views, each sure
enough, or never). That flag is separate from the score because typing lets it override any
amount of support. Abstaining views (nothing to check) cast no vote anywhere.

The default aggregator (``create_aggregator("default")``) is a calibrated aggregator shipped
in the package, fitted by ``veritype train aggregator`` on training-side data only, its views
and thresholds chosen by leave-one-source-out; its card,
``veritype/models/aggregator/model_card.md``, states the data and the figures.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Mapping
from typing import Any

from veritype._registry import Registry
from veritype.aggregate._base import (
    AGREEMENT,
    DEFAULT_AGGREGATOR,
    DEFAULT_VIEWS,
    NOT_CONTRADICTED,
    Aggregate,
    Aggregator,
    Veto,
    VoteAggregator,
    evidence_union,
    is_contradicted,
    read_model,
    support_mass,
    views_read,
)
from veritype.aggregate._calibrated import CalibratedAggregator, Decisive, Head, Logistic
from veritype.aggregate._learned import LearnedAggregator
from veritype.aggregate._rule import RuleAggregator, RuleThresholds
from veritype.aggregate._staged import StagedAggregator
from veritype.errors import ConfigurationError


def _check_options(name: str, options: Mapping[str, Any], allowed: Collection[str]) -> None:
    if unknown := sorted(set(options) - set(allowed)):
        raise ConfigurationError(
            f"aggregator {name!r}: unknown options {unknown}; known: {sorted(allowed)}"
        )


def _make_vote(**options: Any) -> Aggregator:
    _check_options("vote", options, {"strong"})
    return VoteAggregator(**options)


FittedAggregator = LearnedAggregator | StagedAggregator | CalibratedAggregator


def load_fitted(path: str | os.PathLike[str]) -> FittedAggregator:
    """A fitted aggregator saved as JSON: a learned, staged or calibrated one (its format
    says)."""

    def parse(text: str) -> FittedAggregator:
        if '"veritype.calibrated-aggregator"' in text:
            return CalibratedAggregator.from_json(text)
        if '"veritype.staged-aggregator"' in text:
            return StagedAggregator.from_json(text)
        return LearnedAggregator.from_json(text)

    return read_model(path, parse)


def _make_learned(**options: Any) -> Aggregator:
    _check_options("learned", options, {"path", "strong"})
    if "path" not in options:
        raise ConfigurationError("aggregator 'learned' needs path= to a saved model (JSON)")
    model = load_fitted(options["path"])
    if "strong" not in options:
        return model
    return model.with_settings(strong=options["strong"])


@functools.cache
def _shipped_default() -> FittedAggregator:
    """The shipped default model, read once per process (it never changes while running)."""
    return load_fitted(DEFAULT_AGGREGATOR)


def _make_default(**options: Any) -> Aggregator:
    _check_options("default", options, {"strong"})
    model = _shipped_default()
    return model if "strong" not in options else model.with_settings(strong=options["strong"])


def _make_rule(**options: Any) -> Aggregator:
    return RuleAggregator.from_config(options)


_REGISTRY = Registry[Aggregator]("aggregator")
_REGISTRY.register("default")(_make_default)
_REGISTRY.register("learned")(_make_learned)
_REGISTRY.register("rule")(_make_rule)
_REGISTRY.register("vote")(_make_vote)
available_aggregators = _REGISTRY.names
create_aggregator = _REGISTRY.create


def recommended_thresholds(aggregator: Aggregator) -> tuple[float, float]:
    """The (τ, τ') an aggregator was calibrated for; (0.8, 0.3) when it names none."""
    thresholds = getattr(aggregator, "thresholds", None)
    if isinstance(thresholds, tuple) and len(thresholds) == 2:
        return float(thresholds[0]), float(thresholds[1])
    return 0.8, 0.3


def default_covers(view_names: Collection[str]) -> bool:
    """Whether ``view_names`` include every view the default aggregator reads."""
    return views_read(_shipped_default().view_names) <= set(view_names)


def default_for(view_names: Collection[str], strong: Collection[str] | None) -> Aggregator:
    """The default aggregator for these views: the shipped fitted model when every view it
    reads runs, else the vote (a model fitted on other views would read missing ones as
    ``fill``)."""
    if default_covers(view_names):
        return _make_default(**({} if strong is None else {"strong": strong}))
    return VoteAggregator(strong=strong)


__all__ = [
    "AGREEMENT",
    "DEFAULT_AGGREGATOR",
    "DEFAULT_VIEWS",
    "NOT_CONTRADICTED",
    "Aggregate",
    "Aggregator",
    "CalibratedAggregator",
    "Decisive",
    "FittedAggregator",
    "Head",
    "LearnedAggregator",
    "Logistic",
    "RuleAggregator",
    "RuleThresholds",
    "StagedAggregator",
    "Veto",
    "VoteAggregator",
    "available_aggregators",
    "create_aggregator",
    "default_covers",
    "default_for",
    "evidence_union",
    "is_contradicted",
    "load_fitted",
    "recommended_thresholds",
    "support_mass",
    "views_read",
]
