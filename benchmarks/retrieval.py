"""Retrieval benchmark on SciFact: quality, ingestion speed and query speed.

Ingests the full SciFact corpus (5,183 abstracts, dense vectors included) into a fresh
store, then runs the 300 dev claims as queries with their cited abstracts as the relevant
documents. Reports recall@5, recall@10 and nDCG@10 for BM25, dense and hybrid retrieval;
ingestion documents/s; queries/s per retriever; and rank-bm25 over the same chunks and
tokens in the same run, as a speed ratio.

    python benchmarks/retrieval.py [--data-dir DIR] [--store URL] [--output FILE]

The data directory defaults to $VERITYPE_DATA_DIR, else ../shared/data beside the repo.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer
from rank_bm25 import BM25Okapi
from rich.console import Console

from veritype._cli import rich_progress
from veritype.ingest import DEFAULT_CHUNKING, DEFAULT_INDEXES, Corpus
from veritype.retrieval import DEFAULT_RRF_K, BM25Index, ScoredChunk
from veritype.store import Chunking, IndexSpec

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = REPO / "benchmarks" / "results" / "retrieval.json"
CHUNK_DEPTH = 100


def default_data_dir() -> Path:
    return Path(os.environ.get("VERITYPE_DATA_DIR") or REPO.parent / "shared" / "data")


def load_claims(path: Path) -> list[tuple[str, set[str]]]:
    claims = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        cited = {str(doc_id) for doc_id in row["cited_doc_ids"]}
        if cited:
            claims.append((row["claim"], cited))
    return claims


def ranked_documents(hits: list[ScoredChunk], scifact_id: dict[str, str]) -> list[str]:
    """Chunks → documents in order of their best chunk."""
    return list(dict.fromkeys(scifact_id[hit.chunk.doc_id] for hit in hits))


def ndcg_at(ranking: list[str], relevant: set[str], k: int) -> float:
    gain = sum(1 / math.log2(rank + 2) for rank, doc in enumerate(ranking[:k]) if doc in relevant)
    ideal = sum(1 / math.log2(rank + 2) for rank in range(min(k, len(relevant))))
    return gain / ideal


def quality(
    results: list[list[ScoredChunk]],
    claims: list[tuple[str, set[str]]],
    scifact_id: dict[str, str],
) -> dict[str, float]:
    recall5, recall10, ndcg10 = [], [], []
    for hits, (_, relevant) in zip(results, claims, strict=True):
        ranking = ranked_documents(hits, scifact_id)
        recall5.append(len(relevant & set(ranking[:5])) / len(relevant))
        recall10.append(len(relevant & set(ranking[:10])) / len(relevant))
        ndcg10.append(ndcg_at(ranking, relevant, 10))
    return {
        "recall@5": round(float(np.mean(recall5)), 4),
        "recall@10": round(float(np.mean(recall10)), 4),
        "ndcg@10": round(float(np.mean(ndcg10)), 4),
    }


def queries_per_second(run: Any, queries: Sequence[str], repeats: int = 3) -> float:
    best = math.inf
    for _ in range(repeats):
        started = time.perf_counter()
        run(queries)
        best = min(best, time.perf_counter() - started)
    return round(len(queries) / best, 1)


def rank_bm25_comparison(corpus: Corpus, spec: IndexSpec, queries: list[str]) -> dict[str, Any]:
    """bm25s (through veritype) and rank-bm25 over the same chunks and the same tokens."""
    items = list(corpus.store.iter_chunks(spec.chunking))
    stemmer = Stemmer.Stemmer("english")
    corpus_tokens = bm25s.tokenize(
        [item.index_text for item in items],
        stopwords="en",
        stemmer=stemmer,
        return_ids=False,
        show_progress=False,
    )
    query_tokens = bm25s.tokenize(
        queries, stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
    )
    okapi = BM25Okapi(corpus_tokens)

    def rank_bm25_top10(batch: Sequence[str]) -> None:
        for tokens in query_tokens[: len(batch)]:
            scores = okapi.get_scores(tokens)
            np.argpartition(-scores, 10)[:10]

    index = BM25Index.refresh(corpus.store, spec)
    retriever = corpus.retriever(spec.name)
    rank_bm25_qps = queries_per_second(rank_bm25_top10, queries, repeats=1)
    veritype_qps = queries_per_second(lambda batch: retriever.retrieve_batch(batch, 10), queries)
    bm25s_only_qps = queries_per_second(lambda batch: index.search(batch, 10), queries)
    return {
        "chunks": len(items),
        "rank_bm25_qps": rank_bm25_qps,
        "veritype_bm25_qps": veritype_qps,
        "bm25s_search_only_qps": bm25s_only_qps,
        "speedup_veritype_vs_rank_bm25": round(veritype_qps / rank_bm25_qps, 1),
        "speedup_bm25s_search_vs_rank_bm25": round(bm25s_only_qps / rank_bm25_qps, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    parser.add_argument("--store", help="store URL (default: a fresh SQLite file)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--chunk-chars",
        type=int,
        default=None,
        help="chunk size for both indexes (default: veritype's default)",
    )
    parser.add_argument(
        "--dense-max-tokens",
        type=int,
        default=None,
        help="tokens of each chunk the dense model reads (default 256)",
    )
    parser.add_argument(
        "--rrf-k",
        type=float,
        default=DEFAULT_RRF_K,
        help="reciprocal rank fusion constant of the hybrid retriever",
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N abstracts")
    args = parser.parse_args(argv)

    scifact = args.data_dir / "scifact"
    corpus_file = scifact / "corpus.jsonl"
    if not corpus_file.is_file():
        print(
            f"SciFact not found at {scifact} (set --data-dir or VERITYPE_DATA_DIR)", file=sys.stderr
        )
        return 2
    source = corpus_file
    workdir = Path(tempfile.mkdtemp(prefix="veritype-bench-"))
    if args.limit:
        source = workdir / "corpus.jsonl"
        source.write_text("".join(corpus_file.read_text().splitlines(True)[: args.limit]))
    chunking = Chunking(max_chars=args.chunk_chars) if args.chunk_chars else DEFAULT_CHUNKING
    bm25_spec, dense_spec = DEFAULT_INDEXES
    indexes = [
        replace(bm25_spec, chunking=chunking),
        replace(
            dense_spec, chunking=chunking, max_tokens=args.dense_max_tokens or dense_spec.max_tokens
        ),
    ]
    corpus = Corpus.open(args.store or f"sqlite:///{workdir / 'store.sqlite'}", indexes=indexes)
    console = Console(stderr=True)

    cpu_before, wall_before = time.process_time(), time.perf_counter()
    with rich_progress(console) as progress:
        report = corpus.ingest([source], progress=progress)
    # The 1-minute load average shows how much other work shared the cores meanwhile.
    load_after_ingest = os.getloadavg()[0]
    ingest_wall = time.perf_counter() - wall_before
    ingest_cpu = time.process_time() - cpu_before
    documents = corpus.store.count_documents()

    scifact_id = {
        record.doc_id: record.source.rsplit("#", 1)[1]
        for record in corpus.store.documents(limit=10**9)
    }
    claims = [
        (claim, relevant)
        for claim, relevant in load_claims(scifact / "claims_dev.jsonl")
        if not args.limit or relevant <= set(scifact_id.values())
    ]
    queries = [claim for claim, _ in claims]

    results: dict[str, Any] = {}
    speed: dict[str, float] = {}
    for name in ("bm25", "dense", "hybrid"):
        retriever = (
            corpus.retriever(name, rrf_k=args.rrf_k)
            if name == "hybrid"
            else (corpus.retriever(name))
        )
        hits = retriever.retrieve_batch(queries, CHUNK_DEPTH)
        results[name] = quality(hits, claims, scifact_id)
        speed[name] = queries_per_second(
            lambda batch, r=retriever: r.retrieve_batch(batch, 10), queries
        )
    bm25_spec = corpus.index("bm25")
    comparison = rank_bm25_comparison(corpus, bm25_spec, queries)

    output = {
        "dataset": "SciFact corpus (5,183 abstracts), dev claims as queries, cited abstracts "
        "relevant"
        if not args.limit
        else f"SciFact first {args.limit} abstracts",
        "documents": documents,
        "chunks": {spec.name: corpus.store.count_chunks(spec.chunking) for spec in corpus.indexes},
        "queries": len(queries),
        "layout": [spec.to_dict() for spec in corpus.indexes],
        "hybrid": {"parts": corpus.hybrid_parts(), "rrf_k": args.rrf_k},
        "quality": results,
        "ingest": {
            "seconds_wall": round(ingest_wall, 1),
            "seconds_cpu": round(ingest_cpu, 1),
            "documents_per_second_wall": round(documents / ingest_wall, 1),
            "documents_per_second_cpu_over_cores": round(
                documents / (ingest_cpu / (os.cpu_count() or 1)), 1
            ),
            "added": report.added,
            "load_average_1min_at_end": round(load_after_ingest, 2),
        },
        "queries_per_second": speed,
        "bm25_vs_rank_bm25": comparison,
        "machine": {
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "processor": platform.processor() or platform.machine(),
        },
        "command": "python benchmarks/retrieval.py" + (" " + " ".join(argv) if argv else ""),
    }
    corpus.close()
    print(json.dumps(output, indent=2))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(output, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
