"""The type contract (``benchmarks/data/type_contract.jsonl``): the share of hand-written
claims typed as a demanding user expects, per category, for the default views and
aggregator beside each single view alone (typed by its own verdict: entailed → Verified,
anything else → Unsupported) and the verbatim-substring baseline (a claim found word for word
in its passage → Verified, anything else → Unsupported).

With ``--judge`` the default views plus the ``judge`` view (the judge extra) are run too:
the default aggregator's judge head types the claims the encoders leave Uncertain.

The attribution swaps (``attribution_swaps.jsonl``: right names in the wrong roles, and
controls that keep them) are typed with the contract by default.

    python benchmarks/type_contract.py [--views nli] [--single numeric,lexical,nli,align]
                                       [--judge]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _common import ROOT, write_report

from veritype.aggregate import VoteAggregator
from veritype.checking import DEFAULT_VIEWS
from veritype.evaluation.contract import contract_report, load_contract, type_rows
from veritype.graph import EvidenceType
from veritype.thresholds import Thresholds
from veritype.views import create_view

SUITES = [ROOT / "benchmarks" / "data" / "type_contract.jsonl",
          ROOT / "benchmarks" / "data" / "attribution_swaps.jsonl"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", type=Path, nargs="+", default=SUITES,
                        help="contract files, typed together")
    parser.add_argument("--views", default=",".join(DEFAULT_VIEWS))
    parser.add_argument("--single", default="numeric,lexical,nli,align")
    parser.add_argument("--judge", action="store_true",
                        help="also type the contract with the judge view added")
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "type_contract.json")
    args = parser.parse_args()
    rows = [row for suite in args.suite for row in load_contract(suite)]
    names = [name for name in args.views.split(",") if name]
    views = [create_view(name) for name in names]
    started = time.perf_counter()
    default = contract_report(rows, type_rows(rows, views))
    seconds = time.perf_counter() - started
    with_judge = None
    if args.judge:
        started = time.perf_counter()
        judged = contract_report(rows, type_rows(rows, [*views, create_view("judge")]))
        with_judge = {**judged, "seconds": time.perf_counter() - started}
    singles = {}
    for name in (n for n in args.single.split(",") if n):
        view = next((v for v in views if v.name == name), None) or create_view(name)
        types = type_rows(rows, [view], VoteAggregator(), Thresholds(0.5, 0.49))
        report = contract_report(rows, types)
        singles[name] = {key: report[key] for key in ("share", "lenient_share", "per_category",
                                                      "verified_precision", "decided")}
    verbatim = [EvidenceType.VERIFIED if " ".join(row.claim.lower().split()).rstrip(".")
                in " ".join(row.evidence.lower().split()) else EvidenceType.UNSUPPORTED
                for row in rows]
    baseline = contract_report(rows, verbatim)
    write_report(args.output, "type_contract",
                 suites=[str(suite.resolve().relative_to(ROOT)) for suite in args.suite],
                 views=names, seconds=seconds,
                 default=default,
                 with_judge=with_judge,
                 single_views=singles,
                 verbatim_baseline={key: baseline[key] for key in ("share", "per_category")},
                 accept_all_share=sum(r.expected is EvidenceType.VERIFIED for r in rows)
                 / len(rows))


if __name__ == "__main__":
    main()
