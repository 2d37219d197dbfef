"""The Evidence-Scoped Belief Graph (ESBG): claims as a DAG of dependencies.

An edge ``u -> v`` means claim ``v`` depends on claim ``u`` (it uses u's subject, or
follows from it). Each node carries its evidence pointers σ(v), support mass m(v),
entailment status z(v), and, once typed, its evidence type and the view results
behind it. Adding an edge that would close a cycle is refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from veritype._text import json_object
from veritype.claims import Claim
from veritype.errors import InputError
from veritype.evidence import Span
from veritype.verdicts import ViewResult

GRAPH_FORMAT = "veritype.esbg"
GRAPH_VERSION = 1


class CycleError(InputError):
    """An edge that would make a claim depend on itself."""

    def __init__(self, cycle: list[str]) -> None:
        self.cycle = cycle
        super().__init__("dependency cycle: " + " -> ".join(cycle))


class Status(StrEnum):
    """z(v): the entailment status of a node."""

    ENTAILED = "entailed"
    CONTRADICTED = "contradicted"
    UNKNOWN = "unknown"


class EvidenceType(StrEnum):
    """The type a claim ends up with; only Verified claims may be rendered."""

    VERIFIED = "verified"
    UNCERTAIN = "uncertain"
    UNSUPPORTED = "unsupported"


@dataclass(slots=True)
class Node:
    """One claim of the ESBG with everything verification learned about it."""

    claim: Claim
    evidence: list[Span] = field(default_factory=list)
    mass: float = 0.0
    probability: float | None = None
    status: Status = Status.UNKNOWN
    evidence_type: EvidenceType | None = None
    results: list[ViewResult] = field(default_factory=list)

    @property
    def support(self) -> float:
        """The score the claim's type is decided on: the aggregator's P(supported), or the
        vote share ``mass`` under the vote aggregator (which sets no probability)."""
        return self.mass if self.probability is None else self.probability

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim.to_dict(),
            "evidence": [span.to_dict() for span in self.evidence],
            "mass": self.mass,
            "probability": self.probability,
            "status": self.status.value,
            "type": self.evidence_type.value if self.evidence_type else None,
            "results": [result.to_dict() for result in self.results],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Node:
        kind = data["type"]
        return cls(
            claim=Claim.from_dict(data["claim"]),
            evidence=[Span.from_dict(span) for span in data["evidence"]],
            mass=float(data["mass"]),
            probability=None if data["probability"] is None else float(data["probability"]),
            status=Status(data["status"]),
            evidence_type=None if kind is None else EvidenceType(kind),
            results=[ViewResult.from_dict(result) for result in data["results"]],
        )


class BeliefGraph:
    """A DAG of claims. Node order is insertion order; edges keep insertion order too."""

    def __init__(self) -> None:
        self._nodes: dict[str, Node] = {}
        self._children: dict[str, list[str]] = {}
        self._parents: dict[str, list[str]] = {}

    @classmethod
    def from_claims(
        cls, claims: Iterable[Claim], edges: Iterable[tuple[str, str]] = ()
    ) -> BeliefGraph:
        graph = cls()
        for claim in claims:
            graph.add_claim(claim)
        for parent, child in edges:
            graph.add_edge(parent, child)
        return graph

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, claim_id: object) -> bool:
        return claim_id in self._nodes

    def __iter__(self) -> Iterator[Node]:
        return iter(self._nodes.values())

    def add_claim(self, claim: Claim) -> Node:
        if claim.claim_id in self._nodes:
            raise InputError(f"claim {claim.claim_id!r} is already in the graph")
        node = Node(claim)
        self._nodes[claim.claim_id] = node
        self._children[claim.claim_id] = []
        self._parents[claim.claim_id] = []
        return node

    def node(self, claim_id: str) -> Node:
        try:
            return self._nodes[claim_id]
        except KeyError:
            raise InputError(f"no claim {claim_id!r} in the graph") from None

    def add_edge(self, parent: str, child: str) -> None:
        """Record that ``child`` depends on ``parent``; refuses self-loops and cycles."""
        self.node(parent)
        self.node(child)
        if child in self._children[parent]:
            return
        path = self._path(child, parent)
        if path is not None:
            raise CycleError([parent, *path])
        self._children[parent].append(child)
        self._parents[child].append(parent)

    def _path(self, source: str, target: str) -> list[str] | None:
        """A dependency path from ``source`` to ``target`` (inclusive), if one exists."""
        previous: dict[str, str | None] = {source: None}
        stack = [source]
        while stack:
            current = stack.pop()
            if current == target:
                path = [current]
                step = previous[current]
                while step is not None:
                    path.append(step)
                    step = previous[step]
                return path[::-1]
            for nxt in self._children[current]:
                if nxt not in previous:
                    previous[nxt] = current
                    stack.append(nxt)
        return None

    def parents(self, claim_id: str) -> list[str]:
        self.node(claim_id)
        return list(self._parents[claim_id])

    def children(self, claim_id: str) -> list[str]:
        self.node(claim_id)
        return list(self._children[claim_id])

    def edges(self) -> list[tuple[str, str]]:
        return [(parent, child) for parent, kids in self._children.items() for child in kids]

    def ancestors(self, claim_id: str) -> list[str]:
        """Every claim ``claim_id`` depends on, directly or not, in topological order."""
        return self._reachable(self.parents(claim_id), self._parents)

    def descendants(self, claim_id: str) -> list[str]:
        """Every claim that depends on ``claim_id``, directly or not, in topological order."""
        return self._reachable(self.children(claim_id), self._children)

    def _reachable(self, start: list[str], links: Mapping[str, Iterable[str]]) -> list[str]:
        seen: set[str] = set()
        stack = list(start)
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(links[current])
        return [claim for claim in self.topological_order() if claim in seen]

    def topological_order(self) -> list[str]:
        """Claim ids with every parent before its children; ties keep insertion order."""
        indegree = {claim_id: len(parents) for claim_id, parents in self._parents.items()}
        order: list[str] = []
        ready = [claim_id for claim_id, degree in indegree.items() if degree == 0]
        position = {claim_id: index for index, claim_id in enumerate(self._nodes)}
        while ready:
            ready.sort(key=position.__getitem__)
            current = ready.pop(0)
            order.append(current)
            for child in self._children[current]:
                indegree[child] -= 1
                if indegree[child] == 0:
                    ready.append(child)
        return order

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": GRAPH_FORMAT,
            "version": GRAPH_VERSION,
            "nodes": [node.to_dict() for node in self._nodes.values()],
            "edges": [list(edge) for edge in self.edges()],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BeliefGraph:
        if data.get("format") != GRAPH_FORMAT:
            raise InputError(f"not a belief graph: format is {data.get('format')!r}")
        if data.get("version") != GRAPH_VERSION:
            raise InputError(f"unsupported belief-graph version {data.get('version')!r}")
        graph = cls()
        try:
            for raw in data["nodes"]:
                node = Node.from_dict(raw)
                graph.add_claim(node.claim)
                graph._nodes[node.claim.claim_id] = node
            for parent, child in data["edges"]:
                graph.add_edge(str(parent), str(child))
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, InputError):
                raise
            raise InputError(f"malformed belief graph: {error!r}") from error
        return graph

    @classmethod
    def from_json(cls, text: str) -> BeliefGraph:
        return cls.from_dict(json_object(text, "belief graph", InputError))
