"""The type contract: hand-written claims, each with the type a demanding user expects.

Each row gives an evidence passage, one claim about it, the claim's category (a verbatim
copy, a paraphrase, a changed number, a negation, an unmentioned fact, ...) and its expected
type. Every claim is typed as one claim (no decomposition) by the views and aggregator
given, against its own passage; the report gives the share typed as expected, overall, per
category and per domain, and lists every miss. Right means the exact expected type; the
lenient share also counts an expected-Unsupported claim typed Uncertain (not shown as
Verified, at least).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veritype.aggregate import Aggregator, default_for, recommended_thresholds
from veritype.budget import Budget, run_views
from veritype.claims import Claim, classify, is_hedged
from veritype.errors import DataError
from veritype.evaluation.data import read_jsonl, require_file
from veritype.evidence import Document, EvidencePack
from veritype.graph import BeliefGraph, EvidenceType
from veritype.thresholds import Thresholds
from veritype.verdicts import VerificationView
from veritype.verification import citing_views, type_graph

FIELDS = ("id", "domain", "category", "evidence", "claim", "expected")


@dataclass(frozen=True, slots=True)
class ContractRow:
    row_id: str
    domain: str
    category: str
    evidence: str
    claim: str
    expected: EvidenceType


def load_contract(path: Path) -> list[ContractRow]:
    """The rows of a type-contract file (JSON Lines with ``FIELDS``)."""
    rows = []
    for number, data in enumerate(read_jsonl(require_file(path)), start=1):
        if missing := [name for name in FIELDS if not isinstance(data.get(name), str)]:
            raise DataError(f"{path}:{number}: missing or non-text fields {missing}")
        try:
            expected = EvidenceType(data["expected"])
        except ValueError:
            raise DataError(f"{path}:{number}: expected must be one of "
                            f"{[t.value for t in EvidenceType]}") from None
        rows.append(ContractRow(data["id"], data["domain"], data["category"],
                                data["evidence"], data["claim"], expected))
    if len({row.row_id for row in rows}) != len(rows):
        raise DataError(f"{path}: row ids must be unique")
    return rows


def typed_graph(rows: Sequence[ContractRow], views: Sequence[VerificationView],
                aggregator: Aggregator | None = None,
                thresholds: Thresholds | None = None) -> tuple[BeliefGraph, list[str]]:
    """Each row's claim typed against its own passage, all in one batched run: the typed
    graph and each row's claim id in it."""
    aggregator = aggregator or default_for([v.name for v in views],
                                           [v.name for v in views if v.strong])
    thresholds = thresholds or Thresholds(*recommended_thresholds(aggregator))
    claims = [Claim(f"r{i}", row.claim, classify(row.claim), 0, len(row.claim),
                    is_hedged(row.claim)) for i, row in enumerate(rows)]
    packs: dict[str, EvidencePack] = {}
    by_text: dict[str, EvidencePack] = {}
    for claim, row in zip(claims, rows, strict=True):
        if row.evidence not in by_text:
            by_text[row.evidence] = EvidencePack.from_documents(
                [Document(doc_id=f"passage-{len(by_text)}", text=row.evidence)])
        packs[claim.claim_id] = by_text[row.evidence]
    graph = BeliefGraph.from_claims(claims, [])
    run_views(graph, packs, views, aggregator=aggregator, thresholds=thresholds,
              budget=Budget())
    type_graph(graph, aggregator, thresholds, citing_views(views))
    return graph, [claim.claim_id for claim in claims]


def type_rows(rows: Sequence[ContractRow], views: Sequence[VerificationView],
              aggregator: Aggregator | None = None,
              thresholds: Thresholds | None = None) -> list[EvidenceType]:
    """Each row's claim typed against its own passage, all in one batched run."""
    graph, ids = typed_graph(rows, views, aggregator, thresholds)
    types = [graph.node(claim_id).evidence_type for claim_id in ids]
    if any(kind is None for kind in types):
        raise DataError("a claim was left untyped")
    return [kind for kind in types if kind is not None]


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def _precisions(rows: Sequence[ContractRow], types: Sequence[EvidenceType]) -> dict[str, Any]:
    """What each type promises: the share of Verified claims expected Verified, of Unsupported
    ones expected Unsupported, the share decided (not Uncertain), and per category the share
    typed as expected or left Uncertain (not typed wrong)."""
    pairs = list(zip(rows, types, strict=True))
    verified = [row for row, kind in pairs if kind is EvidenceType.VERIFIED]
    unsupported = [row for row, kind in pairs if kind is EvidenceType.UNSUPPORTED]
    not_wrong: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for row, kind in pairs:
        total[row.category] += 1
        not_wrong[row.category] += kind is row.expected or kind is EvidenceType.UNCERTAIN
    return {
        "verified_precision": _share(
            sum(r.expected is EvidenceType.VERIFIED for r in verified), len(verified)),
        "unsupported_precision": _share(
            sum(r.expected is EvidenceType.UNSUPPORTED for r in unsupported), len(unsupported)),
        "decided": _share(len(verified) + len(unsupported), len(pairs)),
        "right_or_uncertain_per_category": {
            name: not_wrong[name] / total[name] for name in sorted(total)},
    }


def contract_report(rows: Sequence[ContractRow], types: Sequence[EvidenceType]
                    ) -> dict[str, Any]:
    """The share typed as expected overall, per category and per domain, and the misses."""
    right = [row.expected is kind for row, kind in zip(rows, types, strict=True)]

    def shares(key: str) -> dict[str, dict[str, float | int]]:
        total: Counter[str] = Counter()
        good: Counter[str] = Counter()
        for row, ok in zip(rows, right, strict=True):
            total[getattr(row, key)] += 1
            good[getattr(row, key)] += ok
        return {name: {"right": good[name], "claims": total[name],
                       "share": good[name] / total[name]} for name in sorted(total)}

    types_by_category: dict[str, Counter[str]] = {}
    for row, kind in zip(rows, types, strict=True):
        types_by_category.setdefault(row.category, Counter())[kind.value] += 1
    lenient = [ok or (row.expected is EvidenceType.UNSUPPORTED
                      and kind is EvidenceType.UNCERTAIN)
               for row, kind, ok in zip(rows, types, right, strict=True)]
    return {
        **_precisions(rows, types),
        "claims": len(rows),
        "right": sum(right),
        "share": sum(right) / len(rows) if rows else float("nan"),
        "lenient_share": sum(lenient) / len(rows) if rows else float("nan"),
        "per_category": shares("category"),
        "per_domain": shares("domain"),
        "types_by_category": {k: dict(v) for k, v in sorted(types_by_category.items())},
        "misses": [{"id": row.row_id, "category": row.category, "claim": row.claim,
                    "expected": row.expected.value, "typed": kind.value}
                   for row, kind, ok in zip(rows, types, right, strict=True) if not ok],
    }
