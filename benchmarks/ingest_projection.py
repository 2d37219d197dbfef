"""Projected ingest times for 1 and 10 GB of text on 1, 4 and 16 Ray workers, from measured
rates: nothing here is run, every figure is arithmetic on two result files.

* chunks per GB: ``ingest_scaling.json`` (1,000-character chunks of the 10 MB prose file);
* chunks per second per worker: ``ingest_ray.json`` (one Ray worker on a 2-core machine,
  default layout: BM25 plus the MiniLM dense index, into PostgreSQL), beside the local ingest's
  rate as the rate without Ray;
* the store's write rate (one driver writing every batch): ``ingest_ray.json``.

The projection assumes each worker has 2 cores of its own, as the measured one had, and that
workers scale linearly until the driver's writes are the limit; neither was measured above 2
workers, nor were store writes into a table of millions of vectors.

Run: ``python benchmarks/ingest_projection.py`` (writes
``benchmarks/results/ingest_projection.json``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from _common import ROOT, write_report

RESULTS = ROOT / "benchmarks" / "results"
SIZES_GB = (1, 10)
WORKERS = (1, 4, 16)


def project(chunks_per_gb: float, per_worker: float, store_limit: float) -> list[dict[str, Any]]:
    rows = []
    for gb in SIZES_GB:
        for workers in WORKERS:
            rate = min(per_worker * workers, store_limit)
            rows.append({
                "gb": gb,
                "workers": workers,
                "chunks": round(chunks_per_gb * gb),
                "chunks_per_second": round(rate, 1),
                "limited_by_store_writes": per_worker * workers > store_limit,
                "hours": round(chunks_per_gb * gb / rate / 3600, 1),
            })
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=RESULTS / "ingest_projection.json")
    args = parser.parse_args(argv)
    scaling = json.loads((RESULTS / "ingest_scaling.json").read_text())
    ray = json.loads((RESULTS / "ingest_ray.json").read_text())["runs"]
    prose = next(run for run in scaling["runs"] if run["kind"] == "prose" and run["mb"] == 10)
    chunks_per_gb = prose["chunks"] / prose["file_bytes"] * 1e9
    one_worker = ray["ray_1_workers"]["chunks_per_second"]
    store_limit = ray["ray_1_workers"]["store_chunks_per_second"]
    write_report(
        args.output, "ingest_projection",
        projected=True,
        measured={
            "chunks_per_gb": round(chunks_per_gb),
            "chunks_per_gb_from": f"ingest_scaling.json, prose {prose['mb']} MB: "
                                  f"{prose['chunks']} chunks in {prose['file_bytes']} bytes",
            "chunks_per_second_per_worker": one_worker,
            "chunks_per_second_local": ray["local"]["chunks_per_second"],
            "chunks_per_second_from": "ingest_ray.json: ray_1_workers and local, 2 cores",
            "store_chunks_per_second": store_limit,
        },
        assumptions="each worker on 2 cores of its own; linear in workers up to the store's "
                    "measured write rate (one driver writes); write rate as measured on a "
                    "small table",
        ray_workers=project(chunks_per_gb, one_worker, store_limit),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
