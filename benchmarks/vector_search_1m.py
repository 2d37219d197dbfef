"""Dense search up to 1 M vectors on each store's own index: top-10 latency and recall@10
against exact search, with what the index took to build.

Two kinds of synthetic vectors (dimension 384, float32, unit length, fixed seed), named in the
results as ``vectors``:

* ``clustered``: a Gaussian mixture shaped like sentence embeddings. ``--clusters`` centres,
  of uneven weights (log-normal), and the spread about each, are drawn with variances that
  fall as 1/i along the axes of one random rotation, so the vectors fill few effective
  dimensions (about 26 of 384) and neighbours share a topic, as real embeddings do;
* ``uniform``: standard normal rows scaled to unit length, no clusters: the hardest case for
  a graph index, the one ``benchmarks/vector_search.py`` measures.

Queries are fresh draws from the same distribution (their own random stream). Latency is per
query, one query at a time, after ``--warmup`` queries; recall@10 is the share of the exact top
10 found. The mean cosine of a query to its exact first and tenth neighbour says how close the
neighbours are.

``--store memory`` (the SQLite store's path, ``veritype.store._vectors``): the usearch HNSW
index with the parameters ``AnnIndex`` builds it with, grown in batches to each of ``--sizes``
and measured there (a graph grows the same whether its vectors come at once or in batches),
at its default ``expansion_search`` and a sweep of it; build time and rate are cumulative.
With ``--index-file`` the final graph is saved and its reload timed; when that file exists
already (an earlier run's graph over the same vectors), it is loaded and searched instead,
at the largest size only, to measure again on a quieter machine without rebuilding.

``--store postgres``: for each size a fresh database of ``PostgresStore``'s schema, the
vectors copied in with the HNSW index dropped, then the index created by the store's own
statement (pgvector's defaults, m 16 and ef_construction 64) with ``--maintenance-work-mem``
and ``--parallel-workers``, and searched by ``PostgresStore.search_vectors`` at its default
``ef_search`` and a sweep of it (up to pgvector's 1000). The server is ``--postgres-url``, else
one the ``pgserver`` package starts in a temporary folder.

Each size's row is written as soon as it is measured, so an interrupted run keeps what it
measured. Run: ``python benchmarks/vector_search_1m.py --store memory --vectors clustered
--sizes 100000 250000 500000 1000000`` (writes
``benchmarks/results/vector_search_1m_memory_clustered.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT, write_report
from vector_search import (
    DIM,
    K,
    fresh_database,
    postgres_server,
    postgres_versions,
    timed,
    unit_vectors,
)

from veritype.store import Vectors
from veritype.store._base import normalise_rows
from veritype.store._vectors import AnnIndex, ExactIndex

BLOCK = 50_000


@dataclass(frozen=True)
class Mixture:
    """A Gaussian mixture on the sphere, its variances falling as 1/i along rotated axes."""

    centres: Vectors
    weights: np.ndarray
    axes: Vectors
    spread: float

    @classmethod
    def make(cls, rng: np.random.Generator, clusters: int, dim: int, spread: float) -> Mixture:
        axes = np.linalg.qr(rng.standard_normal((dim, dim)))[0].astype(np.float32)
        mixture = cls(np.zeros((0, dim), np.float32), np.zeros(0), axes, spread)
        weights = rng.lognormal(0.0, 1.0, clusters)
        return cls(mixture.shaped(rng, clusters, 1.0), weights / weights.sum(), axes, spread)

    def shaped(self, rng: np.random.Generator, count: int, scale: float) -> Vectors:
        """``count`` normal vectors of total variance ``scale``², variances ∝ 1/i."""
        dim = self.axes.shape[0]
        spectrum = 1.0 / np.sqrt(np.arange(1, dim + 1, dtype=np.float32))
        spectrum *= scale / np.linalg.norm(spectrum)
        return (rng.standard_normal((count, dim), dtype=np.float32) * spectrum) @ self.axes.T

    def draw(self, rng: np.random.Generator, count: int) -> Vectors:
        out = np.empty((count, self.axes.shape[0]), dtype=np.float32)
        for start in range(0, count, 100_000):
            size = min(100_000, count - start)
            members = rng.choice(len(self.weights), size=size, p=self.weights)
            block = normalise_rows(self.centres)[members] + self.shaped(rng, size, self.spread)
            out[start : start + size] = block / np.linalg.norm(block, axis=1, keepdims=True)
        return out


def make_vectors(kind: str, seed: int, count: int, queries: int, clusters: int, spread: float
                 ) -> tuple[Vectors, Vectors, str]:
    """The corpus, the queries (warm-up ones first) and a description."""
    if kind == "uniform":
        return (unit_vectors(np.random.default_rng([seed, 1]), count, DIM),
                unit_vectors(np.random.default_rng([seed, 0]), queries, DIM),
                "standard normal rows scaled to unit length, float32")
    mixture = Mixture.make(np.random.default_rng([seed, 2]), clusters, DIM, spread)
    return (mixture.draw(np.random.default_rng([seed, 1]), count),
            mixture.draw(np.random.default_rng([seed, 0]), queries),
            f"Gaussian mixture of {clusters} clusters (log-normal weights), centres and spread "
            f"with variances ∝ 1/i along one random rotation, spread {spread} about unit "
            f"centres, rows scaled to unit length, float32")


def exact(ids: list[str], vectors: Vectors, queries: Vectors, warm: Vectors
          ) -> tuple[dict[str, Any], list[set[str]]]:
    """Exact search's figures, the exact top ``K`` of each query, and how close it lies."""
    index = ExactIndex(ids, vectors)
    truth: list[set[str]] = []
    first, tenth = [], []
    for start in range(0, len(queries), 20):
        for row in index.search(queries[start : start + 20], K):
            truth.append({i for i, _ in row})
            first.append(row[0][1])
            tenth.append(row[-1][1])
    figures = timed(lambda q: index.search(q, K), queries, truth, warm)
    figures["mean_cosine_first_neighbour"] = round(float(np.mean(first)), 3)
    figures["mean_cosine_tenth_neighbour"] = round(float(np.mean(tenth)), 3)
    return figures, truth


def sweep(search_at: Callable[[int], Callable[[Vectors], list[list[tuple[str, float]]]]],
          values: list[int], queries: Vectors, truth: list[set[str]], warm: Vectors,
          name: str) -> list[dict[str, Any]]:
    rows = []
    for value in values:
        rows.append({name: value, **timed(search_at(value), queries, truth, warm)})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def memory(args: argparse.Namespace, vectors: Vectors, queries: Vectors, warm: Vectors,
           report: Callable[[list[dict[str, Any]], dict[str, Any]], None]) -> None:
    from usearch.index import Index

    # The graph with the parameters AnnIndex gives it (read from a small one).
    with tempfile.TemporaryDirectory() as folder:
        probe = AnnIndex(["a", "b"], vectors[:2], path=Path(folder) / "probe.usearch",
                         generation=1).index
    parameters = {"connectivity": int(probe.connectivity),
                  "expansion_add": int(probe.expansion_add),
                  "expansion_search": int(probe.expansion_search)}
    index = Index(ndim=DIM, metric="cos", dtype="f32", **parameters)
    ids = [f"c{n}" for n in range(len(vectors))]
    rows: list[dict[str, Any]] = []
    added, build_s, reload_s = 0, 0.0, 0.0
    if args.index_file is not None and args.index_file.exists():
        # A graph an earlier run saved over the same vectors: searched again, not rebuilt.
        started = time.perf_counter()
        restored = Index.restore(str(args.index_file))
        reload_s = time.perf_counter() - started
        if restored is None or len(restored) != len(vectors):
            raise SystemExit(f"{args.index_file} does not hold {len(vectors)} vectors")
        index, added = restored, len(vectors)
        args.sizes = [added]
    for size in sorted(args.sizes):
        while added < size:
            step = min(BLOCK, size - added)
            started = time.perf_counter()
            index.add(np.arange(added, added + step, dtype=np.uint64),
                      normalise_rows(vectors[added : added + step]))
            build_s += time.perf_counter() - started
            added += step
            print(f"{time.strftime('%H:%M:%S')} added {added} in {build_s:.0f} s "
                  f"({added / build_s:.0f}/s), load {os.getloadavg()[0]:.2f}",
                  file=sys.stderr, flush=True)
        load_building = os.getloadavg()[0]
        exact_figures, truth = exact(ids[:size], vectors[:size], queries, warm)
        ann = AnnIndex.__new__(AnnIndex)
        ann.ids, ann.index = ids[:size], index
        index.expansion_search = parameters["expansion_search"]
        built = ({"build_s_cumulative": round(build_s, 1),
                  "build_vectors_per_second": round(size / build_s, 1),
                  "load_average_1min_at_end_of_build": round(load_building, 2)}
                 if build_s else {"restored_from_saved_index_s": round(reload_s, 1)})
        row: dict[str, Any] = {
            "vectors": size,
            "exact": exact_figures,
            "hnsw": {**parameters, **built,
                     "load_average_1min_before_search": round(os.getloadavg()[0], 2),
                     **timed(lambda q, a=ann: a.search(q, K), queries, truth, warm)},
        }

        def at(expansion: int, ann: AnnIndex = ann
               ) -> Callable[[Vectors], list[list[tuple[str, float]]]]:
            index.expansion_search = expansion
            return lambda q: ann.search(q, K)

        row["hnsw_expansion_search_sweep"] = sweep(at, args.sweep, queries, truth, warm,
                                                   "expansion_search")
        index.expansion_search = parameters["expansion_search"]
        rows.append(row)
        report(rows, {})
    extra: dict[str, Any] = {}
    if args.index_file is not None and build_s:
        started = time.perf_counter()
        index.save(str(args.index_file))
        save_s = time.perf_counter() - started
        started = time.perf_counter()
        restored = Index.restore(str(args.index_file))
        reload_s = time.perf_counter() - started
        extra = {"saved_index": {"vectors": added, "save_s": round(save_s, 1),
                                 "reload_s": round(reload_s, 1),
                                 "bytes": args.index_file.stat().st_size,
                                 "reloaded_count": len(restored) if restored else 0}}
        report(rows, extra)


def postgres(args: argparse.Namespace, vectors: Vectors, queries: Vectors, warm: Vectors,
             report: Callable[[list[dict[str, Any]], dict[str, Any]], None]) -> None:
    from psycopg import sql

    from veritype.evidence import Chunk, Document
    from veritype.store import Chunking, DocumentRecord, DocumentWrite, IndexSpec
    from veritype.store.postgres import PostgresStore

    chunking = Chunking()
    spec = IndexSpec("dense", "dense", chunking, model="synthetic")
    rows: list[dict[str, Any]] = []
    settings = {"maintenance_work_mem": args.maintenance_work_mem,
                "max_parallel_maintenance_workers": str(args.parallel_workers)}
    with tempfile.TemporaryDirectory() as folder, postgres_server(args.postgres_url) as admin:
        versions = postgres_versions(admin)
        for size in sorted(args.sizes):
            url = fresh_database(admin, f"veritype_search_{size}")
            ids = [f"c{n}" for n in range(size)]
            with PostgresStore(url, index_dir=folder) as store:
                document = Document(doc_id="doc0", text="x", source="synthetic/0")
                store.write([DocumentWrite(
                    record=DocumentRecord(document, origin="synthetic",
                                          media_type="text/plain", fingerprint="fp0",
                                          added_at=0.0),
                    chunks={chunking.key: [Chunk("c-1", "doc0", 0, 1, "x")]}, vectors={})])
                table = store._vector_table(spec.name)
                store._ensure_vector_table(spec.name, DIM)
                db = store._db
                db.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(f"{table}_hnsw")))
                started = time.perf_counter()
                with db.cursor() as cursor, cursor.copy(sql.SQL(
                        "COPY {} (chunk_id, doc_id, embedding) FROM STDIN WITH (FORMAT BINARY)"
                ).format(sql.Identifier(table))) as copy:
                    copy.set_types(["text", "text", "vector"])
                    for chunk_id, vector in zip(ids, vectors[:size], strict=True):
                        copy.write_row((chunk_id, "doc0", vector))
                copy_s = time.perf_counter() - started
                for name, value in settings.items():
                    db.execute(sql.SQL("SET {} = {}").format(sql.Identifier(name),
                                                            sql.Literal(value)))
                print(f"{time.strftime('%H:%M:%S')} copied {size} in {copy_s:.0f} s; "
                      "building", file=sys.stderr, flush=True)
                load_before = os.getloadavg()[0]
                started = time.perf_counter()
                store._ensure_vector_table(spec.name, DIM)  # the store's CREATE INDEX
                build_s = time.perf_counter() - started
                print(f"{time.strftime('%H:%M:%S')} built in {build_s:.0f} s",
                      file=sys.stderr, flush=True)
                db.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(table)))
                exact_figures, truth = exact(ids, vectors[:size], queries, warm)
                row: dict[str, Any] = {
                    "vectors": size,
                    "exact": exact_figures,
                    "pgvector": {
                        "index": "hnsw (embedding vector_cosine_ops), pgvector defaults",
                        "copy_s": round(copy_s, 1),
                        "build_s": round(build_s, 1),
                        "build_vectors_per_second": round(size / build_s, 1),
                        "build_settings": settings,
                        "load_average_1min_before_after_build": [
                            round(load_before, 2), round(os.getloadavg()[0], 2)],
                        "ef_search": store.ef_search,
                        **timed(lambda q: store.search_vectors(spec, q, K), queries, truth,
                                warm),
                    },
                }
            stores: list[PostgresStore] = []

            def at(ef_search: int, url: str = url, stores: list[PostgresStore] = stores
                   ) -> Callable[[Vectors], list[list[tuple[str, float]]]]:
                stores.append(PostgresStore(url, index_dir=folder, ef_search=ef_search))
                return lambda q: stores[-1].search_vectors(spec, q, K)

            row["pgvector"]["ef_search_sweep"] = sweep(
                at, [v for v in args.sweep if v <= 1000], queries, truth, warm, "ef_search")
            for opened in stores:
                opened.close()
            rows.append(row)
            report(rows, {"versions": versions})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["memory", "postgres"], required=True)
    parser.add_argument("--vectors", choices=["clustered", "uniform"], default="clustered")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--spread", type=float, default=0.8,
                        help="the spread about a cluster's centre (the centres are unit)")
    parser.add_argument("--sweep", type=int, nargs="*", default=[32, 128, 256, 512, 1024],
                        help="expansion_search (ef_search) values to try")
    parser.add_argument("--index-file", type=Path,
                        help="memory: save the final graph here and time its reload")
    parser.add_argument("--postgres-url", help="a server whose user may create databases "
                        "(default: one pgserver starts)")
    parser.add_argument("--maintenance-work-mem", default="6GB",
                        help="postgres: for the index build (the graph must fit to be built "
                        "in memory)")
    parser.add_argument("--parallel-workers", type=int, default=1,
                        help="postgres: max_parallel_maintenance_workers for the build")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    output = args.output or (ROOT / "benchmarks" / "results"
                             / f"vector_search_1m_{args.store}_{args.vectors}.json")
    vectors, queries, description = make_vectors(
        args.vectors, args.seed, max(args.sizes), args.queries + args.warmup, args.clusters,
        args.spread)
    warm, queries = queries[: args.warmup], queries[args.warmup :]
    # onnxruntime 1.32 crashes on import in a process that has imported usearch 2.26 before
    # it, and AnnIndex imports onnxruntime.
    import onnxruntime  # noqa: F401
    import usearch

    header = {
        "store": {"memory": "in memory (SQLite store): usearch HNSW as AnnIndex builds it",
                  "postgres": "PostgreSQL: pgvector HNSW, searched by PostgresStore"
                  }[args.store],
        "vectors": args.vectors,
        "synthetic": {"dim": DIM, "k": K, "seed": args.seed, "description": description,
                      "queries": f"{args.queries} fresh draws of the same distribution, after "
                                 f"{args.warmup} warm-up ones"},
        "command": "python benchmarks/vector_search_1m.py "
                   + " ".join(argv if argv is not None else sys.argv[1:]),
    }

    def report(rows: list[dict[str, Any]], extra: dict[str, Any]) -> None:
        versions = {"usearch": usearch.__version__, **extra.pop("versions", {})}
        write_report(output, "vector_search_1m", **header, versions=versions, **extra,
                     largest_measured=rows[-1]["vectors"], sizes=rows)

    (memory if args.store == "memory" else postgres)(args, vectors, queries, warm, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
