"""What the SQLite and PostgreSQL stores share: the store contract written once in SQL.

A :class:`Dialect` says how a database spells what differs between the two (table names,
column types, placeholders, upserts, lookups of many values, locking a source); a
:class:`SQLStore` subclass says how it connects, runs a transaction, deletes a document's
rows and keeps dense vectors.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, ClassVar, Protocol

from veritype._closing import Closing
from veritype.errors import StoreError
from veritype.evidence import Chunk, Document
from veritype.store._base import (
    Chunking,
    ChunkVectors,
    DocumentRecord,
    DocumentWrite,
    IndexSpec,
    TitledChunk,
    Vectors,
    WriteOutcome,
    check_storable,
    has_nul,
    storable_trace,
)

SCHEMA_VERSION = "1"

DOCUMENT_COLUMNS = (
    "doc_id, source, origin, title, text, media_type, fingerprint, added_at, chunk_count"
)

# Table names as SQL templates spell them (``{documents}``); a dialect may prefix them.
_TABLES = ("meta", "documents", "chunks", "vectors", "traces")

# The tables both stores have; each dialect fills in its column types.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS {meta} (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS {documents} (
    seq {serial},
    doc_id TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL UNIQUE,
    origin TEXT NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    media_type TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    added_at {real} NOT NULL,
    chunk_count INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS {documents}_by_origin ON {documents} (origin);
CREATE TABLE IF NOT EXISTS {chunks} (
    seq {serial},
    chunk_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL{document_reference},
    chunking TEXT NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS {chunks}_by_doc ON {chunks} (doc_id);
CREATE INDEX IF NOT EXISTS {chunks}_by_chunking ON {chunks} (chunking, seq);
CREATE TABLE IF NOT EXISTS {traces} (
    trace_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    created_at {real} NOT NULL,
    data {json} NOT NULL
);
CREATE INDEX IF NOT EXISTS {traces}_by_time ON {traces} (created_at);
"""


class Cursor(Protocol):
    """The part of a DB-API cursor the stores use (sqlite3's and psycopg's alike)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """The part of a DB-API connection the shared SQL uses."""

    def execute(self, query: str, params: Sequence[Any], /) -> Cursor: ...

    def close(self) -> None: ...


class Dialect(ABC):
    """How one database spells the statements the stores share."""

    table_prefix: ClassVar[str]
    placeholder: ClassVar[str]
    # Column types and the clause that ties a chunk to its document, for the schema.
    serial_key: ClassVar[str]
    real_type: ClassVar[str]
    json_type: ClassVar[str]
    document_reference: ClassVar[str] = ""
    # Whether text columns keep NUL characters: where they cannot, no stored id holds one,
    # so a lookup of such an id is answered without asking the database.
    keeps_nul: ClassVar[bool]
    # Taken inside a write's transaction so writers of the same source wait for each other;
    # ``None`` where the transaction already serialises every writer.
    source_lock: ClassVar[str | None] = None

    def sql(self, template: str) -> str:
        """``template`` with its ``{table}`` names and ``?`` placeholders in this dialect."""
        return template.format(**self._tables()).replace("?", self.placeholder)

    def schema(self) -> str:
        """The statements that create the shared tables where they do not exist yet."""
        return _SCHEMA.format(
            **self._tables(),
            serial=self.serial_key,
            real=self.real_type,
            json=self.json_type,
            document_reference=self.document_reference,
        )

    def _tables(self) -> dict[str, str]:
        return {name: self.table_prefix + name for name in _TABLES}

    def can_match(self, value: str) -> bool:
        """Whether ``value`` can be stored, so looking it up may find something."""
        return self.keeps_nul or not has_nul(value)

    @abstractmethod
    def matching(self, column: str, values: list[str]) -> Iterator[tuple[str, Sequence[Any]]]:
        """Conditions with their parameters that together select rows whose ``column`` is
        one of ``values`` (none for no values)."""

    @abstractmethod
    def upsert(self, table: str, columns: Sequence[str]) -> str:
        """An insert of one row that replaces the row with the same first column."""

    @abstractmethod
    def insert_new(self, table: str, key: str, rows: str) -> str:
        """An insert of ``rows`` (SQL ``(...), (...)``) that leaves existing keys alone."""


class SQLStore(Closing, ABC):
    """The store contract over a SQL database; subclasses connect and keep vectors."""

    dialect: ClassVar[Dialect]
    url: str
    _db: Connection
    # The driver's base exception: what a store reports as a StoreError.
    _driver_error: type[Exception]
    # How messages name the store: a file path or a URL without its password.
    _where: str
    _index_dir: Path

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[object]:
        """One transaction: committed on success, rolled back on any exception."""

    @abstractmethod
    def _executemany(self, template: str, rows: Sequence[Sequence[Any]]) -> None: ...

    @abstractmethod
    def _delete_documents(self, where: str, params: Sequence[Any]) -> int:
        """Delete the documents matching ``where`` with their chunks and vectors; returns
        how many documents there were."""

    @abstractmethod
    def _insert_vectors(self, doc_id: str, vectors: Mapping[str, ChunkVectors]) -> None: ...

    def _prepare_write(self, writes: Sequence[DocumentWrite]) -> None:
        """Work a write needs done before its transaction starts (none by default)."""

    @abstractmethod
    def vectors(self, index: IndexSpec) -> tuple[list[str], Vectors]: ...

    @abstractmethod
    def search_vectors(
        self, index: IndexSpec, queries: Vectors, k: int
    ) -> list[list[tuple[str, float]]]: ...

    def _execute(self, template: str, params: Sequence[Any] = ()) -> Cursor:
        return self._db.execute(self.dialect.sql(template), params)

    def _count(self, template: str, params: Sequence[Any] = ()) -> int:
        row = self._execute(template, params).fetchone()
        return int(row[0]) if row else 0

    def _matching(self, column: str, values: Iterable[str]) -> Iterator[tuple[str, Sequence[Any]]]:
        storable = [value for value in values if self.dialect.can_match(value)]
        return self.dialect.matching(column, storable)

    @contextmanager
    def _failing(self, what: str) -> Iterator[None]:
        """Driver errors inside become :class:`StoreError` saying ``what`` failed."""
        try:
            yield
        except self._driver_error as error:
            raise StoreError(f"{self._where}: {what}: {error}") from error

    def _meta(self, key: str) -> str | None:
        row = self._execute("SELECT value FROM {meta} WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def _add_meta_defaults(self) -> None:
        self._execute(
            self.dialect.insert_new("meta", "key", "('schema', ?), ('generation', '0')"),
            (SCHEMA_VERSION,),
        )

    def _bump_generation(self) -> None:
        self._execute(
            "UPDATE {meta} SET value = CAST(CAST(value AS BIGINT) + 1 AS TEXT) "
            "WHERE key = 'generation'"
        )

    def index_dir(self) -> Path:
        return self._index_dir

    def generation(self) -> int:
        return int(self._meta("generation") or 0)

    def save_layout(self, indexes: Sequence[IndexSpec]) -> None:
        payload = json.dumps([spec.to_dict() for spec in indexes], sort_keys=True)
        with self._transaction():
            self._execute(self.dialect.upsert("meta", ("key", "value")), ("layout", payload))

    def layout(self) -> list[IndexSpec]:
        value = self._meta("layout")
        return [IndexSpec.from_dict(item) for item in json.loads(value)] if value else []

    def write(self, writes: Sequence[DocumentWrite]) -> list[WriteOutcome]:
        if not writes:
            return []
        check_storable(writes)
        with self._failing("write failed, nothing was stored"):
            self._prepare_write(writes)
            with self._transaction():
                outcomes = [self._write_one(item) for item in writes]
                self._bump_generation()
        return outcomes

    def _write_one(self, item: DocumentWrite) -> WriteOutcome:
        record, document = item.record, item.record.document
        if self.dialect.source_lock:
            self._execute(self.dialect.source_lock, (document.source,))
        stored = self._execute(
            "SELECT fingerprint FROM {documents} WHERE source = ?", (document.source,)
        ).fetchone()
        if stored is not None and stored[0] == record.fingerprint:
            return "unchanged"
        self._delete_documents("source = ? OR doc_id = ?", (document.source, document.doc_id))
        self._execute(
            f"INSERT INTO {{documents}} ({DOCUMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        self._executemany(
            "INSERT INTO {chunks} (chunk_id, doc_id, chunking, start_offset, end_offset, text) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (chunk.chunk_id, chunk.doc_id, key, chunk.start, chunk.end, chunk.text)
                for key, chunks in item.chunks.items()
                for chunk in chunks
            ],
        )
        self._insert_vectors(document.doc_id, item.vectors)
        return "added" if stored is None else "replaced"

    def fingerprints(self, sources: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for condition, params in self._matching("source", sources):
            rows = self._execute(
                f"SELECT source, fingerprint FROM {{documents}} WHERE {condition}", params
            )
            found.update((str(source), str(stamp)) for source, stamp in rows)
        return found

    def sources_from(self, origin: str) -> list[str]:
        if not self.dialect.can_match(origin):
            return []
        rows = self._execute(
            "SELECT source FROM {documents} WHERE origin = ? ORDER BY seq", (origin,)
        )
        return [str(row[0]) for row in rows]

    def delete(self, doc_ids: Sequence[str]) -> int:
        return self._delete_where("doc_id", doc_ids)

    def delete_sources(self, sources: Sequence[str]) -> int:
        return self._delete_where("source", sources)

    def _delete_where(self, column: str, values: Sequence[str]) -> int:
        conditions = list(self._matching(column, values))
        if not conditions:
            return 0
        with self._transaction():
            deleted = sum(self._delete_documents(where, params) for where, params in conditions)
            if deleted:
                self._bump_generation()
        return deleted

    def document(self, doc_id: str) -> DocumentRecord | None:
        if not self.dialect.can_match(doc_id):
            return None
        row = self._execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM {{documents}} WHERE doc_id = ?", (doc_id,)
        ).fetchone()
        return _record(row) if row else None

    def documents(self, *, limit: int = 100, offset: int = 0) -> list[DocumentRecord]:
        rows = self._execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM {{documents}} ORDER BY seq LIMIT ? OFFSET ?",
            (limit, offset),
        )
        return [_record(row) for row in rows]

    def count_documents(self) -> int:
        return self._count("SELECT COUNT(*) FROM {documents}")

    def count_chunks(self, chunking: Chunking | None = None) -> int:
        if chunking is None:
            return self._count("SELECT COUNT(*) FROM {chunks}")
        return self._count("SELECT COUNT(*) FROM {chunks} WHERE chunking = ?", (chunking.key,))

    def document_chunks(self, doc_id: str) -> list[tuple[str, Chunk]]:
        if not self.dialect.can_match(doc_id):
            return []
        rows = self._execute(
            "SELECT chunking, chunk_id, doc_id, start_offset, end_offset, text FROM {chunks} "
            "WHERE doc_id = ? ORDER BY chunking, start_offset, seq",
            (doc_id,),
        )
        return [(str(row[0]), Chunk(*row[1:])) for row in rows]

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, TitledChunk]:
        found: dict[str, TitledChunk] = {}
        for condition, params in self._matching("c.chunk_id", dict.fromkeys(chunk_ids)):
            rows = self._execute(
                "SELECT c.chunk_id, c.doc_id, c.start_offset, c.end_offset, c.text, d.title "
                f"FROM {{chunks}} c JOIN {{documents}} d ON d.doc_id = c.doc_id WHERE {condition}",
                params,
            )
            for row in rows:
                found[str(row[0])] = TitledChunk(Chunk(*row[:5]), str(row[5]))
        return found

    def iter_chunks(self, chunking: Chunking, *, batch_size: int = 2000) -> Iterator[TitledChunk]:
        last = 0
        while True:
            rows = self._execute(
                "SELECT c.seq, c.chunk_id, c.doc_id, c.start_offset, c.end_offset, c.text, "
                "d.title FROM {chunks} c JOIN {documents} d ON d.doc_id = c.doc_id "
                "WHERE c.chunking = ? AND c.seq > ? ORDER BY c.seq LIMIT ?",
                (chunking.key, last, batch_size),
            ).fetchall()
            if not rows:
                return
            for row in rows:
                yield TitledChunk(Chunk(*row[1:6]), str(row[6]))
            last = int(rows[-1][0])

    def save_trace(self, trace_id: str, kind: str, trace: Mapping[str, Any]) -> None:
        # JSON text: SQLite keeps it as it is, PostgreSQL casts it to JSONB.
        payload = json.dumps(storable_trace(trace), sort_keys=True)
        with self._failing(f"saving trace {trace_id} failed"), self._transaction():
            self._execute(
                self.dialect.upsert("traces", ("trace_id", "kind", "created_at", "data")),
                (trace_id, kind, time.time(), payload),
            )

    def prune_traces(self, *, older_than: float | None = None, keep: int | None = None) -> int:
        deleted = 0
        with self._failing("pruning traces failed"), self._transaction():
            if older_than is not None:
                deleted += self._execute(
                    "DELETE FROM {traces} WHERE created_at < ?", (time.time() - older_than,)
                ).rowcount
            if keep is not None:
                deleted += self._execute(
                    "DELETE FROM {traces} WHERE trace_id NOT IN (SELECT trace_id FROM {traces} "
                    "ORDER BY created_at DESC, trace_id DESC LIMIT ?)",
                    (max(keep, 0),),
                ).rowcount
        return deleted

    def count_traces(self) -> int:
        return self._count("SELECT COUNT(*) FROM {traces}")

    def trace(self, trace_id: str) -> dict[str, Any] | None:
        if not self.dialect.can_match(trace_id):
            return None
        found = self._execute(
            "SELECT CAST(data AS TEXT) FROM {traces} WHERE trace_id = ?", (trace_id,)
        ).fetchone()
        return dict(json.loads(found[0])) if found else None

    def close(self) -> None:
        self._db.close()


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
