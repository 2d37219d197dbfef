"""Dense search at scale: latency of a top-10 search and its recall against exact search.

Synthetic unit vectors (dimension 384, float32, standard normal rows scaled to unit length,
fixed seed) at each ``--sizes``, queried by fresh vectors of the same distribution: the
hardest case for a graph index, as such vectors have no clusters to follow. Measured on the
paths the stores search by:

* in memory (``veritype.store._vectors``, the SQLite store): exact search and the usearch HNSW
  index the store builds above ``DEFAULT_ANN_THRESHOLD`` vectors (up to ``--hnsw-max``: its
  build takes long on few cores), with its build and reload times and a sweep of
  ``expansion_search``;
* PostgreSQL (``--postgres``, sizes up to ``--postgres-max``): ``PostgresStore.search_vectors``
  on pgvector's HNSW index, the vectors written through the store as an ingest writes them,
  at the store's ``ef_search`` and a sweep of it.

Then recall on real embeddings: the first ``--real-docs`` SciFact abstracts and the dev claims,
embedded by the default model, with the HNSW index forced on them. Latency is per query, one
query at a time, after ``--warmup`` queries; recall@10 is the share of the exact top 10 found.

Run: ``python benchmarks/vector_search.py --sizes 10000 100000 1000000 --hnsw-max 100000
--postgres --postgres-max 10000 --real-docs 3000`` (writes
``benchmarks/results/vector_search.json``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT, add_data_dir, write_report

from veritype.evidence import Chunk, Document
from veritype.retrieval.embedding import DEFAULT_EMBEDDER, create_embedder
from veritype.store import (
    Chunking,
    ChunkVectors,
    DocumentRecord,
    DocumentWrite,
    IndexSpec,
    Vectors,
)
from veritype.store._vectors import DEFAULT_ANN_THRESHOLD, AnnIndex, ExactIndex

DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "vector_search.json"
DIM = 384
K = 10
Search = Callable[[Vectors], list[list[tuple[str, float]]]]


def unit_vectors(rng: np.random.Generator, count: int, dim: int) -> Vectors:
    """``count`` standard normal rows scaled to unit length, made in blocks to bound memory."""
    out = np.empty((count, dim), dtype=np.float32)
    for start in range(0, count, 100_000):
        block = rng.standard_normal((min(100_000, count - start), dim), dtype=np.float32)
        out[start : start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def exact_top(index: ExactIndex, queries: Vectors) -> list[set[str]]:
    """The exact top ``K`` ids of each query, in batches (a batch scores every vector)."""
    truth: list[set[str]] = []
    for start in range(0, len(queries), 20):
        truth.extend({i for i, _ in row} for row in index.search(queries[start : start + 20], K))
    return truth


def timed(search: Search, queries: Vectors, truth: list[set[str]], warm: Vectors
          ) -> dict[str, Any]:
    """p50/p95 latency of one query at a time (after the ``warm`` ones), and mean recall@K
    against ``truth``."""
    for query in warm:
        search(query[None, :])
    latencies, recalls = [], []
    for query, relevant in zip(queries, truth, strict=True):
        started = time.perf_counter()
        found = search(query[None, :])[0]
        latencies.append(time.perf_counter() - started)
        recalls.append(len({i for i, _ in found} & relevant) / K)
    ms = np.asarray(latencies) * 1000
    return {
        "queries": len(queries),
        "p50_ms": round(float(np.percentile(ms, 50)), 2),
        "p95_ms": round(float(np.percentile(ms, 95)), 2),
        "recall_at_10": round(float(np.mean(recalls)), 4),
    }


def exact_search(ids: list[str], vectors: Vectors, queries: Vectors, warm: Vectors
                 ) -> tuple[dict[str, Any], list[set[str]]]:
    """The exact index's figures and the exact top ``K`` of each query (its normalised copy
    of the vectors is freed on return)."""
    exact = ExactIndex(ids, vectors)
    truth = exact_top(exact, queries)
    return timed(lambda q: exact.search(q, K), queries, truth, warm), truth


def in_memory(ids: list[str], vectors: Vectors, queries: Vectors, warm: Vectors, folder: Path,
              sweep: list[int]) -> tuple[dict[str, Any], list[set[str]]]:
    """Exact search, then the HNSW index the store builds (and reloads) over ``vectors``."""
    exact, truth = exact_search(ids, vectors, queries, warm)
    figures: dict[str, Any] = {"exact": exact}
    started = time.perf_counter()
    ann = AnnIndex(ids, vectors, path=folder / "ann.usearch", generation=1)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    AnnIndex(ids, vectors, path=folder / "ann.usearch", generation=1)
    reload_s = time.perf_counter() - started
    figures["hnsw"] = {
        "connectivity": int(ann.index.connectivity),
        "expansion_add": int(ann.index.expansion_add),
        "expansion_search": int(ann.index.expansion_search),
        "build_s": round(build_s, 1),
        "reload_s": round(reload_s, 2),
        **timed(lambda q: ann.search(q, K), queries, truth, warm),
    }
    figures["hnsw_expansion_search_sweep"] = expansion_sweep(ann, queries, truth, warm, sweep)
    return figures, truth


def expansion_sweep(ann: AnnIndex, queries: Vectors, truth: list[set[str]], warm: Vectors,
                    sweep: list[int]) -> list[dict[str, Any]]:
    """The same graph searched wider or narrower: what each setting costs and finds."""
    rows = []
    for expansion in sweep:
        ann.index.expansion_search = expansion
        rows.append({"expansion_search": expansion,
                     **timed(lambda q: ann.search(q, K), queries, truth, warm)})
    return rows


def _write(doc: int, ids: list[str], vectors: Vectors, chunking: Chunking) -> DocumentWrite:
    """One document holding ``len(ids)`` one-character chunks and their vectors."""
    text = "x" * len(ids)
    document = Document(doc_id=f"doc{doc}", text=text, source=f"synthetic/{doc}")
    chunks = [Chunk(chunk_id, document.doc_id, n, n + 1, "x") for n, chunk_id in enumerate(ids)]
    return DocumentWrite(
        record=DocumentRecord(document, origin="synthetic", media_type="text/plain",
                              fingerprint=f"fp{doc}", added_at=0.0),
        chunks={chunking.key: chunks},
        vectors={"dense": ChunkVectors(ids, vectors)},
    )


@contextmanager
def postgres_server(admin_url: str | None) -> Iterator[str]:
    """``admin_url``, else the URL of a server ``pgserver`` starts for the run."""
    if admin_url is not None:
        yield admin_url
        return
    import pgserver

    with tempfile.TemporaryDirectory() as work:
        server = pgserver.get_server(Path(work) / "pgdata", cleanup_mode="stop")
        try:
            yield server.get_uri()
        finally:
            server.cleanup()


def fresh_database(admin_url: str, name: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name}")
        connection.execute(f"CREATE DATABASE {name}")
    return urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))


def pgvector(admin_url: str, name: str, ids: list[str], vectors: Vectors, queries: Vectors,
             truth: list[set[str]], warm: Vectors, folder: Path, sweep: list[int]
             ) -> dict[str, Any]:
    """The vectors written through ``PostgresStore`` (10,000 chunks a document), then its
    ``search_vectors`` at its default ``ef_search`` and at each of ``sweep`` (up to
    pgvector's limit of 1000)."""
    from veritype.store.postgres import PostgresStore

    chunking = Chunking()
    spec = IndexSpec("dense", "dense", chunking, model="synthetic")
    url = fresh_database(admin_url, name)
    with PostgresStore(url, index_dir=folder) as store:
        started = time.perf_counter()
        step = 10_000
        for doc, start in enumerate(range(0, len(ids), step)):
            store.write([_write(doc, ids[start : start + step], vectors[start : start + step],
                                chunking)])
        write_s = time.perf_counter() - started
        figures: dict[str, Any] = {
            "write_s": round(write_s, 1),
            "chunks_per_second": round(len(ids) / write_s, 1),
            "ef_search": store.ef_search,
            **timed(lambda q: store.search_vectors(spec, q, K), queries, truth, warm),
        }
    figures["ef_search_sweep"] = []
    for ef_search in (value for value in sweep if value <= 1000):
        with PostgresStore(url, index_dir=folder, ef_search=ef_search) as wider:
            figures["ef_search_sweep"].append({
                "ef_search": ef_search,
                **timed(lambda q: wider.search_vectors(spec, q, K), queries, truth, warm)})
    return figures


@dataclass(frozen=True)
class Embedded:
    """SciFact abstracts and dev claims, embedded."""

    vectors: Vectors
    claims: Vectors
    description: str
    embed_s: float


def embed_scifact(data_dir: Path, docs: int) -> Embedded:
    """The first ``docs`` abstracts (title and text) and the dev claims, embedded by the
    default model."""
    scifact = data_dir / "scifact"
    texts: list[str] = []
    with (scifact / "corpus.jsonl").open(encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            texts.append(f"{row['title']}\n{' '.join(row['abstract'])}")
            if len(texts) == docs:
                break
    with (scifact / "claims_dev.jsonl").open(encoding="utf-8") as rows:
        claims = [json.loads(line)["claim"] for line in rows if line.strip()]
    embedder = create_embedder(DEFAULT_EMBEDDER)
    started = time.perf_counter()
    vectors = embedder.embed_batch(texts)
    embed_s = time.perf_counter() - started
    return Embedded(vectors, embedder.embed_batch(claims),
                    f"SciFact, first {len(texts)} abstracts (title and abstract), embedded by "
                    f"{DEFAULT_EMBEDDER}; queries: dev claims", embed_s)


def real_corpus(embedded: Embedded, folder: Path, warmup: int, admin_url: str | None,
                sweep: list[int]) -> dict[str, Any]:
    """HNSW (and pgvector) against exact search on the embedded SciFact abstracts."""
    vectors = embedded.vectors
    warm, queries = embedded.claims[:warmup], embedded.claims[warmup:]
    ids = [f"scifact{n}" for n in range(len(vectors))]
    exact = ExactIndex(ids, vectors)
    truth = exact_top(exact, queries)
    # Far below the store's threshold: forced here, to see what the graph loses on real data.
    ann = AnnIndex(ids, vectors, path=folder / "real.usearch", generation=1)
    figures: dict[str, Any] = {
        "corpus": embedded.description,
        "queries": f"{len(queries)} claims, after {len(warm)} warm-up ones",
        "vectors": len(ids),
        "dim": int(vectors.shape[1]),
        "embed_s": round(embedded.embed_s, 1),
        "hnsw": {"expansion_search": int(ann.index.expansion_search),
                 **timed(lambda q: ann.search(q, K), queries, truth, warm)},
    }
    figures["hnsw_expansion_search_sweep"] = expansion_sweep(ann, queries, truth, warm, sweep)
    if admin_url is not None:
        figures["pgvector"] = pgvector(admin_url, "veritype_vectors_real", ids, vectors,
                                       queries, truth, warm, folder, sweep)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sweep", type=int, nargs="*", default=[32, 64, 128, 256],
                        help="expansion_search values to try on each HNSW index")
    parser.add_argument("--postgres", action="store_true", help="measure pgvector too")
    parser.add_argument("--postgres-url", help="a server whose user may create databases "
                        "(default: one pgserver starts)")
    parser.add_argument("--postgres-max", type=int, default=100_000,
                        help="largest size written to PostgreSQL (writes maintain its HNSW "
                        "index row by row, which takes long on few cores)")
    parser.add_argument("--hnsw-max", type=int, default=1_000_000,
                        help="largest size to build the HNSW index at (above: exact only)")
    parser.add_argument("--real-docs", type=int, default=3000,
                        help="SciFact abstracts to embed (0: skip the real corpus)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    add_data_dir(parser)
    args = parser.parse_args(argv)

    # Embedded first: onnxruntime 1.32 crashes on import in a process that has imported
    # usearch 2.26 before it.
    embedded = embed_scifact(args.data_dir, args.real_docs) if args.real_docs else None
    import onnxruntime  # noqa: F401  (before usearch, also when nothing was embedded)
    import usearch

    # Queries come from their own stream, so they are the same at every size.
    queries = unit_vectors(np.random.default_rng([args.seed, 0]), args.queries + args.warmup,
                           DIM)
    warm, queries = queries[: args.warmup], queries[args.warmup :]
    synthetic: list[dict[str, Any]] = []
    real: dict[str, Any] = {}
    versions = {"usearch": usearch.__version__}
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        admin_url = (stack.enter_context(postgres_server(args.postgres_url))
                     if args.postgres else None)
        if admin_url is not None:
            versions.update(postgres_versions(admin_url))
        for size in args.sizes:
            vectors = unit_vectors(np.random.default_rng([args.seed, size]), size, DIM)
            ids = [f"c{n}" for n in range(size)]
            if size > args.hnsw_max:
                exact, truth = exact_search(ids, vectors, queries, warm)
                figures = {"exact": exact, "hnsw": None}
            else:
                figures, truth = in_memory(ids, vectors, queries, warm, folder, args.sweep)
            row: dict[str, Any] = {"vectors": size, **figures}
            if admin_url is not None and size <= args.postgres_max:
                row["pgvector"] = pgvector(admin_url, f"veritype_vectors_{size}", ids, vectors,
                                           queries, truth, warm, folder, args.sweep)
            synthetic.append(row)
            print(json.dumps(row), flush=True)
            del vectors, ids
        if embedded is not None:
            real = real_corpus(embedded, folder, args.warmup, admin_url, args.sweep)
    write_report(
        args.output, "vector_search",
        synthetic={"dim": DIM, "k": K, "seed": args.seed,
                   "vectors": "standard normal rows scaled to unit length, float32",
                   "queries": f"{args.queries} fresh vectors of the same distribution, after "
                              f"{args.warmup} warm-up ones"},
        ann_threshold=DEFAULT_ANN_THRESHOLD,
        versions=versions,
        sizes=synthetic,
        real=real,
    )
    return 0


def postgres_versions(admin_url: str) -> dict[str, str]:
    """The server's and pgvector's versions (pgvector as the template database has it)."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as connection:
        server = connection.execute("SHOW server_version").fetchone()
        vector = connection.execute(
            "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
    return {"postgresql": str(server[0]) if server else "",
            "pgvector": str(vector[0]) if vector else "", "psycopg": psycopg.__version__}


if __name__ == "__main__":
    raise SystemExit(main())
