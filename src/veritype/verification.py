"""Verify a given answer against given evidence: decompose, graph, views, type, render.

This is the ``verify`` path of the design with the evidence supplied by the caller;
retrieval from a corpus plugs in by passing one evidence pack per claim.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from veritype._text import sentence_spans
from veritype.aggregate import (
    Aggregator,
    VoteAggregator,
    default_for,
    evidence_union,
    recommended_thresholds,
    support_mass,
)
from veritype.answer import Confidence, GroundedAnswer
from veritype.answers.rendering import render
from veritype.budget import Budget, run_views
from veritype.claims import Claim, Decomposition, classify, decompose, is_hedged
from veritype.errors import ConfigurationError, InputError
from veritype.evidence import EvidencePack, Span
from veritype.graph import BeliefGraph, EvidenceType, Node
from veritype.thresholds import Thresholds, status_of, type_claim
from veritype.verdicts import Verdict, VerificationView


class VerificationReport(BaseModel):
    """Everything a verification produced: the grounded answer plus its full trace."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    grounded: GroundedAnswer
    graph: dict[str, Any]
    views: list[str]
    aggregator: str
    tau: float
    tau_low: float
    budget: dict[str, float | int | None]


def citing_views(views: Sequence[VerificationView]) -> list[str]:
    """The views whose spans are windows they found to entail the claim (the model views):
    when one of them entailed, only their spans are cited, since a word-overlap or number
    check can point at a sentence that shares the claim's words without stating it."""
    return [view.name for view in views if getattr(view, "cites_entailment", False)]


def type_graph(
    graph: BeliefGraph,
    aggregator: Aggregator,
    thresholds: Thresholds,
    citing: Sequence[str] | None = None,
) -> None:
    """Aggregate each node's view results and set its mass, evidence, status and type;
    ``citing`` views' spans are preferred as evidence (see :func:`citing_views`)."""
    nodes = list(graph)
    aggregates = aggregator.aggregate_batch([node.results for node in nodes])
    for node, aggregate in zip(nodes, aggregates, strict=True):
        node.mass = support_mass(node.results)
        node.probability = None if isinstance(aggregator, VoteAggregator) else aggregate.score
        node.evidence = list(evidence_union(node.results, citing))
        node.status = status_of(aggregate.score, contradicted=aggregate.contradicted,
                                thresholds=thresholds)
        node.evidence_type = type_claim(aggregate.score, contradicted=aggregate.contradicted,
                                        thresholds=thresholds)


def claim_reason(node: Node, cite: Callable[[Span], str] | None = None) -> str:
    """One line on why a typed claim is not Verified ("" when it is): the view that found the
    evidence saying otherwise and what it says there, else how far the views got. ``cite``
    names a span of the evidence ("context 2: “…”")."""
    if node.evidence_type is EvidenceType.VERIFIED or node.evidence_type is None:
        return ""
    voting = [result for result in node.results if result.verdict is not Verdict.ABSTAINED]
    if not voting:
        return "no view could check it"
    contradicting = [r for r in voting if r.verdict is Verdict.CONTRADICTED]
    if contradicting:
        strongest = max(contradicting, key=lambda result: result.contradiction)
        said = (strongest.detail if strongest.view == "numeric" else
                f"the evidence says otherwise (contradiction {strongest.contradiction:.2f})")
        where = f"; {cite(strongest.spans[0])}" if cite is not None and strongest.spans else ""
        return f"{strongest.view}: {said}{where}"
    entailing = [r.view for r in voting if r.verdict is Verdict.ENTAILED]
    if entailing:
        doubting = ", ".join(f"{r.view} {r.score:.2f}" for r in voting
                             if r.verdict is not Verdict.ENTAILED)
        if doubting:
            return f"only {', '.join(entailing)} found it stated ({doubting})"
        # Every view found it stated, yet not surely enough for the precision τ promises.
        support = node.probability if node.probability is not None else node.mass
        return (f"{', '.join(entailing)} found it stated, but with support {support:.2f}, "
                "too weak to verify")
    missing = [r.detail for r in voting if r.view == "numeric" and "not found" in r.detail]
    if missing:
        return f"no context states it (numeric: {missing[0]})"
    if any(r.view == "lexical" and r.detail == "no claim word in the evidence" for r in voting):
        return "no context mentions it"
    best = max(voting, key=lambda result: result.score)
    return f"no context states it (best support: {best.view} {best.score:.2f})"


WHOLE = "whole"


def with_whole(answer: str, decomposition: Decomposition) -> Decomposition:
    """A one-sentence answer that was split into parts, with the whole sentence added as
    claim ``whole``: a part that fails on its own (a fragment without its context) must not
    sink a claim whose whole is entailed. Other answers are returned as they are."""
    claims = decomposition.claims
    if len(claims) < 2:
        return decomposition
    start, end = min(c.start for c in claims), max(c.end for c in claims)
    sentence = answer[start:end].strip()
    if not sentence or any(c.claim_id == WHOLE for c in claims):
        return decomposition
    whole = Claim(WHOLE, sentence, classify(sentence), start, end, is_hedged(sentence))
    return Decomposition([*claims, whole], list(decomposition.edges))


def folded_by_whole(graph: BeliefGraph) -> set[str]:
    """What the whole claim hides: its parts when it is Verified, else itself."""
    if WHOLE not in graph:
        return set()
    if graph.node(WHOLE).evidence_type is EvidenceType.VERIFIED:
        return {node.claim.claim_id for node in graph} - {WHOLE}
    return {WHOLE}


def is_one_sentence(answer: str, decomposition: Decomposition) -> bool:
    """Whether ``answer`` is one sentence split into several claims (a claim given alone)."""
    spans = sentence_spans(answer.strip())
    return len(spans) == 1 and len(decomposition.claims) >= 2


def verify_answer(
    answer: str,
    evidence: EvidencePack | Mapping[str, EvidencePack],
    views: Sequence[VerificationView],
    *,
    aggregator: Aggregator | None = None,
    thresholds: Thresholds | None = None,
    budget: Budget | None = None,
    min_confidence: Confidence = Confidence.INSUFFICIENT_EVIDENCE,
) -> VerificationReport:
    """Type every claim of ``answer`` and render only what the evidence verifies.

    ``evidence`` is one pack for all claims, or a mapping from claim id to its own pack
    (claim ids are ``c1``, ``c2``, ... in answer order).
    """
    if not answer.strip():
        raise InputError("the answer is empty")
    if not views:
        raise ConfigurationError("at least one verification view is needed")
    if aggregator is None:
        aggregator = default_for([view.name for view in views],
                                 [view.name for view in views if view.strong])
    thresholds = thresholds if thresholds is not None else Thresholds(
        *recommended_thresholds(aggregator))
    budget = budget if budget is not None else Budget()

    started = time.perf_counter()
    decomposition = decompose(answer)
    # Per-claim packs are keyed by the parts' ids; the whole needs the one shared pack.
    if isinstance(evidence, EvidencePack) and is_one_sentence(answer, decomposition):
        decomposition = with_whole(answer, decomposition)
    graph = BeliefGraph.from_claims(decomposition.claims, decomposition.edges)
    decomposed = time.perf_counter()

    if isinstance(evidence, EvidencePack):
        packs: Mapping[str, EvidencePack] = {node.claim.claim_id: evidence for node in graph}
        pack = evidence
    else:
        packs = evidence
        pack = EvidencePack.merge({id(p): p for p in evidence.values()}.values())
    spend = run_views(graph, packs, views, aggregator=aggregator, thresholds=thresholds,
                      budget=budget)
    type_graph(graph, aggregator, thresholds, citing_views(views))
    verified = time.perf_counter()

    grounded = render(
        graph,
        pack,
        min_confidence=min_confidence,
        folded=folded_by_whole(graph),
        timings={"decompose_s": decomposed - started, "verify_s": verified - decomposed},
    )
    return VerificationReport(
        grounded=grounded,
        graph=graph.to_dict(),
        views=[view.name for view in views],
        aggregator=type(aggregator).__name__,
        tau=thresholds.tau,
        tau_low=thresholds.tau_low,
        budget=spend.to_dict(),
    )
