"""The rule aggregator: per-view thresholds, for users who want a rule they can read."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from veritype.aggregate._base import (
    Aggregate,
    by_view,
    is_contradicted,
    is_real,
    is_strong,
    strong_set,
    voted,
)
from veritype.errors import ConfigurationError
from veritype.verdicts import Verdict, ViewResult


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
                raise ConfigurationError(
                    f"{label} must map view names to thresholds, got {mapping!r}"
                )
            for view, value in mapping.items():
                if not isinstance(view, str):
                    raise ConfigurationError(f"{label}: view names must be strings, got {view!r}")
                _check_threshold(f"{label}[{view!r}]", value)
            # A private read-only copy: the caller's dict may change after construction.
            object.__setattr__(self, label, MappingProxyType(dict(mapping)))
        if not self.support_min:
            # Without a support requirement every uncontradicted claim would pass.
            raise ConfigurationError("support_min must name at least one view")


def _check_threshold(label: str, value: object) -> None:
    if not is_real(value) or not 0.0 <= value <= 1.0:
        raise ConfigurationError(f"{label} must be a number in [0, 1], got {value!r}")


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
        self.strong = strong_set(strong)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RuleAggregator:
        """Build from a plain mapping with any of the keys of ``RuleThresholds`` and ``strong``."""
        if unknown := sorted(set(config) - cls._CONFIG_KEYS):
            raise ConfigurationError(
                f"unknown rule aggregator keys {unknown}; known: {sorted(cls._CONFIG_KEYS)}"
            )
        options = {key: value for key, value in config.items() if key != "strong"}
        return cls(RuleThresholds(**options), strong=config.get("strong"))

    def _contradicted(self, results: Sequence[ViewResult]) -> bool:
        limit = self.thresholds.contradiction_above
        return is_contradicted(results, self.strong) or any(
            r.verdict is not Verdict.ABSTAINED
            and is_strong(r.view, self.strong)
            and r.contradiction > limit
            for r in results
        )

    def _supported(self, results: Sequence[ViewResult]) -> bool:
        indexed = by_view(results)
        for view, minimum in self.thresholds.support_min.items():
            result = voted(indexed, view)
            if result is None or not result.score > minimum:
                return False
        for view, maximum in self.thresholds.uncertainty_max.items():
            result = voted(indexed, view)
            if result is not None and not result.score < maximum:
                return False
        return True

    def aggregate(self, results: Sequence[ViewResult]) -> Aggregate:
        if self._contradicted(results):
            return Aggregate(0.0, True, "rule")
        return Aggregate(1.0 if self._supported(results) else 0.5, False, "rule")

    def aggregate_batch(self, results: Sequence[Sequence[ViewResult]]) -> list[Aggregate]:
        return [self.aggregate(claim_results) for claim_results in results]


