"""Verify a given answer against given evidence: decompose, graph, views, type, render.

This is the ``verify`` path of the design with the evidence supplied by the caller;
retrieval from a corpus plugs in by passing one evidence pack per claim.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from veritype.aggregate import Aggregator, VoteAggregator, evidence_union, support_mass
from veritype.answer import Confidence, GroundedAnswer, render
from veritype.budget import Budget, run_views
from veritype.claims import decompose
from veritype.evidence import EvidencePack
from veritype.graph import BeliefGraph
from veritype.typing import Thresholds, status_of, type_claim
from veritype.views._base import VerificationView


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


def type_graph(graph: BeliefGraph, aggregator: Aggregator, thresholds: Thresholds) -> None:
    """Aggregate each node's view results and set its mass, evidence, status and type."""
    nodes = list(graph)
    aggregates = aggregator.aggregate_batch([node.results for node in nodes])
    for node, aggregate in zip(nodes, aggregates, strict=True):
        node.mass = support_mass(node.results)
        node.probability = None if isinstance(aggregator, VoteAggregator) else aggregate.score
        node.evidence = list(evidence_union(node.results))
        node.status = status_of(aggregate.score, contradicted=aggregate.contradicted,
                                thresholds=thresholds)
        node.evidence_type = type_claim(aggregate.score, contradicted=aggregate.contradicted,
                                        thresholds=thresholds)


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
        raise ValueError("the answer is empty")
    if not views:
        raise ValueError("at least one verification view is needed")
    if aggregator is None:
        aggregator = VoteAggregator(strong=[view.name for view in views if view.strong])
    thresholds = thresholds if thresholds is not None else Thresholds()
    budget = budget if budget is not None else Budget()

    started = time.perf_counter()
    decomposition = decompose(answer)
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
    type_graph(graph, aggregator, thresholds)
    verified = time.perf_counter()

    grounded = render(
        graph,
        pack,
        min_confidence=min_confidence,
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
