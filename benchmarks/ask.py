"""End-to-end latency of ``Engine.ask`` on the bundled demo corpus, per generator.

Queries are the SciFact dev claims whose cited abstracts are in the demo corpus. For each
generator the script reports p50/p95 of the whole ask and a per-stage breakdown, the share
of answers that abstained, and checks zero confabulation (P2) on every answer against the
evidence recorded in its trace. Run: ``python benchmarks/ask.py [--generators extractive,local]``
(build llama.cpp without OpenMP, as the README's install line for the ``llm`` extra does,
for its fastest decoding).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from veritype._cli import rich_progress
from veritype.answer import confabulation_problems
from veritype.engine import Engine, EngineConfig
from veritype.evidence import Chunk, EvidencePack
from veritype.ingest.corpus import demo_corpus_path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data"))
TARGETS_P50_S = {"extractive": 1.5, "local": 5.0}


def demo_queries(data_dir: Path, limit: int) -> list[str]:
    demo_ids = {
        json.loads(line)["doc_id"]
        for line in demo_corpus_path().read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    queries: list[str] = []
    with (data_dir / "scifact" / "claims_dev.jsonl").open(encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            if {str(doc) for doc in row.get("cited_doc_ids", [])} & demo_ids:
                queries.append(row["claim"])
    return queries[:limit]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


def evidence_of(trace: dict[str, Any]) -> EvidencePack:
    chunks = [
        Chunk(e["chunk_id"], e["doc_id"], e["start"], e["end"], e["text"])
        for e in trace["evidence"]
    ]
    return EvidencePack(chunks=chunks, documents={})


def run_generator(
    name: str, store: str, queries: list[str], console: Console
) -> dict[str, Any]:
    config = EngineConfig(store=store, generator=name)
    with Engine(config) as engine:
        engine.ask(queries[0])  # load models and indexes before timing
        totals: list[float] = []
        stages: dict[str, list[float]] = {}
        confidences: Counter[str] = Counter()
        problems: list[str] = []
        abstained = rendered = claims = 0
        progress = Progress(
            TextColumn(f"ask · {name}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
            TimeRemainingColumn(), console=console,
        )
        with progress:
            task = progress.add_task(name, total=len(queries))
            for query in queries:
                started = time.perf_counter()
                grounded = engine.ask(query)
                totals.append(time.perf_counter() - started)
                for stage, seconds in grounded.timings.items():
                    if stage != "total_s":
                        stages.setdefault(stage, []).append(seconds)
                trace = engine.trace(grounded.trace_id)
                assert trace is not None
                problems.extend(
                    f"{query[:60]}: {problem}"
                    for problem in confabulation_problems(grounded, evidence_of(trace))
                )
                confidences[grounded.confidence.value] += 1
                abstained += grounded.abstained
                claims += len(grounded.claims)
                rendered += sum(claim.rendered for claim in grounded.claims)
                progress.advance(task)
    p50 = statistics.median(totals)
    return {
        "generator": name,
        "queries": len(queries),
        "p50_s": p50,
        "p95_s": percentile(totals, 0.95),
        "mean_s": statistics.fmean(totals),
        "target_p50_s": TARGETS_P50_S.get(name),
        "meets_target": p50 <= TARGETS_P50_S.get(name, float("inf")),
        "stage_mean_s": {stage: statistics.fmean(values) for stage, values in stages.items()},
        "stage_p50_s": {stage: statistics.median(values) for stage, values in stages.items()},
        "abstained": abstained,
        "claims": claims,
        "rendered_claims": rendered,
        "confidence": dict(confidences),
        "confabulation_problems": problems,
        "zero_confabulation": not problems,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--generators", default="extractive,local")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "ask.json")
    args = parser.parse_args()
    console = Console(stderr=True)
    queries = demo_queries(args.data_dir, args.queries)
    if not queries:
        sys.exit(f"no SciFact dev claim cites a demo abstract under {args.data_dir}")
    with tempfile.TemporaryDirectory() as folder:
        store = f"sqlite:///{Path(folder) / 'store.sqlite'}"
        started = time.perf_counter()
        with rich_progress(console) as progress, Engine(
                EngineConfig(store=store, demo=True), progress=progress):
            pass
        ingest_s = time.perf_counter() - started
        results = [
            run_generator(name.strip(), store, queries, console)
            for name in args.generators.split(",") if name.strip()
        ]
    report = {
        "benchmark": "ask",
        "corpus": "bundled demo corpus (283 SciFact abstracts)",
        "queries": "SciFact dev claims citing a demo abstract",
        "views": EngineConfig().views,
        "ingest_s": ingest_s,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_1m_before": os.getloadavg()[0],
            "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "default (passive)"),
        },
        "results": results,
    }
    for result in results:
        console.print(
            f"{result['generator']}: p50 {result['p50_s']:.2f} s, p95 {result['p95_s']:.2f} s "
            f"(target p50 ≤ {result['target_p50_s']} s), abstained {result['abstained']}/"
            f"{result['queries']}, zero confabulation: {result['zero_confabulation']}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
