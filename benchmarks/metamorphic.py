"""The metamorphic suite (``benchmarks/data/metamorphic.jsonl``): each claim and a variant that
differs from it only by a surface edit that keeps its meaning (a leading "The", letter case,
the final full stop, white space, digit grouping, British or American spelling), typed
against the same passage with the default views and aggregator. A type that changes with the
edit is a defect; the report counts them per edit, lists each, and scores claim and variant
against the expected type beside.

    python benchmarks/metamorphic.py [--views numeric,nli] [--output FILE]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from _common import ROOT, write_report

from veritype.checking import DEFAULT_VIEWS
from veritype.evaluation.contract import ContractRow, type_rows
from veritype.evaluation.data import read_jsonl
from veritype.graph import EvidenceType
from veritype.views import create_view

SUITE = ROOT / "benchmarks" / "data" / "metamorphic.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", type=Path, default=SUITE)
    parser.add_argument("--views", default=",".join(DEFAULT_VIEWS))
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "metamorphic.json")
    args = parser.parse_args()
    pairs = list(read_jsonl(args.suite))
    rows = [ContractRow(f"{pair['id']}/{side}", pair["edit"], pair["edit"], pair["evidence"],
                        pair[side], EvidenceType(pair["expected"]))
            for pair in pairs for side in ("claim", "variant")]
    views = [create_view(name) for name in args.views.split(",") if name]
    started = time.perf_counter()
    types = type_rows(rows, views)
    seconds = time.perf_counter() - started
    changed: Counter[str] = Counter()
    edits: Counter[str] = Counter()
    changes = []
    for index, pair in enumerate(pairs):
        claim_type, variant_type = types[2 * index], types[2 * index + 1]
        edits[pair["edit"]] += 1
        if claim_type is not variant_type:
            changed[pair["edit"]] += 1
            changes.append({"id": pair["id"], "edit": pair["edit"], "claim": pair["claim"],
                            "variant": pair["variant"], "claim_type": claim_type.value,
                            "variant_type": variant_type.value,
                            "expected": pair["expected"]})
    right = sum(row.expected is kind for row, kind in zip(rows, types, strict=True))
    write_report(args.output, "metamorphic", suite=str(args.suite.relative_to(ROOT)),
                 views=[view.name for view in views], seconds=seconds, pairs=len(pairs),
                 type_changes=len(changes),
                 per_edit={edit: {"pairs": edits[edit], "type_changes": changed[edit]}
                           for edit in sorted(edits)},
                 typed_as_expected=right / len(rows),
                 types=dict(Counter(kind.value for kind in types)),
                 changes=changes)
    print(f"{len(changes)} of {len(pairs)} pairs change type; "
          f"{right / len(rows):.3f} of claims typed as expected ({seconds:.1f} s)")


if __name__ == "__main__":
    main()
