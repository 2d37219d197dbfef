"""What checking a row found: its verdict, each claim's type, support, reason and
citations, and how an Uncertain claim counts (``UncertainAs``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from veritype.checking._rows import CheckRow
from veritype.errors import InputError
from veritype.graph import EvidenceType


class RowVerdict(StrEnum):
    """A row's verdict: every claim Verified; some claim Unsupported; neither (some claim
    Uncertain: the row needs review); or no claim to check (an answer such as "I don't
    know")."""

    FAITHFUL = "faithful"
    UNFAITHFUL = "unfaithful"
    UNCERTAIN = "uncertain"
    NO_CLAIMS = "no claims"


# What the summaries and reports call an ``uncertain`` row: the views could not tell, so a
# person has to.
NEEDS_REVIEW = "needs review"


def verdict_label(verdict: RowVerdict) -> str:
    """A verdict as a person reads it: ``uncertain`` says that the row needs review."""
    return f"{verdict.value} ({NEEDS_REVIEW})" if verdict is RowVerdict.UNCERTAIN else (
        verdict.value)


class UncertainAs(StrEnum):
    """How an Uncertain claim and an ``uncertain`` row count where rows are scored and
    gated: ``fail`` (the claim is not faithful, the row fails) or ``pass`` (the claim counts
    towards faithfulness, the row passes)."""

    FAIL = "fail"
    PASS = "pass"

    @classmethod
    def of(cls, value: str) -> UncertainAs:
        """``value`` as an :class:`UncertainAs`; anything but "pass" or "fail" is bad input."""
        try:
            return cls(value)
        except ValueError:
            raise InputError(f"uncertain_as must be one of {', '.join(cls)}, got {value!r}"
                             ) from None

    def counts_as_faithful(self, kind: EvidenceType) -> bool:
        return kind is EvidenceType.VERIFIED or (
            kind is EvidenceType.UNCERTAIN and self is UncertainAs.PASS)


@dataclass(frozen=True, slots=True)
class CitedContext:
    """The exact characters ``start:end`` of context ``context`` (0-based) that a claim cites."""

    context: int
    start: int
    end: int
    quote: str

    def to_dict(self) -> dict[str, Any]:
        return {"context": self.context, "start": self.start, "end": self.end,
                "quote": self.quote}


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """One claim: its text (as verified, and as the answer worded it), type, support (the
    probability its type is decided on), the views' vote share and the spans it cites;
    ``views`` gives each view's verdict and score. ``reason`` says in one line
    why a claim is not Verified (empty when it is); ``start:end`` are the characters of the
    row's answer the claim was taken from, for highlighting."""

    text: str
    written: str
    type: EvidenceType
    support: float
    vote_share: float
    citations: tuple[CitedContext, ...]
    views: Mapping[str, tuple[str, float]]
    reason: str = ""
    start: int = 0
    end: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "written": self.written, "type": self.type.value,
                "support": round(self.support, 6), "vote_share": round(self.vote_share, 6),
                "reason": self.reason, "start": self.start, "end": self.end,
                "citations": [c.to_dict() for c in self.citations],
                "views": {name: [verdict, round(score, 6)]
                          for name, (verdict, score) in self.views.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClaimResult:
        return cls(data["text"], data["written"], EvidenceType(data["type"]),
                   # "mass" in the rows of a run directory written before the rename.
                   float(data["support"]), float(data.get("vote_share", data.get("mass", 0.0))),
                   tuple(CitedContext(**c) for c in data["citations"]),
                   {name: (str(v[0]), float(v[1])) for name, v in data["views"].items()},
                   str(data.get("reason", "")), int(data.get("start", 0)),
                   int(data.get("end", 0)))

    def described(self) -> str:
        """The claim as the answer worded it, with its reason when it is not Verified."""
        return f"{self.written} ({self.reason})" if self.reason else self.written


@dataclass(frozen=True, slots=True)
class RowResult:
    """A checked row: its claims, faithfulness (share of claims Verified; ``None`` without
    claims), verdict, and the answer's relevance to the question (``None`` without a
    question; see :class:`~veritype.checking.AnswerRelevance`)."""

    row: CheckRow
    claims: tuple[ClaimResult, ...]
    faithfulness: float | None
    verdict: RowVerdict
    seconds: float
    relevance: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**self.row.to_dict(), "claims": [c.to_dict() for c in self.claims],
                "faithfulness": self.faithfulness, "verdict": self.verdict.value,
                "relevance": None if self.relevance is None else round(self.relevance, 6),
                "seconds": round(self.seconds, 4)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RowResult:
        return cls(CheckRow.from_dict(data),
                   tuple(ClaimResult.from_dict(c) for c in data["claims"]),
                   data["faithfulness"], RowVerdict(data["verdict"]), float(data["seconds"]),
                   data.get("relevance"))

    @property
    def needs_review(self) -> bool:
        """Whether the row is ``uncertain``: no claim Unsupported, some claim Uncertain."""
        return self.verdict is RowVerdict.UNCERTAIN

    def faithfulness_as(self, uncertain_as: UncertainAs) -> float | None:
        """The share of claims that count as faithful: Verified ones, and with ``pass``
        Uncertain ones too (``fail`` gives :attr:`faithfulness`); ``None`` without claims."""
        if not self.claims:
            return None
        return sum(uncertain_as.counts_as_faithful(c.type) for c in self.claims) / len(
            self.claims)

    def passes(self, uncertain_as: UncertainAs) -> bool:
        """Whether the row passes: faithful, no claim to check, or ``uncertain`` with
        ``pass``."""
        return self.verdict in (RowVerdict.FAITHFUL, RowVerdict.NO_CLAIMS) or (
            self.needs_review and uncertain_as is UncertainAs.PASS)

    def claims_of(self, kind: EvidenceType) -> list[ClaimResult]:
        return [claim for claim in self.claims if claim.type is kind]

    def counts(self) -> dict[EvidenceType, int]:
        return {kind: len(self.claims_of(kind)) for kind in EvidenceType}


def verdict_of(types: Sequence[EvidenceType]) -> RowVerdict:
    if not types:
        return RowVerdict.NO_CLAIMS
    if all(kind is EvidenceType.VERIFIED for kind in types):
        return RowVerdict.FAITHFUL
    if any(kind is EvidenceType.UNSUPPORTED for kind in types):
        return RowVerdict.UNFAITHFUL
    return RowVerdict.UNCERTAIN
