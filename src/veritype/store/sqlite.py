"""The embedded store: one SQLite file in WAL mode, one transaction per write batch.

WAL keeps readers unblocked while an ingest writes; every batch of documents is a single
``BEGIN IMMEDIATE … COMMIT``, so a process killed at any moment leaves exactly the documents
of the committed batches, each complete, and a rerun of the ingest fills in the rest.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from veritype.evidence import Chunk, Document
from veritype.store._base import (
    Chunking,
    DocumentRecord,
    DocumentWrite,
    IndexSpec,
    StoreError,
    StoreNotFoundError,
    TitledChunk,
    Vectors,
    WriteOutcome,
    check_storable,
    register_store,
    storable_trace,
)
from veritype.store._vectors import DEFAULT_ANN_THRESHOLD, VectorIndex, build_vector_index

_SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL UNIQUE,
    origin TEXT NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    media_type TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    added_at REAL NOT NULL,
    chunk_count INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_by_origin ON documents (origin);
CREATE TABLE IF NOT EXISTS chunks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL,
    chunking TEXT NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks (doc_id);
CREATE INDEX IF NOT EXISTS chunks_by_chunking ON chunks (chunking, seq);
CREATE TABLE IF NOT EXISTS vectors (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    index_name TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    vector BLOB NOT NULL,
    UNIQUE (index_name, chunk_id)
);
CREATE INDEX IF NOT EXISTS vectors_by_doc ON vectors (doc_id);
CREATE TABLE IF NOT EXISTS traces (
    trace_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    created_at REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS traces_by_time ON traces (created_at);
"""

_DOCUMENT_COLUMNS = (
    "doc_id, source, origin, title, text, media_type, fingerprint, added_at, chunk_count"
)


def _path_from_url(url: str) -> Path:
    """``sqlite:///relative/path`` or ``sqlite:////absolute/path`` → a file path."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise StoreError(
            f"a SQLite store URL looks like sqlite:///path/to/store.sqlite, got {url!r}"
        )
    return Path(url[len(prefix) :])


# How long a connection waits for another one's lock before giving up.
_BUSY_SECONDS = 30.0


def _switch_to_wal(db: sqlite3.Connection) -> None:
    """Put the database in WAL mode. While another process writes to a store that is not yet
    in WAL mode (a new store's first ingest), SQLite refuses the switch at once, without
    waiting, so it is retried until the writer is done."""
    deadline = time.monotonic() + _BUSY_SECONDS
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class SQLiteStore:
    """The embedded default store (see the module docstring for its guarantees)."""

    def __init__(
        self,
        path: Path | str,
        *,
        ann_threshold: int = DEFAULT_ANN_THRESHOLD,
        index_dir: Path | str | None = None,
        create: bool = True,
    ) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise StoreNotFoundError(str(self.path))
        self._index_dir = Path(index_dir) if index_dir else None
        self.url = f"sqlite:///{self.path}"
        self.ann_threshold = ann_threshold
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                       timeout=_BUSY_SECONDS)
            _switch_to_wal(self._db)
            # NORMAL in WAL mode survives a killed process; only power loss can drop the
            # last commits, never corrupt the file.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot open SQLite store {self.path}: {error}") from error
        self._check_schema()
        self._vector_indexes: dict[str, tuple[int, VectorIndex]] = {}

    def _check_schema(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            with self._transaction():
                self._db.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema', ?), ('generation', '0')",
                    (_SCHEMA_VERSION,),
                )
        elif row[0] != _SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has store schema {row[0]}, this veritype reads schema "
                f"{_SCHEMA_VERSION}"
            )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _bump_generation(self) -> None:
        self._db.execute(
            "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) "
            "WHERE key = 'generation'"
        )

    def index_dir(self) -> Path:
        return self._index_dir or self.path.with_name(self.path.name + ".indexes")

    def generation(self) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def save_layout(self, indexes: Sequence[IndexSpec]) -> None:
        payload = json.dumps([spec.to_dict() for spec in indexes], sort_keys=True)
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('layout', ?)", (payload,))

    def layout(self) -> list[IndexSpec]:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'layout'").fetchone()
        return [IndexSpec.from_dict(item) for item in json.loads(row[0])] if row else []

    def write(self, writes: Sequence[DocumentWrite]) -> list[WriteOutcome]:
        if not writes:
            return []
        check_storable(writes)
        try:
            with self._transaction():
                outcomes = [self._write_one(item) for item in writes]
                self._bump_generation()
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: write failed, nothing was stored: {error}") from error
        return outcomes

    def _write_one(self, item: DocumentWrite) -> WriteOutcome:
        record, document = item.record, item.record.document
        stored = self._db.execute(
            "SELECT fingerprint FROM documents WHERE source = ?", (document.source,)
        ).fetchone()
        if stored is not None and stored[0] == record.fingerprint:
            return "unchanged"
        stale = [
            row[0]
            for row in self._db.execute(
                "SELECT doc_id FROM documents WHERE source = ? OR doc_id = ?",
                (document.source, document.doc_id),
            )
        ]
        self._delete_rows(stale)
        self._db.execute(
            f"INSERT INTO documents ({_DOCUMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                document.doc_id,
                document.source,
                record.origin,
                document.title,
                document.text,
                record.media_type,
                record.fingerprint,
                record.added_at,
                record.chunk_count,
            ),
        )
        self._db.executemany(
            "INSERT INTO chunks (chunk_id, doc_id, chunking, start_offset, end_offset, text) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (chunk.chunk_id, chunk.doc_id, key, chunk.start, chunk.end, chunk.text)
                for key, chunks in item.chunks.items()
                for chunk in chunks
            ],
        )
        for index_name, rows in item.vectors.items():
            self._db.executemany(
                "INSERT INTO vectors (index_name, chunk_id, doc_id, vector) VALUES (?, ?, ?, ?)",
                [
                    (index_name, chunk_id, document.doc_id, np.asarray(row, np.float32).tobytes())
                    for chunk_id, row in zip(rows.chunk_ids, rows.vectors, strict=True)
                ],
            )
        return "added" if stored is None else "replaced"

    def _delete_rows(self, doc_ids: Sequence[str]) -> None:
        for table in ("vectors", "chunks", "documents"):
            self._db.executemany(
                f"DELETE FROM {table} WHERE doc_id = ?", [(doc_id,) for doc_id in doc_ids]
            )

    def fingerprints(self, sources: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for batch in _batches(list(sources), 500):
            marks = ",".join("?" * len(batch))
            found.update(
                self._db.execute(
                    f"SELECT source, fingerprint FROM documents WHERE source IN ({marks})", batch
                ).fetchall()
            )
        return found

    def sources_from(self, origin: str) -> list[str]:
        return [
            row[0]
            for row in self._db.execute(
                "SELECT source FROM documents WHERE origin = ? ORDER BY seq", (origin,)
            )
        ]

    def delete(self, doc_ids: Sequence[str]) -> int:
        existing = self._existing("doc_id", doc_ids)
        if existing:
            with self._transaction():
                self._delete_rows(existing)
                self._bump_generation()
        return len(existing)

    def delete_sources(self, sources: Sequence[str]) -> int:
        found = self._existing("source", sources, select="doc_id")
        return self.delete(found)

    def _existing(self, column: str, values: Sequence[str], select: str = "") -> list[str]:
        select = select or column
        found: list[str] = []
        for batch in _batches(list(values), 500):
            marks = ",".join("?" * len(batch))
            found.extend(
                row[0]
                for row in self._db.execute(
                    f"SELECT {select} FROM documents WHERE {column} IN ({marks})", batch
                )
            )
        return found

    def document(self, doc_id: str) -> DocumentRecord | None:
        row = self._db.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE doc_id = ?", (doc_id,)
        ).fetchone()
        return _record(row) if row else None

    def documents(self, *, limit: int = 100, offset: int = 0) -> list[DocumentRecord]:
        rows = self._db.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents ORDER BY seq LIMIT ? OFFSET ?",
            (limit, offset),
        )
        return [_record(row) for row in rows]

    def count_documents(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM documents").fetchone()[0])

    def count_chunks(self, chunking: Chunking | None = None) -> int:
        if chunking is None:
            return int(self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
        row = self._db.execute("SELECT COUNT(*) FROM chunks WHERE chunking = ?", (chunking.key,))
        return int(row.fetchone()[0])

    def document_chunks(self, doc_id: str) -> list[tuple[str, Chunk]]:
        rows = self._db.execute(
            "SELECT chunking, chunk_id, doc_id, start_offset, end_offset, text FROM chunks "
            "WHERE doc_id = ? ORDER BY chunking, start_offset, seq",
            (doc_id,),
        )
        return [(row[0], Chunk(*row[1:])) for row in rows]

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, TitledChunk]:
        found: dict[str, TitledChunk] = {}
        for batch in _batches(list(dict.fromkeys(chunk_ids)), 500):
            marks = ",".join("?" * len(batch))
            rows = self._db.execute(
                "SELECT c.chunk_id, c.doc_id, c.start_offset, c.end_offset, c.text, d.title "
                "FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
                f"WHERE c.chunk_id IN ({marks})",
                batch,
            )
            for row in rows:
                found[row[0]] = TitledChunk(Chunk(*row[:5]), row[5])
        return found

    def iter_chunks(self, chunking: Chunking, *, batch_size: int = 2000) -> Iterator[TitledChunk]:
        last = 0
        while True:
            rows = self._db.execute(
                "SELECT c.seq, c.chunk_id, c.doc_id, c.start_offset, c.end_offset, c.text, "
                "d.title FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
                "WHERE c.chunking = ? AND c.seq > ? ORDER BY c.seq LIMIT ?",
                (chunking.key, last, batch_size),
            ).fetchall()
            if not rows:
                return
            for row in rows:
                yield TitledChunk(Chunk(*row[1:6]), row[6])
            last = rows[-1][0]

    def vectors(self, index: IndexSpec) -> tuple[list[str], Vectors]:
        rows = self._db.execute(
            "SELECT chunk_id, vector FROM vectors WHERE index_name = ? ORDER BY seq",
            (index.name,),
        ).fetchall()
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32)
        return [row[0] for row in rows], matrix.reshape(len(rows), -1).copy()

    def search_vectors(
        self, index: IndexSpec, queries: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        generation = self.generation()
        cached = self._vector_indexes.get(index.name)
        if cached is None or cached[0] != generation:
            ids, vectors = self.vectors(index)
            built = build_vector_index(
                ids,
                vectors,
                ann_threshold=self.ann_threshold,
                path=self.index_dir() / f"{index.name}.usearch",
                generation=generation,
            )
            cached = (generation, built)
            self._vector_indexes[index.name] = cached
        return cached[1].search(np.asarray(queries, dtype=np.float32), k)

    def save_trace(self, trace_id: str, kind: str, trace: Mapping[str, Any]) -> None:
        payload = json.dumps(storable_trace(trace), sort_keys=True)
        try:
            with self._transaction():
                self._db.execute(
                    "INSERT OR REPLACE INTO traces VALUES (?, ?, ?, ?)",
                    (trace_id, kind, time.time(), payload),
                )
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: saving trace {trace_id} failed: {error}") from error

    def prune_traces(self, *, older_than: float | None = None, keep: int | None = None) -> int:
        try:
            with self._transaction():
                deleted = 0
                if older_than is not None:
                    deleted += self._db.execute(
                        "DELETE FROM traces WHERE created_at < ?", (time.time() - older_than,)
                    ).rowcount
                if keep is not None:
                    deleted += self._db.execute(
                        "DELETE FROM traces WHERE trace_id NOT IN (SELECT trace_id FROM traces "
                        "ORDER BY created_at DESC, trace_id DESC LIMIT ?)",
                        (max(keep, 0),),
                    ).rowcount
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: pruning traces failed: {error}") from error
        return deleted

    def count_traces(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM traces").fetchone()[0])

    def trace(self, trace_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT data FROM traces WHERE trace_id = ?", (trace_id,))
        found = row.fetchone()
        return dict(json.loads(found[0])) if found else None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _record(row: Any) -> DocumentRecord:
    doc_id, source, origin, title, text, media_type, fingerprint, added_at, chunk_count = row
    return DocumentRecord(
        document=Document(doc_id=doc_id, text=text, title=title, source=source),
        origin=origin,
        media_type=media_type,
        fingerprint=fingerprint,
        added_at=float(added_at),
        chunk_count=int(chunk_count),
    )


def _batches(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@register_store("sqlite")
def open_sqlite_store(url: str, **options: Any) -> SQLiteStore:
    return SQLiteStore(_path_from_url(url), **options)
