"""The whole SciFact corpus ingested into PostgreSQL locally and on Ray with 2 local workers:
the same chunks, the same vectors and the same retrieval figures.

The 5,183 abstracts (``--data-dir`` or ``$VERITYPE_DATA_DIR``; ``--limit`` takes the first N)
are split into ``--files`` JSON Lines files in a temporary folder and ingested in the default
layout (BM25 plus the MiniLM dense index) into two fresh databases on one server:
``--postgres-url`` (a server whose user may create databases), else one the ``pgserver``
package starts in a temporary folder, as the test suite does. One ingest runs in this
process, the other on a local Ray cluster with ``--workers`` actors (its start timed apart).

Then the two stores are compared chunk by chunk (id, document, start, end, text, for every
chunking of the layout) and vector by vector (largest absolute difference), and the SciFact
dev claims are run on each as ``benchmarks/retrieval.py`` runs them: recall@5, recall@10 and
nDCG@10 of BM25, dense and hybrid retrieval, a claim's cited abstracts being the relevant
documents. The load average says how much other work shared the cores.

Run: ``python benchmarks/ingest_ray_scifact.py [--workers 2 --files 8]`` (writes
``benchmarks/results/ingest_ray_scifact.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import add_data_dir, write_report
from ingest_ray import fresh_database, split_corpus
from retrieval import CHUNK_DEPTH, load_claims, quality

from veritype.ingest import Corpus, IngestEngine, create_ingest_engine

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "ingest_ray_scifact.json"
RETRIEVERS = ("bm25", "dense", "hybrid")


def ingest(url: str, folder: Path, engine: IngestEngine | None, index_dir: Path
           ) -> dict[str, Any]:
    with Corpus.open(url, index_dir=index_dir) as corpus:
        load_before = os.getloadavg()[0]
        report = corpus.ingest([folder], engine=engine)
        return {
            "documents": report.added,
            "chunks": report.chunks,
            "seconds": round(report.seconds, 1),
            "chunks_per_second": round(report.chunks / report.seconds, 1),
            "load_average_before_after": [round(load_before, 2),
                                          round(os.getloadavg()[0], 2)],
        }


def contents(url: str, index_dir: Path) -> dict[str, Any]:
    """Every chunk of each chunking as (id, document, start, end, text), sorted, and each
    dense index's vectors by chunk id."""
    with Corpus.open(url, index_dir=index_dir) as corpus:
        chunks = {
            spec.chunking.key: sorted(
                (item.chunk.chunk_id, item.chunk.doc_id, item.chunk.start, item.chunk.end,
                 item.chunk.text)
                for item in corpus.store.iter_chunks(spec.chunking))
            for spec in corpus.indexes
        }
        vectors = {}
        for spec in corpus.indexes:
            if spec.kind == "dense":
                ids, matrix = corpus.store.vectors(spec)
                vectors[spec.name] = dict(zip(ids, matrix, strict=True))
    return {"chunks": chunks, "vectors": vectors}


def compare(local: dict[str, Any], ray: dict[str, Any]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for key, rows in local["chunks"].items():
        other = ray["chunks"].get(key, [])
        figures[f"chunking {key}"] = {
            "chunks_local": len(rows),
            "chunks_ray": len(other),
            "same_chunk_ids": [r[0] for r in rows] == [r[0] for r in other],
            "same_documents_and_spans": [r[:4] for r in rows] == [r[:4] for r in other],
            "same_texts": rows == other,
        }
    for name, by_id in local["vectors"].items():
        other = ray["vectors"].get(name, {})
        same_ids = sorted(by_id) == sorted(other)
        figures[f"vectors {name}"] = {
            "vectors_local": len(by_id),
            "vectors_ray": len(other),
            "same_chunk_ids": same_ids,
            "max_abs_difference": (
                float(max(np.max(np.abs(vector - other[i])) for i, vector in by_id.items()))
                if same_ids and by_id else None),
        }
    return figures


def retrieval(url: str, index_dir: Path, claims_file: Path) -> dict[str, Any]:
    """The dev claims whose cited abstracts are all stored, as retrieval.py scores them."""
    with Corpus.open(url, index_dir=index_dir) as corpus:
        scifact_id = {record.doc_id: record.source.rsplit("#", 1)[1]
                      for record in corpus.store.documents(limit=10**9)}
        claims = [(claim, relevant) for claim, relevant in load_claims(claims_file)
                  if relevant <= set(scifact_id.values())]
        queries = [claim for claim, _ in claims]
        figures: dict[str, Any] = {"queries": len(queries)}
        for name in RETRIEVERS:
            hits = corpus.retriever(name).retrieve_batch(queries, CHUNK_DEPTH)
            figures[name] = quality(hits, claims, scifact_id)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--limit", type=int, default=0,
                        help="only the first N abstracts (default: all 5,183)")
    parser.add_argument("--files", type=int, default=8, help="files to split them into")
    parser.add_argument("--workers", type=int, default=2, help="Ray actors")
    parser.add_argument("--postgres-url", help="a server to create the databases on")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    scifact = args.data_dir / "scifact"
    if not (scifact / "corpus.jsonl").is_file():
        print(f"SciFact not found at {scifact} (set --data-dir or VERITYPE_DATA_DIR)",
              file=sys.stderr)
        return 2
    import psycopg
    import ray

    work = Path(tempfile.mkdtemp(prefix="veritype-ingest-ray-scifact-"))
    folder = work / "docs"
    folder.mkdir()
    abstracts = split_corpus(scifact / "corpus.jsonl", args.limit, args.files, folder)
    server = None
    admin_url = args.postgres_url
    if admin_url is None:
        import pgserver

        server = pgserver.get_server(work / "pgdata", cleanup_mode="stop")
        admin_url = server.get_uri()
    runs: dict[str, Any] = {}
    try:
        local_url = fresh_database(admin_url, "scifact_local")
        runs["local"] = ingest(local_url, folder, None, work / "local")
        print(json.dumps({"local": runs["local"]}), file=sys.stderr, flush=True)
        started = time.perf_counter()
        engine = create_ingest_engine("ray", workers=args.workers)
        start_seconds = time.perf_counter() - started
        ray_url = fresh_database(admin_url, "scifact_ray")
        try:
            result = ingest(ray_url, folder, engine, work / "ray")
        finally:
            ray.shutdown()
        ray_name = f"ray_{args.workers}_workers"
        runs[ray_name] = {"ray_start_seconds": round(start_seconds, 2), **result}
        print(json.dumps({ray_name: runs[ray_name]}), file=sys.stderr, flush=True)
        identity = compare(contents(local_url, work / "local"), contents(ray_url, work / "ray"))
        claims_file = scifact / "claims_dev.jsonl"
        quality_by_run = {"local": retrieval(local_url, work / "local", claims_file),
                          ray_name: retrieval(ray_url, work / "ray", claims_file)}
    finally:
        if server is not None:
            server.cleanup()
    same_chunks = all(value for figures in identity.values()
                      for key, value in figures.items() if key.startswith("same_"))
    vector_difference = max((figures["max_abs_difference"] for figures in identity.values()
                             if figures.get("max_abs_difference") is not None), default=None)
    same_recall = all(
        quality_by_run["local"][name]["recall@10"] == quality_by_run[ray_name][name]["recall@10"]
        for name in RETRIEVERS)
    write_report(
        args.output, "ingest_ray_scifact",
        corpus=(f"SciFact, {abstracts} abstracts in {args.files} JSON Lines files"),
        layout="default (BM25 + MiniLM dense, 1,000-character chunks)",
        store="PostgreSQL (pgvector), a fresh database per run, one server",
        queries="SciFact dev claims with cited abstracts (relevant: the cited abstracts)",
        # The machine's versions leave these out.
        versions={"ray": ray.__version__, "psycopg": psycopg.__version__},
        runs=runs,
        same_chunk_ids_spans_and_texts=same_chunks,
        vectors_max_abs_difference=vector_difference,
        same_recall_at_10=same_recall,
        identity=identity,
        retrieval=quality_by_run,
        command="python benchmarks/ingest_ray_scifact.py"
                + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip(),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
