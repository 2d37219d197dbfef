"""What every aggregator shares: support mass, evidence union, the contradiction veto, the
Aggregator protocol and the vote."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeGuard, TypeVar, runtime_checkable

from veritype._text import json_object
from veritype.errors import ConfigurationError, InputError
from veritype.evidence import Span
from veritype.verdicts import Verdict, ViewResult

# Derived features: a view's 1 − contradiction score ("nli.not_contradicted"), and the
# product of views' scores ("nli*align"), high only when they agree.
NOT_CONTRADICTED = ".not_contradicted"
AGREEMENT = "*"
DEFAULT_AGGREGATOR = Path(__file__).parent.parent / "models" / "aggregator" / "aggregator.json"
# The views run when none are named: those the shipped default aggregator reads (a test holds
# them together) and `numeric`, which costs nothing beside them and says which value differs
# ("claim says 300 metres, evidence says 330 metres"); the default does not read it, since it
# added nothing held out.
DEFAULT_VIEWS = ("numeric", "nli")


def views_read(feature_names: Collection[str]) -> frozenset[str]:
    """The views a fitted model's feature names read ("nli*align" reads nli and align,
    "nli.not_contradicted" reads nli)."""
    return frozenset(part.removesuffix(NOT_CONTRADICTED) for name in feature_names
                     for part in name.split(AGREEMENT))


_Model = TypeVar("_Model")


def read_model(path: str | os.PathLike[str], parse: Callable[[str], _Model]) -> _Model:
    """A fitted model read from a JSON file; an unreadable or malformed file raises a
    ``ConfigurationError`` that names it."""
    try:
        return parse(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigurationError(f"{os.fspath(path)}: cannot be read ({err.strerror})") from None
    except ValueError as err:
        raise ConfigurationError(f"{os.fspath(path)}: {err}") from None


def model_object(text: str, label: str, model_format: str, version: int) -> dict[str, Any]:
    """The JSON object of a saved model, checked to be ``model_format`` at ``version``."""
    data = json_object(text, label, ConfigurationError)
    if data.get("format") != model_format or data.get("version") != version:
        raise ConfigurationError(
            f"{label}: need format {model_format!r} version {version}, got "
            f"{data.get('format')!r} version {data.get('version')!r}")
    return data


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


def is_strong(view: str, strong: frozenset[str] | None) -> bool:
    return strong is None or view in strong


def is_contradicted(results: Sequence[ViewResult], strong: frozenset[str] | None = None) -> bool:
    """Whether any strong view (every view when ``strong`` is None) said contradicted."""
    return ANY_STRONG_VIEW.fires(results, strong)


@dataclass(frozen=True, slots=True)
class Veto:
    """When a contradiction overrides the score: at least ``quorum`` of the strong views
    (only those named in ``views``, when given) said contradicted with a contradiction score
    of at least ``floor`` (all of them when fewer than ``quorum`` vote). ``floors`` gives a
    view a floor of its own (each measured precise for that view)."""

    quorum: int = 1
    floor: float = 0.0
    views: tuple[str, ...] | None = None
    floors: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.quorum, int) or isinstance(self.quorum, bool) or self.quorum < 1:
            raise ConfigurationError(f"veto quorum must be an integer >= 1, got {self.quorum!r}")
        for floor in (self.floor, *(f for _, f in self.floors)):
            if not is_real(floor) or not 0.0 <= floor <= 1.0:
                raise ConfigurationError(f"veto floor must lie in [0, 1], got {floor!r}")

    def floor_of(self, view: str) -> float:
        return dict(self.floors).get(view, self.floor)

    def fires(self, results: Sequence[ViewResult], strong: frozenset[str] | None) -> bool:
        voters = [r for r in results if is_strong(r.view, strong)
                  and (self.views is None or r.view in self.views)
                  and r.verdict is not Verdict.ABSTAINED]
        saying = sum(r.verdict is Verdict.CONTRADICTED
                     and r.contradiction >= self.floor_of(r.view) for r in voters)
        return bool(voters) and saying >= max(1, min(self.quorum, len(voters)))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"quorum": self.quorum, "floor": self.floor}
        if self.views is not None:
            data["views"] = list(self.views)
        if self.floors:
            data["floors"] = dict(self.floors)
        return data

    @classmethod
    def from_dict(cls, data: object) -> Veto:
        if not isinstance(data, dict) or not {"quorum", "floor"} <= set(data) <= {
                "quorum", "floor", "views", "floors"}:
            raise ConfigurationError("veto must be {quorum, floor[, views][, floors]} or null")
        views, floors = data.get("views"), data.get("floors", {})
        if not isinstance(floors, dict):
            raise ConfigurationError("veto floors must map view names to floors")
        return cls(data["quorum"], data["floor"], None if views is None else tuple(views),
                   tuple(floors.items()))


def strong_set(strong: Collection[str] | None) -> frozenset[str] | None:
    if strong is None:
        return None
    # A bare string is a collection of characters, never what the caller meant.
    if isinstance(strong, str) or not all(isinstance(name, str) for name in strong):
        raise ConfigurationError(
            f"strong must be a collection of view names or None, got {strong!r}"
        )
    return frozenset(strong)


def by_view(results: Sequence[ViewResult]) -> dict[str, ViewResult]:
    """Results indexed by view name; a view answering twice for one claim is ambiguous."""
    indexed: dict[str, ViewResult] = {}
    for result in results:
        if result.view in indexed:
            raise InputError(f"view {result.view!r} appears twice in one claim's results")
        indexed[result.view] = result
    return indexed


def voted(results: Mapping[str, ViewResult], view: str) -> ViewResult | None:
    """The result of ``view`` if it is present and did not abstain."""
    result = results.get(view)
    if result is None or result.verdict is Verdict.ABSTAINED:
        return None
    return result


@dataclass(frozen=True, slots=True)
class Aggregate:
    """One claim's aggregate: support ``score`` in [0, 1], the contradiction flag, the method,
    and P(contradicted) where the aggregator gives one."""

    score: float
    contradicted: bool
    method: str
    contradiction: float | None = None


@runtime_checkable
class Aggregator(Protocol):
    """Combines one claim's view results into an ``Aggregate``."""

    def aggregate(self, results: Sequence[ViewResult]) -> Aggregate: ...

    def aggregate_batch(self, results: Sequence[Sequence[ViewResult]]) -> list[Aggregate]: ...


class VoteAggregator:
    """score = support mass m(c)."""

    def __init__(self, strong: Collection[str] | None = None) -> None:
        self.strong = strong_set(strong)

    def aggregate(self, results: Sequence[ViewResult]) -> Aggregate:
        return Aggregate(support_mass(results), is_contradicted(results, self.strong), "vote")

    def aggregate_batch(self, results: Sequence[Sequence[ViewResult]]) -> list[Aggregate]:
        return [self.aggregate(claim_results) for claim_results in results]


def is_real(value: object) -> TypeGuard[float]:
    # bool is an int, but True is no weight or threshold.
    return isinstance(value, int | float) and not isinstance(value, bool)


# Any strong view saying contradicted vetoes: the design's rule, and the vote's.
ANY_STRONG_VIEW = Veto()
