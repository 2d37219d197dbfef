"""Constrained rendering: from a typed belief graph to a ``GroundedAnswer``.

Only claims of V^τ (Verified, with every ancestor Verified) that meet their claim
class's minimum citation support are rendered, each with [n] citations that resolve
into the evidence pack. Everything else is reported under ``limitations``; when
nothing can be rendered the answer abstains and says why.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence

from veritype._text import MODAL_MAY, STOPWORDS, tokens
from veritype.answer import (
    CONFIDENCE_RANK,
    Citation,
    ClaimReport,
    Confidence,
    GroundedAnswer,
    Reference,
    ViewVerdict,
)
from veritype.answers.question import Question
from veritype.answers.reader import RightCalibration
from veritype.answers.scoring import DECIDED_BY_RULES, RIGHT_FLOOR, AnswerCalibration
from veritype.answers.selection import AnswerSelection
from veritype.claims import Claim, ClaimClass, states_scope
from veritype.errors import InputError
from veritype.evidence import EvidencePack, Span
from veritype.graph import BeliefGraph, EvidenceType, Node, Status

_HEDGE = re.compile(
    r"\b(?:about|approximately|around|roughly|nearly|might|likely|possibly|"
    r"probably|suggests?|appears?|estimated)\b|" + MODAL_MAY,
    re.IGNORECASE,
)


def confidence_label(verified: int, substantive: int, *, contradicted: bool) -> Confidence:
    """From the claims shown: ``verified`` of the ``substantive`` claims that count (on the
    question, not folded into a whole) are shown. High when ≥ 90% are shown and none is
    contradicted; medium ≥ 75%; low ≥ 50%; else insufficient evidence."""
    if substantive == 0:
        return Confidence.INSUFFICIENT_EVIDENCE
    share = verified / substantive
    if share >= 0.9 and not contradicted:
        return Confidence.HIGH
    if share >= 0.75:
        return Confidence.MEDIUM
    if share >= 0.5:
        return Confidence.LOW
    return Confidence.INSUFFICIENT_EVIDENCE


def class_support_problem(claim: Claim, quotes: list[str]) -> str | None:
    """Why the cited quotes fall short of the claim class's minimum support, if they do."""
    if not quotes:
        return "it has no citation that resolves into the evidence"
    if (
        claim.claim_class is ClaimClass.COMPARATIVE
        and len(quotes) < 2
        and not (_HEDGE.search(claim.text))
    ):
        return "a comparative claim needs two citations or a stated uncertainty"
    if claim.claim_class is ClaimClass.SCOPE and not any(states_scope(q) for q in quotes):
        return "a scope claim needs a citation to a passage that states the limit"
    return None


def _key_terms(text: str, limit: int = 8) -> str:
    words = [m.group(0) for m in tokens(text) if m.group(0).lower() not in STOPWORDS]
    return " ".join(words[:limit])


class _References:
    """Numbers cited spans by first appearance, one number per distinct span."""

    def __init__(self, evidence: EvidencePack) -> None:
        self._evidence = evidence
        self._numbers: dict[Span, int] = {}
        self.items: list[Reference] = []

    def cite(self, span: Span) -> Citation:
        quote = self._evidence.quote(span)
        ref = self._numbers.get(span)
        if ref is None:
            ref = len(self.items) + 1
            self._numbers[span] = ref
            self.items.append(
                Reference(
                    ref=ref,
                    doc_id=span.doc_id,
                    chunk_id=span.chunk_id,
                    title=self._evidence.title(span.doc_id),
                    start=span.start,
                    end=span.end,
                    quote=quote,
                )
            )
        return Citation(
            ref=ref,
            doc_id=span.doc_id,
            chunk_id=span.chunk_id,
            start=span.start,
            end=span.end,
            quote=quote,
        )


def narrowest_spans(spans: list[Span]) -> list[Span]:
    """Drop every span that encloses another: cite the exact passage, not its surroundings."""
    return [
        outer for outer in spans
        if not any(
            inner != outer and inner.chunk_id == outer.chunk_id
            and outer.start <= inner.start and inner.end <= outer.end
            for inner in spans
        )
    ]


def _with_markers(text: str, refs: list[int]) -> str:
    markers = "".join(f"[{ref}]" for ref in refs)
    stripped = text.rstrip()
    if stripped and stripped[-1] in ".!?":
        return f"{stripped[:-1]} {markers}{stripped[-1]}"
    return f"{stripped} {markers}"


def _limitation(node: Node) -> str | None:
    """How an unrendered claim is reported, by why it failed."""
    text = node.claim.text
    if node.status is Status.CONTRADICTED:
        return f"Contradicted by the evidence: \u201c{text}\u201d"
    if node.evidence_type is EvidenceType.UNCERTAIN:
        return f"Unverified (support {node.support:.2f}): \u201c{text}\u201d"
    if node.evidence_type is EvidenceType.UNSUPPORTED:
        return f"Not supported by the evidence: \u201c{text}\u201d"
    return None


def render(
    graph: BeliefGraph,
    evidence: EvidencePack,
    *,
    min_confidence: Confidence = Confidence.INSUFFICIENT_EVIDENCE,
    trace_id: str | None = None,
    timings: Mapping[str, float] | None = None,
    folded: Collection[str] = (),
    notes: Mapping[str, str] | None = None,
    off_question: Collection[str] = (),
    question: Question | None = None,
    answer_scores: Mapping[str, float] | None = None,
    answer_calibration: AnswerCalibration | None = None,
    reader_scores: Mapping[str, float] | None = None,
    reader_calibration: RightCalibration | None = None,
    side_scores: Sequence[Mapping[str, float]] = (),
    coverage: Callable[[Collection[str]], float] | None = None,
) -> GroundedAnswer:
    """Render a typed belief graph into a ``GroundedAnswer``.

    A claim is rendered iff it is Verified, every claim it depends on is (recursively)
    Verified, and its resolving citations meet its class's minimum support. It is shown as
    the answer worded it when the claims it depends on are shown, else as its resolved,
    self-contained text. The answer abstains
    when nothing renders or the confidence falls below ``min_confidence``.

    ``folded`` claims are parts of a refined claim that renders in their place: they stay
    in ``claims`` but are neither shown on their own nor counted for confidence.
    ``notes`` replace the default limitation wording of unrendered claims.
    ``off_question`` claims do not address the question (``veritype.answers.relevance``): they are
    not shown, even when Verified, and do not count for confidence.
    With the analysed ``question``, a shown claim is the answer only when it answers it
    (``veritype.answers.question``): those claims are the answer, and the other claims that could be
    shown are listed under ``related``; when none answers, the answer abstains and lists them
    all there, and the confidence is high only when a claim answers. A comparison with one side
    unanswered abstains and says which side. ``answer_scores`` (claim id → P(the claim answers
    the question), from an answer scorer) read through ``answer_calibration`` let a claim answer
    by the model as well as by the rules (``veritype.answers.scoring.claim_answers``); the answer's
    confidence is then P(the shown answer is right) from the best of those scores and the
    question's kind, and its label that probability's band; an answer more likely wrong than
    right (``veritype.answers.scoring.RIGHT_FLOOR``) is not shown, unless the rules decided it (a
    yes/no question, a comparison answered for both sides): the answer abstains and lists its
    claims under ``related``. With an answer reader's ``reader_scores`` (claim id → its P) and
    ``reader_calibration``, P(right) reads the best of both scores of the claims that answer
    and ``coverage`` of their ids, the share of what the question asks about that they speak
    of (``veritype.answers.reader.RightCalibration``; without it, all). A comparison's
    ``side_scores`` (per side, claim id → P(the claim answers that side's own question)) let a
    claim that names a side give its value by the model.
    """
    untyped = [node.claim.claim_id for node in graph if node.evidence_type is None]
    if untyped:
        raise InputError(f"cannot render untyped claims: {', '.join(untyped)}")
    references = _References(evidence)
    selection = AnswerSelection(question, answer_scores or {}, answer_calibration,
                                reader_scores or {}, reader_calibration, side_scores,
                                coverage)
    rendered: set[str] = set()
    admissible: set[str] = set()
    cited_spans: dict[str, list[Span]] = {}
    limitations: dict[str, str] = {}
    for claim_id in graph.topological_order():
        node = graph.node(claim_id)
        if node.evidence_type is not EvidenceType.VERIFIED:
            continue
        if claim_id in folded:
            rendered.add(claim_id)
            admissible.add(claim_id)
            continue
        # V^τ: every ancestor Verified. A Verified parent that is not shown (off the
        # question, or short of its class's citations) does not block a resolved claim.
        blocked = [p for p in graph.parents(claim_id) if p not in admissible]
        if blocked:
            limitations[claim_id] = (
                f"Not shown, because a claim it depends on is not verified "
                f"({', '.join(blocked)}): \u201c{node.claim.text}\u201d"
            )
            continue
        admissible.add(claim_id)
        if claim_id in off_question:
            limitations[claim_id] = (
                f"Verified but not shown, because it does not address the question: "
                f"\u201c{node.claim.text}\u201d"
            )
            continue
        spans = narrowest_spans(sorted({span for span in node.evidence if evidence.resolves(span)}))
        problem = class_support_problem(node.claim, [evidence.quote(span) for span in spans])
        if (problem is not None and node.claim.claim_class is ClaimClass.COMPARATIVE
                and question is not None and selection.gives_a_value(node, evidence)):
            # "Batteries are covered for 2 years or 500 cycles, whichever comes first" reads
            # as comparative but answers a plain question, and "The events endpoint only
            # returns events from the last 30 days; older events ..." gives one side's value:
            # the comparative rule is for claims that compare, not for values that answer.
            problem = None
        if problem is not None:
            limitations[claim_id] = (
                f"Verified but not shown, because {problem}: \u201c{node.claim.text}\u201d"
            )
            continue
        rendered.add(claim_id)
        cited_spans[claim_id] = spans

    rendered -= set(folded)
    nodes = sorted(
        (node for node in graph if node.claim.claim_id not in folded),
        key=lambda n: (n.claim.start, n.claim.claim_id),
    )
    for node in nodes:
        claim_id = node.claim.claim_id
        if claim_id not in rendered and claim_id not in limitations:
            note = (notes or {}).get(claim_id) or _limitation(node)
            if note is not None:
                limitations[claim_id] = note

    on_question = [node for node in nodes if node.claim.claim_id not in off_question]
    contradicted = any(node.status is Status.CONTRADICTED for node in on_question)
    confidence = confidence_label(len(rendered), len(on_question), contradicted=contradicted)
    abstention_reason = _abstention_reason(
        nodes, rendered, evidence, confidence, min_confidence, off_question
    )
    shown = [node for node in nodes if node.claim.claim_id in rendered]
    related: list[str] = []
    right: float | None = None
    if question is not None and abstention_reason is None:
        answer_ids, missing = selection.answering(shown, evidence)
        if answer_ids and missing:
            # One side's value alone reads as an answer to the comparison, and it is not one.
            abstention_reason = (f"A comparison needs a value for each side, and no verified "
                                 f"claim gives one for: {'; '.join(missing)}."
                                 + (selection.closest_statement(shown, evidence)
                                    if selection.siblings else ""))
            related = [node.claim.text for node in shown]
        elif not answer_ids:
            abstention_reason = (f"No verified claim answers the question, which asks for "
                                 f"{question.describe()}."
                                 + selection.closest_statement(shown, evidence))
            related = [node.claim.text for node in shown]
        else:
            # Only the claims that answer are the answer; the rest is related, not an answer.
            related = [node.claim.text for node in shown if node.claim.claim_id not in answer_ids]
            shown = [node for node in shown if node.claim.claim_id in answer_ids]
            rendered &= answer_ids
            right = selection.right(answer_ids)
            if right is not None and right < RIGHT_FLOOR and question.kind not in DECIDED_BY_RULES:
                abstention_reason = (
                    f"The verified claims that answer are more likely wrong than right for a "
                    f"question that asks for {question.describe()} (P(right) {right:.2f})."
                    + selection.closest_statement(shown, evidence))
                related = [node.claim.text for node in shown] + related
            elif right is not None:
                cap = Confidence.MEDIUM if contradicted else Confidence.HIGH
                confidence = min(selection.label(right), cap, key=CONFIDENCE_RANK.__getitem__)
    abstained = abstention_reason is not None
    if abstained:
        rendered, shown, right = set(), [], None
        if question is not None:
            confidence = Confidence.INSUFFICIENT_EVIDENCE
    citations: dict[str, list[Citation]] = {
        claim_id: [references.cite(span) for span in cited_spans[claim_id]]
        for claim_id in graph.topological_order() if claim_id in rendered
    }
    # A comparison's value given under its side's heading or paragraph says whose it is.
    labels = selection.side_labels(shown)
    text = " ".join(
        labels.get(node.claim.claim_id, "") + _with_markers(
            node.claim.shown
            if all(parent in rendered for parent in graph.parents(node.claim.claim_id))
            else node.claim.text,
            [c.ref for c in citations[node.claim.claim_id]],
        )
        for node in shown
    )
    refinements = []
    if abstained or confidence in (Confidence.LOW, Confidence.INSUFFICIENT_EVIDENCE):
        refinements = list(
            dict.fromkeys(
                _key_terms(node.claim.text) for node in nodes if node.claim.claim_id not in rendered
            )
        )
    return GroundedAnswer(
        answer=text,
        claims=[
            _report(node, citations.get(node.claim.claim_id, []), rendered,
                    counted=node.claim.claim_id not in folded
                    and node.claim.claim_id not in off_question)
            for node in sorted(graph, key=lambda n: (n.claim.start, n.claim.claim_id))
        ],
        references=references.items if rendered else [],
        confidence=confidence,
        answer_probability=None if right is None else round(right, 4),
        limitations=[
            limitations[n.claim.claim_id] for n in nodes if n.claim.claim_id in limitations
        ],
        related=related,
        query_refinements=[r for r in refinements if r],
        abstained=abstained,
        abstention_reason=abstention_reason,
        trace_id=trace_id or uuid.uuid4().hex,
        timings=dict(timings or {}),
    )


def _abstention_reason(
    nodes: list[Node],
    rendered: set[str],
    evidence: EvidencePack,
    confidence: Confidence,
    min_confidence: Confidence,
    off_question: Collection[str],
) -> str | None:
    if not nodes:
        return "The answer contains no checkable claim."
    if len(evidence) == 0:
        return "No evidence was available to verify the answer against."
    if not rendered:
        counts = {
            "contradicted": sum(n.status is Status.CONTRADICTED for n in nodes),
            "unsupported": sum(
                n.evidence_type is EvidenceType.UNSUPPORTED and n.status is not Status.CONTRADICTED
                for n in nodes
            ),
            "uncertain": sum(n.evidence_type is EvidenceType.UNCERTAIN for n in nodes),
            "verified but off the question": sum(
                n.evidence_type is EvidenceType.VERIFIED and n.claim.claim_id in off_question
                for n in nodes
            ),
        }
        detail = ", ".join(f"{count} {label}" for label, count in counts.items() if count)
        if counts["verified but off the question"]:
            return (f"No claim of the answer is both verified by the evidence and on the "
                    f"question ({detail}).")
        return f"No claim of the answer is verified by the evidence ({detail or 'none shown'})."
    if CONFIDENCE_RANK[confidence] < CONFIDENCE_RANK[min_confidence]:
        return (
            f"Confidence is {confidence.value}, below the required {min_confidence.value}: "
            f"{len(rendered)} of {len(nodes)} claims are verified."
        )
    return None


def _report(
    node: Node, citations: list[Citation], rendered: set[str], *, counted: bool
) -> ClaimReport:
    assert node.evidence_type is not None  # render() checked every node is typed
    return ClaimReport(
        id=node.claim.claim_id,
        text=node.claim.text,
        claim_class=node.claim.claim_class,
        type=node.evidence_type,
        status=node.status,
        support=node.support,
        vote_share=node.mass,
        rendered=node.claim.claim_id in rendered,
        counted=counted,
        citations=citations,
        views=[
            ViewVerdict(name=r.view, verdict=r.verdict.value, score=r.score) for r in node.results
        ],
    )


