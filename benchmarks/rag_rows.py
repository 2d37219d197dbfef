"""``veritype check`` on hand-labelled RAG rows (``benchmarks/data/rag_rows.jsonl``): each
row's verdict against its label. A bad row is caught when it is typed unfaithful or
uncertain (needs review), and passed when faithful; a good row should be faithful. Reports
both counts, the rows passed wrongly, and each row's outcome, for the default views or any
others (``--views numeric,nli,judge`` with the judge extra).

    python benchmarks/rag_rows.py [--views numeric,nli] [--output FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from _common import ROOT, write_report

from veritype.checking import DEFAULT_VIEWS, CheckSettings, check
from veritype.evaluation.data import read_jsonl

ROWS = ROOT / "benchmarks" / "data" / "rag_rows.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=Path, default=ROWS)
    parser.add_argument("--views", default=",".join(DEFAULT_VIEWS))
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "rag_rows.json")
    args = parser.parse_args()
    rows = list(read_jsonl(args.rows))
    views = tuple(name for name in args.views.split(",") if name)
    started = time.perf_counter()
    result = check([{key: row[key] for key in ("question", "answer", "contexts")}
                    for row in rows], settings=CheckSettings(views=views))
    seconds = time.perf_counter() - started
    outcomes = []
    for row, checked in zip(rows, result.rows, strict=True):
        verdict = checked.verdict.value
        outcomes.append({"id": row["id"], "label": row["label"], "kind": row.get("kind"),
                         "verdict": verdict,
                         "flagged": verdict in ("unfaithful", "uncertain"),
                         "faithfulness": checked.faithfulness})
    bad = [o for o in outcomes if o["label"] == "unfaithful"]
    good = [o for o in outcomes if o["label"] == "faithful"]
    figures = {
        "bad_rows": len(bad),
        "bad_rows_unfaithful": sum(o["verdict"] == "unfaithful" for o in bad),
        "bad_rows_flagged": sum(o["flagged"] for o in bad),
        "bad_rows_passed": sum(o["verdict"] == "faithful" for o in bad),
        "good_rows": len(good),
        "good_rows_faithful": sum(o["verdict"] == "faithful" for o in good),
        "good_rows_uncertain": sum(o["verdict"] == "uncertain" for o in good),
        "good_rows_unfaithful": sum(o["verdict"] == "unfaithful" for o in good),
    }
    write_report(args.output, "rag_rows", rows=str(args.rows.relative_to(ROOT)),
                 views=list(views), seconds=seconds, tau=result.thresholds.tau,
                 tau_low=result.thresholds.tau_low, **figures,
                 bad_rows_passed_ids=[o["id"] for o in bad if o["verdict"] == "faithful"],
                 outcomes=outcomes)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
