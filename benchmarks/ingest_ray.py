"""Ingest into PostgreSQL locally and on Ray with 1 and 2 workers: chunks per second, what
starting Ray costs, and how fast PostgreSQL takes the chunks.

The first ``--docs`` SciFact abstracts (``--data-dir`` or ``$VERITYPE_DATA_DIR``) are split
into ``--files`` JSON Lines files in a temporary folder and ingested in the default layout
(BM25 plus the MiniLM dense index) into a fresh database each run: ``--postgres-url`` (a
server whose user may create databases), else one the ``pgserver`` package starts. Each Ray
run starts its own local cluster: the start is timed apart from the ingest, whose time
includes starting the actors and loading a model in each. The writes to the store are timed
apart too, which gives PostgreSQL's throughput in chunks per second. Every run must store
the same documents and chunk ids as the local one. The load average says how much other
work shared the cores.

Run: ``python benchmarks/ingest_ray.py [--docs 300 --files 6]`` (writes
``benchmarks/results/ingest_ray.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from _common import add_data_dir, write_report

from veritype.ingest import Corpus, IngestEngine, create_ingest_engine
from veritype.store import DocumentWrite, WriteOutcome

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "ingest_ray.json"


def split_corpus(corpus: Path, docs: int, files: int, folder: Path) -> int:
    """The corpus (its first ``docs`` lines; 0: all) dealt into ``files`` files; the number
    of abstracts."""
    lines = corpus.read_text(encoding="utf-8").splitlines(True)
    if docs:
        lines = lines[:docs]
    for number in range(files):
        (folder / f"part{number:03d}.jsonl").write_text("".join(lines[number::files]),
                                                        encoding="utf-8")
    return len(lines)


def fresh_database(admin_url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name}")
        connection.execute(f"CREATE DATABASE {name}")
    return urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))


def run(url: str, folder: Path, engine: IngestEngine | None, index_dir: Path) -> dict[str, Any]:
    """One ingest, with the time its store writes took."""
    writing = [0.0]
    with Corpus.open(url, index_dir=index_dir) as corpus:
        write = corpus.store.write

        def timed(writes: Sequence[DocumentWrite]) -> list[WriteOutcome]:
            started = time.perf_counter()
            try:
                return write(writes)
            finally:
                writing[0] += time.perf_counter() - started

        corpus.store.write = timed  # type: ignore[method-assign]
        load_before = os.getloadavg()[0]
        report = corpus.ingest([folder], engine=engine)
        stored = sorted(
            (record.doc_id, record.chunk_count)
            for record in corpus.store.documents(limit=10**9)
        )
    return {
        "documents": report.added,
        "chunks": report.chunks,
        "seconds": round(report.seconds, 2),
        "chunks_per_second": round(report.chunks / report.seconds, 1),
        "store_write_seconds": round(writing[0], 3),
        "store_chunks_per_second": round(report.chunks / max(writing[0], 1e-9), 1),
        "load_average_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "stored": stored,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--docs", type=int, default=300, help="SciFact abstracts to ingest")
    parser.add_argument("--files", type=int, default=6, help="files to split them into")
    parser.add_argument("--postgres-url", help="a server to create the databases on")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    corpus = args.data_dir / "scifact" / "corpus.jsonl"
    if not corpus.is_file():
        print(f"SciFact not found at {corpus.parent} (set --data-dir or VERITYPE_DATA_DIR)",
              file=sys.stderr)
        return 2
    import ray

    work = Path(tempfile.mkdtemp(prefix="veritype-ingest-ray-"))
    folder = work / "docs"
    folder.mkdir()
    split_corpus(corpus, args.docs, args.files, folder)
    server = None
    admin_url = args.postgres_url
    if admin_url is None:
        import pgserver

        server = pgserver.get_server(work / "pgdata", cleanup_mode="stop")
        admin_url = server.get_uri()
    runs: dict[str, Any] = {}
    try:
        runs["local"] = run(fresh_database(admin_url, "ingest_local"), folder, None,
                            work / "local")
        for workers in (1, 2):
            started = time.perf_counter()
            engine = create_ingest_engine("ray", workers=workers)
            start_seconds = time.perf_counter() - started
            try:
                result = run(fresh_database(admin_url, f"ingest_ray{workers}"), folder, engine,
                             work / f"ray{workers}")
            finally:
                ray.shutdown()
            runs[f"ray_{workers}_workers"] = {"ray_start_seconds": round(start_seconds, 2),
                                              **result}
    finally:
        if server is not None:
            server.cleanup()
    reference = runs["local"].pop("stored")
    for name in ("ray_1_workers", "ray_2_workers"):
        runs[name]["same_documents_and_chunks_as_local"] = runs[name].pop("stored") == reference
    import psycopg

    write_report(
        args.output, "ingest_ray",
        corpus=f"SciFact, first {args.docs} abstracts in {args.files} JSON Lines files",
        layout="default (BM25 + MiniLM dense, 1,000-character chunks)",
        store="PostgreSQL (pgvector), a fresh database per run",
        # The machine's versions leave these out.
        versions={"ray": ray.__version__, "psycopg": psycopg.__version__},
        runs=runs,
    )
    print(json.dumps({name: r["chunks_per_second"] for name, r in runs.items()}),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
