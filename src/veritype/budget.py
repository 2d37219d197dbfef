"""P3, the budget allocator: spend view calls only where they can still change a type.

Views run cheapest first, each over every still-open claim in one batch. A claim
closes early once no remaining view can move it across τ or τ' (and, for a claim
headed for Verified, once no strong view remains that could contradict it). When a
budget caps the spend, the open claims are served by priority: borderline mass,
high-risk claim classes, and claims that others depend on come first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veritype.aggregate import Aggregator, VoteAggregator
from veritype.claims import ClaimClass
from veritype.deadline import checkpoint
from veritype.errors import ConfigurationError, InputError
from veritype.evidence import EvidencePack
from veritype.graph import BeliefGraph, EvidenceType, Node
from veritype.thresholds import Thresholds, type_claim
from veritype.verdicts import Verdict, VerificationView

_HIGH_RISK = frozenset({ClaimClass.COMPARATIVE, ClaimClass.SCOPE})


@dataclass(frozen=True, slots=True)
class Budget:
    """``limit`` caps the total cost of view calls (None: no cap); ``early_stop`` closes
    claims whose type can no longer change."""

    limit: float | None = None
    early_stop: bool = True

    def __post_init__(self) -> None:
        if self.limit is not None and not self.limit >= 0:
            raise ConfigurationError(f"budget limit must be >= 0, got {self.limit}")


@dataclass(frozen=True, slots=True)
class Spend:
    """What verification cost: the spent cost, the calls made and the calls saved."""

    limit: float | None
    spent: float
    calls: int
    saved_by_early_stop: int
    cut_by_budget: int

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "limit": self.limit,
            "spent": self.spent,
            "calls": self.calls,
            "saved_by_early_stop": self.saved_by_early_stop,
            "cut_by_budget": self.cut_by_budget,
        }


def _mass_range(node: Node, remaining: int) -> tuple[float, float]:
    """The lowest and highest vote mass the claim can still reach."""
    voted = [r for r in node.results if r.verdict is not Verdict.ABSTAINED]
    entailed = sum(r.verdict is Verdict.ENTAILED for r in voted)
    if not voted:
        return 0.0, (1.0 if remaining else 0.0)
    low = entailed / (len(voted) + remaining)
    high = 1.0 if entailed == len(voted) else (entailed + remaining) / (len(voted) + remaining)
    return low, high


def _contradicted(node: Node, strong: frozenset[str]) -> bool:
    return any(r.verdict is Verdict.CONTRADICTED and r.view in strong for r in node.results)


def _settled(
    node: Node,
    remaining: Sequence[VerificationView],
    strong: frozenset[str],
    thresholds: Thresholds,
    aggregator: Aggregator,
) -> bool:
    # A strong view's contradiction settles the claim only where the aggregator lets it
    # override the score: the default vetoes nothing, so the views after it still count.
    if _contradicted(node, strong) and aggregator.aggregate(node.results).contradicted:
        return True
    vote = isinstance(aggregator, VoteAggregator)
    if not vote:
        return False
    low, high = _mass_range(node, len(remaining))
    band = thresholds.band(low)
    if band is not thresholds.band(high):
        return False
    return band is not EvidenceType.VERIFIED or not any(view.strong for view in remaining)


def _borderline(node: Node, aggregator: Aggregator, thresholds: Thresholds) -> bool:
    """Whether the views so far leave the claim Uncertain (or, for an aggregator that says
    which claims it leaves ``unsettled``, one of those), or no view has voted on it yet: the
    only claims a view marked ``borderline_only`` (a costly one, such as the judge) is asked
    about. A claim no view has examined is never typed unasked."""
    if all(r.verdict is Verdict.ABSTAINED for r in node.results):
        return True
    unsettled = getattr(aggregator, "unsettled", None)
    if callable(unsettled):
        return bool(unsettled(node.results))
    aggregate = aggregator.aggregate(node.results)
    return type_claim(aggregate.score, contradicted=aggregate.contradicted,
                      thresholds=thresholds) is EvidenceType.UNCERTAIN


def _priority(node: Node, graph: BeliefGraph, thresholds: Thresholds) -> float:
    voted = [r for r in node.results if r.verdict is not Verdict.ABSTAINED]
    mass = sum(r.verdict is Verdict.ENTAILED for r in voted) / len(voted) if voted else 0.0
    borderline = 1.0 - abs(mass - thresholds.tau)
    risk = 0.5 if node.claim.claim_class in _HIGH_RISK else 0.0
    dependants = 0.25 * min(len(graph.descendants(node.claim.claim_id)), 4)
    return borderline + risk + dependants


def run_views(
    graph: BeliefGraph,
    evidence: Mapping[str, EvidencePack],
    views: Sequence[VerificationView],
    *,
    aggregator: Aggregator,
    thresholds: Thresholds,
    budget: Budget = Budget(),
) -> Spend:
    """Run ``views`` over the claims of ``graph`` under ``budget``; results land on the nodes.

    ``evidence`` maps each claim id to the evidence pack it is verified against.
    """
    missing = [node.claim.claim_id for node in graph if node.claim.claim_id not in evidence]
    if missing:
        raise InputError(f"no evidence pack for claims: {', '.join(missing)}")
    names = [view.name for view in views]
    if len(set(names)) != len(names):
        raise ConfigurationError(f"each view may run once per claim; duplicate names in {names}")
    ordered = sorted(views, key=lambda view: view.cost)
    strong = frozenset(view.name for view in ordered if view.strong)
    spent, calls, saved, cut = 0.0, 0, 0, 0
    for index, view in enumerate(ordered):
        remaining = ordered[index:]
        open_nodes = list(graph)
        if budget.early_stop:
            open_nodes = [
                n for n in open_nodes if not _settled(n, remaining, strong, thresholds, aggregator)
            ]
        if getattr(view, "borderline_only", False):
            open_nodes = [n for n in open_nodes if _borderline(n, aggregator, thresholds)]
        saved += len(graph) - len(open_nodes)
        if budget.limit is not None:
            affordable = (
                len(open_nodes) if view.cost <= 0
                else math.floor((budget.limit - spent) / view.cost + 1e-9)
            )
            if affordable < len(open_nodes):
                open_nodes.sort(key=lambda n: -_priority(n, graph, thresholds))
                cut += len(open_nodes) - max(affordable, 0)
                open_nodes = open_nodes[: max(affordable, 0)]
        if not open_nodes:
            continue
        checkpoint(f"the {view.name} view")
        results = view.verify_batch(
            [node.claim for node in open_nodes],
            [evidence[node.claim.claim_id] for node in open_nodes],
        )
        for node, result in zip(open_nodes, results, strict=True):
            node.results.append(result)
        spent += view.cost * len(open_nodes)
        calls += len(open_nodes)
    return Spend(limit=budget.limit, spent=spent, calls=calls, saved_by_early_stop=saved,
                 cut_by_budget=cut)
