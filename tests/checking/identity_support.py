"""What the identity test compares: every output of ``check`` on the RAG rows and of the
default views on the type contract (types, supports, each view's verdict and scores, cited
spans), so that a change meant to make checking faster can be shown to change nothing. The
reference is this CPU family's (``veritype._cpu.int8_kernels``).

    PYTHONPATH=src python tests/checking/identity_support.py   # rewrite the reference
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from veritype._cpu import int8_kernels
from veritype.checking import DEFAULT_VIEWS, CheckRow, RowResult
from veritype.checking._verify import RowChecker
from veritype.evaluation.contract import load_contract, typed_graph
from veritype.views import create_view

ROOT = Path(__file__).resolve().parents[2]
# One reference per family of int8 kernels: the shipped models score differently on each.
REFERENCE = ROOT / "tests" / "data" / f"identity_reference.{int8_kernels()}.json"
RAG_ROWS = ROOT / "benchmarks" / "data" / "rag_rows.jsonl"
CONTRACT = [ROOT / "benchmarks" / "data" / "type_contract.jsonl",
            ROOT / "benchmarks" / "data" / "attribution_swaps.jsonl"]
# Every how-manyth contract row is compared (all of them take a minute).
CONTRACT_STEP = 3


def rag_rows() -> list[CheckRow]:
    rows = []
    for number, line in enumerate(RAG_ROWS.read_text(encoding="utf-8").splitlines(), 1):
        data = json.loads(line)
        rows.append(CheckRow(line=number, question=data["question"], answer=data["answer"],
                             contexts=tuple(data["contexts"]), row_id=data["id"]))
    return rows


def check_outputs(rows: list[CheckRow], checker: RowChecker | None = None) -> list[Any]:
    """Each row's verdict, faithfulness, relevance and claims, as JSON values."""
    checker = checker or RowChecker()
    return result_outputs([checker.check(row) for row in rows])


def result_outputs(results: Sequence[RowResult]) -> list[Any]:
    """Each checked row's verdict, faithfulness, relevance and claims, as JSON values."""
    return [{
        "id": result.row.row_id, "verdict": result.verdict.value,
        "faithfulness": result.faithfulness, "relevance": result.relevance,
        "claims": [{"text": c.text, "type": c.type.value, "support": c.support,
                    "vote_share": c.vote_share,
                    "views": {k: list(v) for k, v in sorted(c.views.items())},
                    "citations": [[x.context, x.start, x.end] for x in c.citations],
                    "reason": c.reason} for c in result.claims],
    } for result in results]


def contract_outputs() -> list[Any]:
    """Each compared contract claim's type, support and view results under the default views,
    typed together in one batched run as ``benchmarks/type_contract.py`` types them."""
    rows = [row for suite in CONTRACT for row in load_contract(suite)][::CONTRACT_STEP]
    graph, ids = typed_graph(rows, [create_view(name) for name in DEFAULT_VIEWS])
    out = []
    for claim_id, row in zip(ids, rows, strict=True):
        node = graph.node(claim_id)
        out.append({
            "id": row.row_id, "type": node.evidence_type.value if node.evidence_type else None,
            "support": node.support,
            "evidence": [[s.doc_id, s.start, s.end] for s in node.evidence],
            "views": [[r.view, r.verdict.value, r.score, r.contradiction,
                       [[s.start, s.end] for s in r.spans], r.detail] for r in node.results],
        })
    return out


def differences(expected: Any, actual: Any, where: str = "", tolerance: float = 1e-6
                ) -> list[str]:
    """Where ``actual`` differs from ``expected``: numbers by more than ``tolerance``,
    anything else at all."""
    if isinstance(expected, bool) or not isinstance(expected, (int, float)):
        if isinstance(expected, dict) and isinstance(actual, dict):
            if set(expected) != set(actual):
                return [f"{where}: keys {sorted(expected)} != {sorted(actual)}"]
            return [d for k in expected
                    for d in differences(expected[k], actual[k], f"{where}.{k}", tolerance)]
        if isinstance(expected, list) and isinstance(actual, list):
            if len(expected) != len(actual):
                return [f"{where}: {len(expected)} items != {len(actual)}"]
            return [d for i, (e, a) in enumerate(zip(expected, actual, strict=True))
                    for d in differences(e, a, f"{where}[{i}]", tolerance)]
        return [] if expected == actual else [f"{where}: {expected!r} != {actual!r}"]
    if isinstance(actual, bool) or not isinstance(actual, (int, float)):
        return [f"{where}: {expected!r} != {actual!r}"]
    return [] if abs(expected - actual) <= tolerance else [f"{where}: {expected} != {actual}"]


def outputs() -> dict[str, Any]:
    return {"check_rag_rows": check_outputs(rag_rows()), "type_contract": contract_outputs()}


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else REFERENCE
    path.write_text(json.dumps(outputs(), indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    print(f"wrote {path}")
