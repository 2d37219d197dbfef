"""After the first pass: refine Uncertain compound claims into parts, and apply the
contradiction policy (drop, flag or correct)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veritype._text import content_words
from veritype.aggregate import Aggregator
from veritype.budget import Budget, Spend, run_views
from veritype.claims import Claim
from veritype.evidence import EvidencePack
from veritype.graph import BeliefGraph, EvidenceType, Node, Status
from veritype.thresholds import Thresholds
from veritype.verdicts import Verdict, VerificationView
from veritype.verification import WHOLE, citing_views, type_graph

# Only connectives whose parts stand alone: splitting "because" would drop the causal
# link the claim asserts, so causal clauses are never refined into parts.
_COMPOUND_SPLIT = re.compile(
    r"\s*;\s*|,\s+(?:while|whereas|although|though)\s+|\s+(?:although|whereas)\s+",
    re.IGNORECASE,
)
_QUOTE_CHARS = 300

# The evidence packs of a graph's claims, retrieved afresh.
PackFinder = Callable[[BeliefGraph], dict[str, EvidencePack]]


@dataclass(frozen=True)
class ClaimChecker:
    """Runs the views over a graph's claims and types them: the one verification step."""

    views: Sequence[VerificationView]
    aggregator: Aggregator
    thresholds: Thresholds

    def check(
        self,
        graph: BeliefGraph,
        packs: Mapping[str, EvidencePack],
        budget: Budget | None = None,
    ) -> Spend:
        spend = run_views(graph, packs, self.views, aggregator=self.aggregator,
                          thresholds=self.thresholds, budget=budget or Budget())
        type_graph(graph, self.aggregator, self.thresholds, citing_views(self.views))
        return spend


def split_compound(text: str) -> list[str]:
    """Finer parts of a compound claim (subordinate and relative clauses, semicolons);
    a single part when there is nothing to split."""
    pieces = [piece.strip(" ,.") for piece in _COMPOUND_SPLIT.split(text)]
    pieces = [piece for piece in pieces if len(piece.split()) >= 3]
    if len(pieces) < 2:
        return [text]
    return [piece[0].upper() + piece[1:] + "." for piece in pieces]


def refine(
    graph: BeliefGraph,
    packs: dict[str, EvidencePack],
    checker: ClaimChecker,
    spend: Spend,
    *,
    depth: int,
    find_packs: PackFinder,
    fixed: bool,
) -> tuple[list[dict[str, Any]], set[str], Spend]:
    """Split Uncertain compound claims into parts, verify the parts, and let the compound
    stand Verified only when every part is (depth-bounded, within budget).

    ``find_packs`` retrieves the parts' own evidence; unless the evidence is ``fixed``, each
    part also keeps its compound's."""
    refinements: list[dict[str, Any]] = []
    folded: set[str] = set()
    # The whole of a one-sentence answer is already judged beside its parts.
    pending = [node for node in graph if node.evidence_type is EvidenceType.UNCERTAIN
               and node.claim.claim_id != WHOLE]
    for level in range(1, depth + 1):
        if not pending:
            break
        subgraph, parts_of = _split(pending)
        if not parts_of:
            break
        remaining = None if spend.limit is None else max(spend.limit - spend.spent, 0.0)
        if remaining is not None and remaining <= 0:
            break
        sub_packs = find_packs(subgraph)
        if not fixed:
            sub_packs = {part_id: EvidencePack.merge([sub_packs[part_id], packs[compound_id]])
                         for compound_id, ids in parts_of.items() for part_id in ids}
        spend = _add_spend(spend, checker.check(subgraph, sub_packs, Budget(limit=remaining)))
        next_pending: list[Node] = []
        for compound_id, ids in parts_of.items():
            parts = _graft(graph, subgraph, compound_id, ids)
            packs.update({part_id: sub_packs[part_id] for part_id in ids})
            verified = all(p.evidence_type is EvidenceType.VERIFIED for p in parts)
            if verified:
                compound = graph.node(compound_id)
                compound.evidence_type = EvidenceType.VERIFIED
                compound.status = Status.ENTAILED
                compound.mass = min(p.mass for p in parts)
                compound.evidence = sorted({s for p in parts for s in p.evidence})
                folded.update(ids)
            else:
                next_pending.extend(
                    p for p in parts if p.evidence_type is EvidenceType.UNCERTAIN
                )
            refinements.append({
                "claim": compound_id,
                "depth": level,
                "parts": [{"id": p.claim.claim_id, "text": p.claim.text,
                           "type": p.evidence_type.value if p.evidence_type else None,
                           "mass": p.mass} for p in parts],
                "verified": verified,
            })
        pending = next_pending
    return refinements, folded, spend


def _split(pending: Sequence[Node]) -> tuple[BeliefGraph, dict[str, list[str]]]:
    """The parts of each pending compound claim, as a graph of their own."""
    subgraph = BeliefGraph()
    parts_of: dict[str, list[str]] = {}
    for node in pending:
        pieces = split_compound(node.claim.text)
        if len(pieces) < 2:
            continue
        ids = []
        for index, piece in enumerate(pieces, start=1):
            part = Claim(f"{node.claim.claim_id}.{index}", piece,
                         node.claim.claim_class, node.claim.start, node.claim.end)
            subgraph.add_claim(part)
            ids.append(part.claim_id)
        parts_of[node.claim.claim_id] = ids
    return subgraph, parts_of


def _graft(graph: BeliefGraph, subgraph: BeliefGraph, compound_id: str,
           ids: Sequence[str]) -> list[Node]:
    """Add a compound's checked parts to ``graph``: they inherit its parents and feed it."""
    for part_id in ids:
        graph.add_claim(subgraph.node(part_id).claim)
        _copy_node(subgraph.node(part_id), graph.node(part_id))
        for parent in graph.parents(compound_id):
            if parent not in ids:
                graph.add_edge(parent, part_id)
        graph.add_edge(part_id, compound_id)
    return [graph.node(part_id) for part_id in ids]


def handle_contradictions(
    graph: BeliefGraph,
    packs: dict[str, EvidencePack],
    checker: ClaimChecker,
    policy: str,
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Apply the ``contradicted`` setting: drop (default wording), flag (quote the
    contradicting evidence) or correct (state the contradicting sentence instead, when it
    speaks of the same slot, verified like any other claim)."""
    notes: dict[str, str] = {}
    corrections: list[dict[str, Any]] = []
    if policy == "drop":
        return notes, corrections
    fixes = BeliefGraph()
    fixed_from: dict[str, str] = {}
    for node in list(graph):
        if node.status is not Status.CONTRADICTED:
            continue
        found = _contradicting_sentence(node, packs[node.claim.claim_id])
        if found is None:
            continue
        sentence, view_name = found
        notes[node.claim.claim_id] = (
            f"Contradicted by the evidence: \u201c{node.claim.text}\u201d \u2014 the "
            f"evidence says \u201c{sentence[:_QUOTE_CHARS]}\u201d"
        )
        if policy == "correct" and _same_slot(node.claim.text, sentence, view_name):
            fix = Claim(f"{node.claim.claim_id}.fix", sentence, node.claim.claim_class,
                        node.claim.start, node.claim.end)
            fixes.add_claim(fix)
            fixed_from[fix.claim_id] = node.claim.claim_id
    if not len(fixes):
        return notes, corrections
    fix_packs = {fid: packs[origin] for fid, origin in fixed_from.items()}
    checker.check(fixes, fix_packs)
    for fix_node in fixes:
        fid, origin = fix_node.claim.claim_id, fixed_from[fix_node.claim.claim_id]
        graph.add_claim(fix_node.claim)
        _copy_node(fix_node, graph.node(fid))
        packs[fid] = fix_packs[fid]
        for parent in graph.parents(origin):
            graph.add_edge(parent, fid)
        ok = fix_node.evidence_type is EvidenceType.VERIFIED
        if ok:
            notes[origin] = (
                f"Corrected: \u201c{graph.node(origin).claim.text}\u201d is contradicted "
                f"by the evidence; stated instead: \u201c{fix_node.claim.text}\u201d"
            )
        corrections.append({"claim": origin, "correction": fid,
                            "text": fix_node.claim.text, "verified": ok})
    return notes, corrections


def _contradicting_sentence(node: Node, pack: EvidencePack) -> tuple[str, str] | None:
    for result in node.results:
        if result.verdict is not Verdict.CONTRADICTED:
            continue
        for span in result.spans:
            if pack.resolves(span):
                return pack.quote(span).strip(), result.view
    return None


def _same_slot(claim: str, sentence: str, view_name: str) -> bool:
    """A correction replaces a claim only with a sentence about the same thing: the numeric
    view contradicts per slot by construction; otherwise most of the claim's words recur."""
    if view_name == "numeric":
        return True
    claim_words = set(content_words(claim))
    if not claim_words:
        return False
    return len(claim_words & set(content_words(sentence))) / len(claim_words) >= 0.6


def _copy_node(source: Node, target: Node) -> None:
    target.evidence = list(source.evidence)
    target.mass = source.mass
    target.probability = source.probability
    target.status = source.status
    target.evidence_type = source.evidence_type
    target.results = list(source.results)


def _add_spend(first: Spend, second: Spend) -> Spend:
    return Spend(
        limit=first.limit,
        spent=first.spent + second.spent,
        calls=first.calls + second.calls,
        saved_by_early_stop=first.saved_by_early_stop + second.saved_by_early_stop,
        cut_by_budget=first.cut_by_budget + second.cut_by_budget,
    )
