"""The staged aggregator: the encoders' model first, and a second model for the claims it
leaves borderline once a costly view (the judge) has voted on them."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from veritype.aggregate._base import Aggregate, by_view, is_real, model_object, read_model, voted
from veritype.aggregate._learned import LearnedAggregator
from veritype.errors import ConfigurationError
from veritype.verdicts import ViewResult

_FORMAT = "veritype.staged-aggregator"


def second_floor(first: LearnedAggregator) -> float:
    """τ' of the first model: a sink must lie below it, so a sunk claim is Unsupported."""
    return 0.0 if first.thresholds is None else first.thresholds[1]
_VERSION = 1


class StagedAggregator:
    """``first`` scores every claim. Where its score falls strictly between its own τ' and τ
    (the claim is Uncertain), no veto fires and ``view`` voted, ``second`` (a model that
    reads ``view``, fitted on such borderline claims only) scores the claim too, and a score
    of τ or more replaces the first: the costly view can lift a borderline claim to
    Verified. With ``sink``, a second score at or below it (below τ') replaces the first
    too, so the view's clear "no" makes the claim Unsupported (not supported, whether
    refuted or unstated: a yes/no judge cannot tell which); without, a "no" leaves the
    claim Uncertain.

    ``second``'s bias is set so that τ is its own chosen threshold; the thresholds, the
    strong views and the veto are the first model's.
    """

    def __init__(self, first: LearnedAggregator, second: LearnedAggregator, view: str,
                 sink: float | None = None) -> None:
        if first.thresholds is None:
            raise ConfigurationError("a staged aggregator's first model needs thresholds")
        if view not in second.view_names:
            raise ConfigurationError(
                f"the second model must read the {view!r} view; it reads "
                f"{list(second.view_names)}"
            )
        if sink is not None and not (is_real(sink) and 0.0 <= sink < second_floor(first)):
            raise ConfigurationError(
                f"sink must be a score in [0, tau_low), got {sink!r}")
        self.first = first
        self.second = second
        self.view = view
        self.sink = None if sink is None else float(sink)

    def __repr__(self) -> str:
        return f"StagedAggregator(first={self.first!r}, second={self.second!r}, view={self.view!r})"

    @property
    def view_names(self) -> tuple[str, ...]:
        """The features the first model reads: every claim needs these views."""
        return self.first.view_names

    @property
    def thresholds(self) -> tuple[float, float] | None:
        return self.first.thresholds

    @property
    def strong(self) -> frozenset[str] | None:
        return self.first.strong

    def with_settings(self, **changes: Any) -> StagedAggregator:
        """The same models with other ``strong`` views (for both) or ``veto`` (the first's)."""
        if unknown := sorted(set(changes) - {"strong", "veto"}):
            raise ConfigurationError(f"unknown settings {unknown}; known: strong, veto")
        second = self.second
        if "strong" in changes:
            second = second.with_settings(strong=changes["strong"])
        return StagedAggregator(self.first.with_settings(**changes), second, self.view,
                                self.sink)

    def aggregate(self, results: Sequence[ViewResult]) -> Aggregate:
        return self.aggregate_batch([results])[0]

    def aggregate_batch(self, results: Sequence[Sequence[ViewResult]]) -> list[Aggregate]:
        aggregates = self.first.aggregate_batch(results)
        assert self.first.thresholds is not None
        tau, tau_low = self.first.thresholds
        asked = [row for row, (claim_results, aggregate) in enumerate(zip(
            results, aggregates, strict=True))
            if not aggregate.contradicted and tau_low < aggregate.score < tau
            and voted(by_view(claim_results), self.view) is not None]
        if not asked:
            return aggregates
        second = self.second.scores([results[row] for row in asked])
        for row, score in zip(asked, second, strict=True):
            if score >= tau or (self.sink is not None and score <= self.sink):
                aggregates[row] = Aggregate(score, False, f"learned+{self.view}")
        return aggregates

    def to_json(self) -> str:
        payload = {
            "format": _FORMAT,
            "version": _VERSION,
            "view": self.view,
            "first": json.loads(self.first.to_json()),
            "second": json.loads(self.second.to_json()),
            **({} if self.sink is None else {"sink": self.sink}),
        }
        return json.dumps(payload, indent=2, allow_nan=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> StagedAggregator:
        data = model_object(text, "staged aggregator", _FORMAT, _VERSION)
        if not {"first", "format", "second", "version", "view"} <= set(data) <= {
                "first", "format", "second", "version", "view", "sink"}:
            raise ConfigurationError(
                "staged aggregator: keys must be format, version, view, first and second, "
                "and optionally sink"
            )
        if not isinstance(data["view"], str):
            raise ConfigurationError("staged aggregator: view must be a view name")
        return cls(LearnedAggregator.from_json(json.dumps(data["first"])),
                   LearnedAggregator.from_json(json.dumps(data["second"])), data["view"],
                   data.get("sink"))

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> StagedAggregator:
        return read_model(path, cls.from_json)
