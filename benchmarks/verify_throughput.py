"""How many claim–evidence pairs the default views verify per second, and the quality each
speed buys, side by side in one run.

Every claim of the type contract (``benchmarks/data/type_contract.jsonl``: 360 hand-written
claims, each against its own passage of about five sentences) is typed by the default views
and aggregator, with the ``nli`` model reading at most ``max_windows`` two-sentence windows
per claim (6 by default; fewer windows cost fewer model calls), at the shipped model's own
batch size (1, chosen for its dynamically quantised graph) and at batch 8. Each setting
gets fresh views (no cached scores) and is timed over its whole batched run, model loading
excluded. The quality is the contract's share typed as expected.

    python benchmarks/verify_throughput.py [--max-windows 6,3,2,1] [--batches 1,8]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _common import ROOT, write_report

from veritype.aggregate import DEFAULT_VIEWS
from veritype.evaluation.contract import contract_report, load_contract, type_rows
from veritype.models.encoder_views import CrossEncoderView
from veritype.views import VerificationView, create_view

SUITE = ROOT / "benchmarks" / "data" / "type_contract.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-windows", default="6,3,2,1")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "verify_throughput.json")
    args = parser.parse_args()
    rows = load_contract(SUITE)
    settings = []
    for batch in (int(n) for n in args.batches.split(",") if n):
        for max_windows in (int(n) for n in args.max_windows.split(",") if n):
            type_rows(rows[:8], _views(max_windows, batch))  # a first run pays its set-up
            views = _views(max_windows, batch)
            started = time.perf_counter()
            report = contract_report(rows, type_rows(rows, views))
            seconds = time.perf_counter() - started
            settings.append({"batch_size": batch, "max_windows": max_windows,
                             "pairs": len(rows), "seconds": round(seconds, 3),
                             "pairs_per_second": round(len(rows) / seconds, 1),
                             "contract_share": round(report["share"], 3)})
            print(settings[-1])
    write_report(args.output, "verify_throughput", views=list(DEFAULT_VIEWS),
                 suite=str(SUITE.relative_to(ROOT)), settings=settings,
                 target_pairs_per_second=100.0)


def _views(max_windows: int, batch: int) -> list[VerificationView]:
    """Fresh default views, ``nli`` reading ``max_windows`` windows ``batch`` pairs a run."""
    views = [create_view(name, **({"max_windows": max_windows} if name == "nli" else {}))
             for name in DEFAULT_VIEWS]
    for view in views:
        if isinstance(view, CrossEncoderView):
            view.encoder.batch_size = batch
    return views


if __name__ == "__main__":
    main()
