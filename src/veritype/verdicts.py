"""The formal model's verdict types: what a view concludes about a claim, and the view contract.

A view V_i maps (evidence E, claim c) to (z_i, S_i, score_i): a :class:`Verdict`, the spans it
relied on and a support score, carried by :class:`ViewResult`. :class:`VerificationView` is the
contract every view meets. These types belong to the core (the graph, the budget allocator and
typing read them); ``veritype.views`` re-exports them beside the built-in views.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from veritype.claims import Claim
from veritype.errors import ConfigurationError, InputError
from veritype.evidence import EvidencePack, Span


class Verdict(StrEnum):
    """What one view concluded about one claim.

    ``abstained`` means the view had nothing to check (a numeric view on a claim
    without numbers): it casts no vote and does not count towards N.
    """

    ENTAILED = "entailed"
    CONTRADICTED = "contradicted"
    UNKNOWN = "unknown"
    ABSTAINED = "abstained"


@dataclass(frozen=True, slots=True)
class ViewResult:
    """One view's answer for one claim: V_i(E, c) -> (z_i, S_i, score_i).

    ``score`` is the view's raw support score in [0, 1]; ``contradiction`` its raw
    contradiction score in [0, 1]; ``spans`` the evidence it relied on; ``detail`` a
    short human-readable reason for the trace.
    """

    view: str
    verdict: Verdict
    score: float
    contradiction: float = 0.0
    spans: tuple[Span, ...] = ()
    detail: str = ""

    def __post_init__(self) -> None:
        for label, value in (("score", self.score), ("contradiction", self.contradiction)):
            if not 0.0 <= value <= 1.0:
                raise InputError(
                    f"view {self.view!r}: {label} must lie in [0, 1], got {value}"
                )

    @classmethod
    def unknown(cls, view: str, detail: str, score: float = 0.0,
                spans: tuple[Span, ...] = ()) -> ViewResult:
        """No verdict either way: too little evidence, or support below the view's bar."""
        return cls(view, Verdict.UNKNOWN, score, spans=spans, detail=detail)

    @classmethod
    def abstained(cls, view: str, detail: str) -> ViewResult:
        """Nothing for this view to check; it casts no vote."""
        return cls(view, Verdict.ABSTAINED, 0.0, detail=detail)

    def to_dict(self) -> dict[str, Any]:
        return {
            "view": self.view,
            "verdict": self.verdict.value,
            "score": self.score,
            "contradiction": self.contradiction,
            "spans": [span.to_dict() for span in self.spans],
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ViewResult:
        return cls(
            view=str(data["view"]),
            verdict=Verdict(data["verdict"]),
            score=float(data["score"]),
            contradiction=float(data["contradiction"]),
            spans=tuple(Span.from_dict(span) for span in data["spans"]),
            detail=str(data["detail"]),
        )


@runtime_checkable
class VerificationView(Protocol):
    """A verification view: one paradigm of checking a claim against evidence.

    ``cost`` orders views for the budget allocator (cheap first); ``strong`` says whether
    this view's contradiction verdict overrides the support mass.
    """

    name: str
    cost: float
    strong: bool

    def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult: ...

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]: ...


def check_batch(claims: Sequence[Claim], evidence: Sequence[EvidencePack]) -> None:
    """Raise if a batch does not pair each claim with one evidence pack."""
    if len(claims) != len(evidence):
        raise InputError(
            f"verify_batch needs one evidence pack per claim: {len(claims)} claims, "
            f"{len(evidence)} packs"
        )


def check_fraction(label: str, value: float) -> None:
    """Raise :class:`ConfigurationError` unless ``value`` lies in (0, 1] (a view threshold)."""
    if not 0.0 < value <= 1.0:
        raise ConfigurationError(f"{label} must lie in (0, 1], got {value}")


def check_cost(cost: float) -> None:
    """Raise :class:`ConfigurationError` unless a view's ``cost`` per claim is >= 0."""
    if cost < 0:
        raise ConfigurationError(f"cost must be >= 0, got {cost}")


__all__ = [
    "Verdict",
    "VerificationView",
    "ViewResult",
    "check_batch",
    "check_cost",
    "check_fraction",
]
