"""The ``GroundedAnswer`` contract, and the checks any answer must pass.

An answer renders only Verified claims, each with [n] citations that resolve into the
evidence pack (see ``veritype.answers.rendering``); everything else is reported under
``limitations``; when nothing can be rendered the answer abstains and says why.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from veritype.claims import ClaimClass
from veritype.evidence import EvidencePack, Span
from veritype.graph import EvidenceType, Status


class Confidence(StrEnum):
    """How much of the answer's substance is Verified."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INSUFFICIENT_EVIDENCE = "insufficient_evidence"


CONFIDENCE_RANK = {
    Confidence.INSUFFICIENT_EVIDENCE: 0,
    Confidence.LOW: 1,
    Confidence.MEDIUM: 2,
    Confidence.HIGH: 3,
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Citation(_Model):
    """A pointer from a rendered claim to the exact characters that support it."""

    ref: int = Field(ge=1, description="The [n] reference number.")
    doc_id: str
    chunk_id: str
    start: int = Field(ge=0, description="Start offset into the document text.")
    end: int = Field(ge=0, description="End offset (exclusive) into the document text.")
    quote: str = Field(description="The exact cited text: document.text[start:end].")


class ViewVerdict(_Model):
    """What one verification view said about a claim."""

    name: str
    verdict: str
    score: float = Field(ge=0.0, le=1.0)


class ClaimReport(_Model):
    """One claim of the answer, with its type and the evidence behind it."""

    id: str
    text: str
    claim_class: ClaimClass
    type: EvidenceType
    status: Status
    support: float = Field(
        ge=0.0, le=1.0,
        description="The probability that the evidence supports the claim, on which its type "
        "is decided: P(supported) from a fitted aggregator; under the vote aggregator, "
        "vote_share.",
    )
    vote_share: float = Field(
        ge=0.0, le=1.0,
        description="The share of the views' weighted vote that found the claim entailed.",
    )
    rendered: bool
    counted: bool = Field(
        default=True,
        description="Whether the claim counts for the confidence label: it addresses the "
        "question and is not a part shown through its whole.",
    )
    citations: list[Citation] = Field(default_factory=list)
    views: list[ViewVerdict] = Field(default_factory=list)


class Reference(_Model):
    """A numbered, deduplicated source passage cited by the answer."""

    ref: int = Field(ge=1)
    doc_id: str
    chunk_id: str
    title: str = ""
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    quote: str


class GroundedAnswer(_Model):
    """The answer contract: only Verified claims, each cited; everything else explained."""

    answer: str = Field(description="Rendered text: Verified claims only, with [n] markers.")
    claims: list[ClaimReport]
    references: list[Reference]
    confidence: Confidence
    answer_probability: float | None = Field(
        default=None,
        description="P(the shown answer is right), calibrated on questions the answer model "
        "never read; the confidence label is its band. None when no answer model ran or the "
        "answer abstained.",
    )
    limitations: list[str] = Field(default_factory=list)
    query_refinements: list[str] = Field(default_factory=list)
    related: list[str] = Field(
        default_factory=list,
        description="Verified facts near the question that do not answer it: related, not "
        "an answer. When the answer abstains for want of one, every verified fact is here.",
    )
    abstained: bool
    abstention_reason: str | None = None
    trace_id: str
    timings: dict[str, float] = Field(default_factory=dict)


def grounded_answer_schema() -> dict[str, object]:
    """The JSON Schema of ``GroundedAnswer``, as published in ``schema/``."""
    return GroundedAnswer.model_json_schema()


def citation_problems(answer: GroundedAnswer, evidence: EvidencePack) -> list[str]:
    """Citation hygiene: every problem found, as readable sentences (empty when clean).

    No citation outside the evidence pack, no dangling or duplicate reference numbers,
    quotes exact substrings of the cited chunk, references numbered 1..n.
    """
    problems: list[str] = []
    numbers = [reference.ref for reference in answer.references]
    if len(set(numbers)) != len(numbers):
        problems.append(f"duplicate reference numbers: {numbers}")
    if sorted(numbers) != list(range(1, len(numbers) + 1)):
        problems.append(f"references are not numbered 1..{len(numbers)}: {numbers}")
    by_number = {reference.ref: reference for reference in answer.references}
    for reference in answer.references:
        problems.extend(_span_problems(f"reference [{reference.ref}]", reference, evidence))
    for claim in answer.claims:
        for citation in claim.citations:
            label = f"claim {claim.id} citation [{citation.ref}]"
            target = by_number.get(citation.ref)
            if target is None:
                problems.append(f"{label} is dangling: no reference [{citation.ref}]")
            elif (target.doc_id, target.chunk_id, target.start, target.end) != (
                citation.doc_id,
                citation.chunk_id,
                citation.start,
                citation.end,
            ):
                problems.append(f"{label} does not point where reference [{citation.ref}] does")
            problems.extend(_span_problems(label, citation, evidence))
    return problems


def _span_problems(label: str, cited: Citation | Reference, evidence: EvidencePack) -> list[str]:
    span = Span(cited.doc_id, cited.chunk_id, cited.start, cited.end)
    if not evidence.resolves(span):
        return [
            f"{label} points outside the evidence pack ({cited.chunk_id} "
            f"{cited.start}..{cited.end})"
        ]
    if evidence.quote(span) != cited.quote:
        return [f"{label} quote is not the exact text of its span"]
    return []


def confabulation_problems(answer: GroundedAnswer, evidence: EvidencePack) -> list[str]:
    """P2, zero confabulation: every rendered claim is Verified and cited, all citations clean.

    Works on any ``GroundedAnswer``, including one received over the wire.
    """
    problems = citation_problems(answer, evidence)
    for claim in answer.claims:
        if not claim.rendered:
            continue
        if claim.type is not EvidenceType.VERIFIED:
            problems.append(f"claim {claim.id} is rendered but typed {claim.type.value}")
        if not claim.citations:
            problems.append(f"claim {claim.id} is rendered without a citation")
    if answer.abstained and answer.answer:
        problems.append("the answer abstained but still carries text")
    return problems
